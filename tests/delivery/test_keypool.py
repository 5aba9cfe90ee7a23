"""Key pairs made ahead (issue 32: a webhook in a millisecond): a registration takes a pair
the pool made before the request came, never one generated on its path, and no pair is
handed out twice."""

from __future__ import annotations

import base64

from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding, rsa

from emulator.delivery import keypool, signing

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


def test_pairs_are_composed_from_a_stock_of_primes():
    """One generation adds a pair with each prime kept: 40 pairs cost 5 generations (10
    primes give 45), not 40; every pair is a working 2048-bit key of its own."""
    stock = keypool.Primes()
    made = [stock.take() for _ in range(40)]
    assert len(stock.primes) <= 10
    assert len({public for _, public in made}) == len({private for private, _ in made}) == 40
    for private_pem, public_pem in (made[0], made[17], made[-1]):
        private = serialization.load_pem_private_key(private_pem.encode(), password=None)
        public = serialization.load_pem_public_key(public_pem.encode())
        assert isinstance(private, rsa.RSAPrivateKey) and isinstance(public, rsa.RSAPublicKey)
        assert public.key_size == signing.KEY_BITS and public.public_numbers().e == 65537
        assert private.public_key().public_numbers() == public.public_numbers()
        body = b'{"event_type": "purchase.paid"}'
        signature = base64.b64decode(signing.Signer().sign(private_pem, body))
        public.verify(signature, body, padding.PKCS1v15(), hashes.SHA256())


def test_a_full_stock_starts_again_and_pairs_stay_distinct():
    stock = keypool.Primes(limit=4)  # 4 primes: 6 pairs, then a stock of new ones
    made = [stock.take() for _ in range(7)]
    assert len(stock.primes) == 2
    assert len({public for _, public in made}) == 7
