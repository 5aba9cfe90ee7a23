"""webhook.delivery through HTTP: copies, delay, failing attempts and reordering."""

from __future__ import annotations

from tests.delivery.test_deliveries import SINK, advance, paid_out, webhook
from tests.http.purchase_helpers import create, pay


async def activate(http, merchant, then: str, match: str = "{}") -> None:
    text = (
        f"name: hooks\nrules:\n  - when: webhook.delivery\n    match: {match}\n    then: {then}\n"
    )
    assert (await http.post("/_emulator/scenarios", content=text)).status_code == 201
    body = {"merchant": merchant["company_id"]}
    assert (await http.post("/_emulator/scenarios/hooks/activate", json=body)).status_code == 200


async def received(http, name: str) -> list[dict]:
    return (await http.get(f"/_emulator/sink/{name}")).json()["messages"]


async def test_copies_are_the_same_message_with_the_same_event_id(http, gw, merchant):
    await webhook(http, gw, SINK.format(name="copies"))
    await activate(http, merchant, "{copies: 3}", "{event_type: payout.success}")
    await paid_out(http, gw, merchant, "4444333322221111")
    messages = [
        m for m in await received(http, "copies") if m["json"]["event_type"] == "payout.success"
    ]
    assert len(messages) == 3
    assert len({m["body"] for m in messages}) == 1
    assert len({m["headers"]["x-event-id"] for m in messages}) == 1


async def test_delay_holds_a_message_back_on_the_clock(http, gw, merchant):
    await webhook(http, gw, SINK.format(name="later"))
    await activate(http, merchant, "{delay_seconds: 600}")
    await paid_out(http, gw, merchant, "4444333322221111")
    assert await received(http, "later") == []
    await advance(http, 599)
    assert await received(http, "later") == []
    await advance(http, 1)
    assert {m["json"]["event_type"] for m in await received(http, "later")} >= {"payout.success"}


async def test_fail_attempts_are_recorded_then_retried(http, gw, merchant):
    await webhook(http, gw, SINK.format(name="down"))
    await activate(http, merchant, "{fail_attempts: 2}", "{event_type: payout.success}")
    payout = await paid_out(http, gw, merchant, "4444333322221111")
    assert not [
        m for m in await received(http, "down") if m["json"]["event_type"] == "payout.success"
    ]
    await advance(http, 5 * 60)  # the retries at 1 and 5 minutes: the second one delivers
    delivered = [
        m for m in await received(http, "down") if m["json"]["event_type"] == "payout.success"
    ]
    assert len(delivered) == 1
    attempts = (await http.get("/_emulator/deliveries", params={"object_id": payout["id"]})).json()
    success = [a for a in attempts["deliveries"] if a.get("event_type") == "payout.success"]
    assert [(a["attempt"], a["success"]) for a in success[::-1]] == [
        (1, False),
        (2, False),
        (3, True),
    ]


async def test_reorder_lets_a_later_event_overtake_a_held_one(http, gw, merchant):
    await webhook(http, gw, SINK.format(name="order"))
    text = (
        "name: hooks\nrules:\n"
        "  - when: webhook.delivery\n    match: {event_type: purchase.created}\n"
        "    then: {delay_seconds: 300}\n"
        "  - when: webhook.delivery\n    match: {event_type: purchase.paid}\n"
        "    then: {reorder: true}\n"
    )
    await http.post("/_emulator/scenarios", content=text)
    await http.post(
        "/_emulator/scenarios/hooks/activate", json={"merchant": merchant["company_id"]}
    )
    purchase = await create(http, gw, merchant)
    assert (await pay(http, purchase["id"])).status_code == 200
    assert [m["json"]["event_type"] for m in await received(http, "order")] == ["purchase.paid"]
    await advance(http, 300)
    types = [m["json"]["event_type"] for m in await received(http, "order")]
    assert types == ["purchase.paid", "purchase.created"]


async def test_without_reorder_a_held_event_holds_back_the_later_ones(http, gw, merchant):
    await webhook(http, gw, SINK.format(name="inline"))
    await activate(http, merchant, "{delay_seconds: 300}", "{event_type: purchase.created}")
    purchase = await create(http, gw, merchant)
    await pay(http, purchase["id"])
    assert await received(http, "inline") == []
    await advance(http, 300)
    types = [m["json"]["event_type"] for m in await received(http, "inline")]
    assert types == ["purchase.created", "purchase.paid"]
