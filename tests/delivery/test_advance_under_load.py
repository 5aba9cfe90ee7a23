"""An advance under load finishes (issue 32): its work is the jobs due on its way when it
starts, what they cause and what its own merchants' receivers cause; requests of other clients
meanwhile are served at the instant it stands at, and what they schedule goes out as it would
without an advance, not as more work for it. Functional, not timed: clients keep creating and
paying purchases until the advance returns, and it returns."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx

from tests.delivery.test_deliveries import SINK, paid_out, webhook
from tests.http.clock_helpers import (
    SERVER_NOW,
    Receiver,
    follower,
    gw_of,
    later,
    sink_messages,
    unix,
    until,
)
from tests.http.purchase_helpers import create, get, pay, purchase_body

LOAD_CLIENTS = 4


async def paying(
    http: httpx.AsyncClient, merchant: dict[str, Any], stop: asyncio.Event, paid: list[str]
) -> None:
    """One client: create a purchase, pay it, again, until ``stop``; the ids of those paid
    go into ``paid``."""
    gw = gw_of(merchant)
    while not stop.is_set():
        purchase = await create(http, gw, merchant)
        answer = await pay(http, purchase["id"])
        assert answer.status_code == 200, answer.text
        paid.append(purchase["id"])


async def test_an_advance_returns_while_other_clients_keep_paying(http):
    """Four clients on the server clock create and pay purchases (each purchase.paid a
    webhook to their sink) and only stop once a 60-second advance of that clock has returned.
    The advance runs its own work on its way (a purchase falls due 30 s in) and returns; every
    payment's webhook is delivered."""
    own = await follower(http)
    due = unix(later(SERVER_NOW, seconds=30))
    strict = {"currency": "ZAR", "due_strict": True, "products": [{"name": "W", "price": 100}]}
    falls_due = await create(http, gw_of(own), own, due=due, purchase=strict)
    merchants = [await follower(http) for _ in range(LOAD_CLIENTS)]
    for n, merchant in enumerate(merchants):
        await webhook(
            http,
            gw_of(merchant),
            SINK.format(name=f"load-{n}"),
            all_events=False,
            events=["purchase.paid"],
        )
    stop = asyncio.Event()
    paid: list[list[str]] = [[] for _ in merchants]
    clients = [
        asyncio.create_task(paying(http, merchant, stop, done))
        for merchant, done in zip(merchants, paid, strict=True)
    ]
    try:
        await until(lambda: all(len(done) >= 2 for done in paid))  # the load is on
        before = sum(map(len, paid))
        advancing = asyncio.create_task(http.post("/_emulator/clock/advance", json={"seconds": 60}))
        await until(lambda: sum(map(len, paid)) >= before + 2 * LOAD_CLIENTS or advancing.done())
        moved = await asyncio.wait_for(advancing, 30)  # before the change: never, load on
    finally:
        stop.set()
        await asyncio.gather(*clients)
    assert moved.status_code == 200, moved.text
    assert moved.json()["now"] == later(SERVER_NOW, seconds=60)
    assert sum(map(len, paid)) > before  # the load went on while it advanced
    expired = await get(http, gw_of(own), falls_due["id"])
    assert expired["status_history"][-1] == {"status": "expired", "timestamp": due}
    for n, done in enumerate(paid):
        got = await sink_messages(http, f"load-{n}")
        bodies = [json.loads(m["body"]) for m in got]  # objects' webhooks in any order
        assert sorted((b["event_type"], b["id"]) for b in bodies) == sorted(
            ("purchase.paid", purchase_id) for purchase_id in done
        )


async def test_a_request_during_an_advance_is_served_at_its_instant_and_delivered(http):
    """The server clock's advance stands at a payout's settlement (3 days in) while its
    receiver takes its time to answer. Another client's purchase, paid then, is answered at
    that instant, and its webhook reaches the sink stamped with it while the advance still
    waits for that receiver: it went out as without an advance, not as the advance's work."""
    settling, other = await follower(http), await follower(http)
    day3 = later(SERVER_NOW, days=3)
    await webhook(
        http, gw_of(other), SINK.format(name="other"), all_events=False, events=["purchase.paid"]
    )
    async with Receiver(delay=1.5) as receiver:
        await webhook(
            http, gw_of(settling), receiver.url, all_events=False, events=["payout.success"]
        )
        await paid_out(http, gw_of(settling), settling, "5555555555554444")
        advancing = asyncio.create_task(http.post("/_emulator/clock/advance", json={"days": 10}))
        await until(lambda: len(receiver.received) == 1)  # it stands at the settlement
        made = await http.post(
            "/api/v1/purchases/", json=purchase_body(other), headers=gw_of(other)
        )
        answer = await pay(http, made.json()["id"])
        got: list[dict[str, Any]] = []
        for _ in range(500):  # its delivery is a send of its own: wait for it, not for the advance
            got = await sink_messages(http, "other")
            if got or advancing.done():
                break
            await asyncio.sleep(0.01)
        still_advancing = not advancing.done()
        moved = await asyncio.wait_for(advancing, 15)
    assert made.headers["x-emulator-time"] == day3 and answer.status_code == 200
    assert [(json.loads(m["body"])["event_type"], m["received_at"]) for m in got] == [
        ("purchase.paid", day3)
    ]
    assert still_advancing
    assert moved.status_code == 200 and moved.json()["now"] == later(SERVER_NOW, days=10)
