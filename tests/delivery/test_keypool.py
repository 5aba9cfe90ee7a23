"""Key pairs made ahead (issue 32: a webhook in a millisecond): a registration takes a pair
the pool made before the request came, never one generated on its path, and no pair is
handed out twice."""

from __future__ import annotations

from emulator.delivery import keypool

SINK = "http://127.0.0.1:8400/_emulator/sink/hooks"


def full_pool(timeout: float = 60.0) -> list[str]:
    """The public keys waiting in the pool, once it is full (a condition, not a sleep)."""
    pool = keypool._ready
    keypool.take_ready()  # starts the filler (what it takes, the filler makes again)
    with pool.not_empty:  # notified at each put of the filler; holds the queue's lock
        filled = pool.not_empty.wait_for(lambda: pool._qsize() >= pool.maxsize, timeout)
        assert filled, "the key pool did not fill"
        return [public for _, public in list(pool.queue)]


async def test_a_registration_takes_a_pair_made_ahead(http, gw):
    ready = full_pool()
    created = await http.post(
        "/api/v1/webhooks/",
        json={"title": "t", "events": ["purchase.paid"], "callback": SINK},
        headers=gw,
    )
    assert created.status_code == 201
    assert created.json()["public_key"] == ready[0]


def test_no_pair_is_handed_out_twice():
    taken = [keypool.take_now() for _ in range(keypool.SIZE + 3)]
    assert len({private for private, _ in taken}) == len(taken)
    assert len({public for _, public in taken}) == len(taken)
