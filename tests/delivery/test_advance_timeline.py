"""An advance is a simulated timeline (issue 13): the webhooks and callbacks of events that
happen during an advance go out at the event's instant (payouts, purchases, collections,
payments, mandates, billing), their retries count from there, and a receiver that reads the API
on receipt is served at that instant, sees the state as of then, and the advance completes.
A slow receiver of one merchant holds up no other merchant.

Receivers are the built-in sink, the discard port (nothing listens) or a real HTTP server on a
loopback port run by the test. Every clock is frozen and every instant explicit."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import httpx
import pytest

from emulator.delivery.outgoing import RETRY_AFTER_SECONDS
from emulator.testing.live_server import LiveServer
from tests.delivery.test_deliveries import CARD, DOWN, SINK, attempts, paid_out, webhook
from tests.http.bank_helpers import debicheck_body, eft_body
from tests.http.billing_helpers import add_subscriber, create_template, get_subscriber, pay_purchase
from tests.http.clock_helpers import (
    SERVER_NOW,
    Receiver,
    advance,
    clock_path,
    follower,
    gw_of,
    later,
    merchant_with_clock,
    sink_messages,
    unix,
    until,
    v2_of,
)
from tests.http.purchase_helpers import SLOW, create, pay
from tests.http.scenario_helpers import activate

A_START = "2026-03-02T08:00:00Z"  # a Monday, 10:00 SAST
OFFSETS = (0, *RETRY_AFTER_SECONDS)  # of the nine attempts, from the first


async def the_merchant(http: httpx.AsyncClient, clock: str) -> dict[str, Any]:
    """A merchant with its own clock at A_START ("own"), or one that follows the server's."""
    if clock == "own":
        return await merchant_with_clock(http, now=A_START)
    return await follower(http)


def start_of(clock: str) -> str:
    return A_START if clock == "own" else SERVER_NOW


async def register_callback(
    http: httpx.AsyncClient, v2: dict[str, str], merchant: dict[str, Any], kind: str, url: str
) -> None:
    body = {"clientId": merchant["profiles"][0]["createdByClient"], "url": url,
            "callbackType": kind, "callbackVersion": "V2"}  # fmt: skip
    response = await http.post("/v2/clientcallbackurl/", json=body, headers=v2)
    assert response.status_code == 200, response.text


def timeline(found: list[dict[str, Any]]) -> list[tuple[str, int, str]]:
    """(event type, attempt, at) of attempts, as the control plane lists them."""
    return [(a["event_type"], a["attempt"], a["at"]) for a in found]


# -- the delivery instant is the event's instant ----------------------------------------------


@pytest.mark.parametrize("clock", ["own", "server"])
async def test_a_payout_settling_mid_advance_is_delivered_at_its_instant(http, clock):
    """5555 5555 5555 4444: pending, success 3 days later. A 6-day advance delivers
    payout.success at created + 3 days: in the attempt log, the gateway's delivery log, the
    header of the request and the sink's record. (Within the 7 days of retention: a longer
    advance prunes the first delivery, tests/services/test_retention.py.)"""
    merchant = await the_merchant(http, clock)
    gw = gw_of(merchant)
    await webhook(http, gw, SINK.format(name=f"payout-{clock}"))
    payout = await paid_out(http, gw, merchant, "5555555555554444")
    start = start_of(clock)
    settled = later(start, days=3)
    moved = await advance(http, merchant if clock == "own" else None, days=6)
    assert moved["now"] == later(start, days=6)
    found = await attempts(http, object_id=payout["id"])
    assert timeline(found) == [("payout.pending", 1, start), ("payout.success", 1, settled)]
    assert all(a["success"] for a in found)
    messages = await sink_messages(http, f"payout-{clock}")
    assert [(m["json"]["event_type"], m["received_at"], m["headers"]["x-emulator-time"])
            for m in messages] == [("payout.pending", start, start),
                                   ("payout.success", settled, settled)]  # fmt: skip
    assert messages[1]["json"]["status"] == "success"
    logged = await http.get(
        "/api/v1/webhooks/deliveries/",
        params={"id": payout["id"], "source_type": "Payout"},
        headers=gw,
    )
    assert [(r["event_type"], r["created_on"]) for r in logged.json()["results"]] == [
        ("payout.pending", unix(start)),
        ("payout.success", unix(settled)),
    ]


async def test_purchase_events_mid_advance_are_delivered_at_their_instants(http):
    """A slow recurring charge is paid 10 minutes later (purchase.paid to the webhook and the
    success callback); an uncaptured hold is released 7 days later (purchase.released)."""
    merchant = await merchant_with_clock(http, now=A_START)
    gw = gw_of(merchant)
    await webhook(http, gw, SINK.format(name="purchases"), all_events=False,
                  events=["purchase.paid", "purchase.released"])  # fmt: skip
    token = await create(http, gw, merchant)
    remembered = await pay(http, token["id"], card_number=SLOW, remember_card=True)
    assert remembered.json()["is_recurring_token"] is True
    charged = await create(http, gw, merchant, success_callback=SINK.format(name="success"))
    response = await http.post(
        f"/api/v1/purchases/{charged['id']}/charge/",
        json={"recurring_token": token["id"]},
        headers=gw,
    )
    assert response.json()["status"] == "pending_charge"
    held = await create(http, gw, merchant, skip_capture=True)
    assert (await pay(http, held["id"])).json()["status"] == "hold"
    await advance(http, merchant, days=10)
    paid_at, released_at = later(A_START, minutes=10), later(A_START, days=7)
    found = sorted(
        (a["at"], a["object_id"], a["kind"], a["event_type"])
        for a in await attempts(http, merchant=merchant["company_id"])
        if a["object_id"] != token["id"]
    )
    assert found == [
        (paid_at, charged["id"], "success_callback", "purchase.paid"),
        (paid_at, charged["id"], "webhook", "purchase.paid"),
        (released_at, held["id"], "webhook", "purchase.released"),
    ]
    [callback] = await sink_messages(http, "success")
    assert (callback["json"]["id"], callback["received_at"]) == (charged["id"], paid_at)
    assert callback["json"]["status"] == "paid"
    released = [m for m in await sink_messages(http, "purchases") if m["json"]["id"] == held["id"]]
    assert [(m["json"]["status"], m["received_at"]) for m in released] == [
        ("released", released_at)
    ]


async def test_collection_and_payment_callbacks_mid_advance_go_out_at_their_instants(http):
    """Within a 3-day advance: 110000001 COMPLETED at submission + 40 s; 210000001 COMPLETED at
    + 40 s and DISPUTED at + 80 s; a payment to 110000001 COMPLETED at + 40 s and one to another
    account with real-time clearing at + 10 s. Submitted 5 s after the merchant's start."""
    merchant = await merchant_with_clock(http, now=A_START)
    v2 = await v2_of(http, merchant)
    await register_callback(http, v2, merchant, "EFT_COLLECTION", SINK.format(name="collections"))
    await register_callback(http, v2, merchant, "EFT_PAYMENT", SINK.format(name="payments"))
    await advance(http, merchant, seconds=5)
    submitted = later(A_START, seconds=5)
    profile = merchant["profiles"][0]["profileCode"]
    made = {}
    for reference, account in (("C-OK", "110000001"), ("C-DISPUTE", "210000001")):
        body = eft_body(
            profile, reference, debtor={"accountNumber": account, "branchCode": "051001"}
        )
        response = await http.post("/v2/collection/eft", json=body, headers=v2)
        assert response.status_code == 201, response.text
        made[reference] = response.json()["id"]
    for reference, creditor, fast in (("P-OK", "110000001", False),
                                      ("P-RTC", "62000000001", True)):  # fmt: skip
        body = {"debtor": {"accountNumber": "4052218811", "branchCode": "051001"},
                "creditor": {"accountNumber": creditor, "branchCode": "250655", "name": "S"},
                "amountCents": 250_000, "paymentDate": "2026-03-02T00:00:00Z",
                "profileCode": profile, "abbreviatedName": "PAYROLL", "contractReference": "I-1",
                "externalReference": reference, "realTimeClearing": fast}  # fmt: skip
        response = await http.post("/v2/payment/eft", json=body, headers=v2)
        assert response.status_code == 201, response.text
        made[reference] = response.json()["id"]
    moved = await advance(http, merchant, days=3)
    assert moved["now"] == later(submitted, days=3)
    at = {n: later(submitted, seconds=n) for n in (0, 10, 40, 80)}
    collections = [(m["json"]["id"], m["json"]["status"], m["received_at"])
                   for m in await sink_messages(http, "collections")]  # fmt: skip
    assert collections == [  # in order; ties in the order they were scheduled
        (made["C-OK"], "PENDING", at[0]),
        (made["C-DISPUTE"], "PENDING", at[0]),
        (made["C-OK"], "COMPLETED", at[40]),
        (made["C-DISPUTE"], "COMPLETED", at[40]),
        (made["C-DISPUTE"], "DISPUTED", at[80]),
    ]
    payments = sorted((m["json"]["id"], m["json"]["status"], m["received_at"])
                      for m in await sink_messages(http, "payments"))  # fmt: skip
    assert payments == sorted(
        [
            (made["P-OK"], "PENDING", at[0]),
            (made["P-RTC"], "PENDING", at[0]),
            (made["P-RTC"], "COMPLETED", at[10]),
            (made["P-OK"], "COMPLETED", at[40]),
        ]
    )
    logged = await attempts(http, merchant=merchant["company_id"], kind="callback")
    assert sorted((a["object_id"], a["event_type"], a["at"]) for a in logged) == sorted(
        [
            (made["C-OK"], "collection.pending", at[0]),
            (made["C-DISPUTE"], "collection.pending", at[0]),
            (made["C-OK"], "collection.completed", at[40]),
            (made["C-DISPUTE"], "collection.completed", at[40]),
            (made["C-DISPUTE"], "collection.disputed", at[80]),
            (made["P-OK"], "payment.pending", at[0]),
            (made["P-RTC"], "payment.pending", at[0]),
            (made["P-RTC"], "payment.completed", at[10]),
            (made["P-OK"], "payment.completed", at[40]),
        ]
    )
    assert all(a["success"] for a in logged)
    v2 = await v2_of(http, merchant)  # the first token has expired on the merchant's clock
    feed = await http.get("/v2/event/collection", params={"collectionId": made["C-DISPUTE"]},
                          headers=v2)  # fmt: skip
    assert [(e["eventType"], e["timestamp"]) for e in feed.json()] == [
        ("collection.pending", at[0]),
        ("collection.completed", at[40]),
        ("collection.disputed", at[80]),
    ]


async def test_mandate_callbacks_mid_advance_go_out_at_their_instants(http):
    """A mandate.authorisation scenario answers one mandate 60 s after it is sent; another is
    never answered and expires at the end of its 120-second window."""
    merchant = await merchant_with_clock(http, now=A_START)
    v2 = await v2_of(http, merchant)
    await register_callback(http, v2, merchant, "DEBICHECK_MANDATE", SINK.format(name="mandates"))
    await activate(http, merchant, "mandate.authorisation",
                   {"status": "AUTHENTICATED", "after_seconds": 60},
                   match={"externalReference": "DC-YES"})  # fmt: skip
    profile = merchant["profiles"][0]["profileCode"]
    made = {}
    for reference in ("DC-YES", "DC-SILENT"):
        response = await http.post(
            "/v2/mandate/debicheck", json=debicheck_body(profile, reference), headers=v2
        )
        assert response.status_code == 201, response.text
        made[reference] = response.json()["id"]
    await advance(http, merchant, days=2)
    messages = [(m["json"]["id"], m["json"]["status"], m["received_at"])
                for m in await sink_messages(http, "mandates")]  # fmt: skip
    assert sorted(messages, key=lambda m: m[2]) == messages
    assert sorted(messages) == sorted(
        [
            (made["DC-YES"], "PENDING_AUTHENTICATION", A_START),
            (made["DC-SILENT"], "PENDING_AUTHENTICATION", A_START),
            (made["DC-YES"], "AUTHENTICATED", later(A_START, seconds=60)),
            (made["DC-SILENT"], "EXPIRED", later(A_START, seconds=120)),
        ]
    )


async def test_billing_charges_mid_advance_are_delivered_on_their_billing_days(http):
    """A subscriber whose first purchase was paid on 10 March is charged on the 10th of each
    month at 00:00 UTC: a 100-day advance delivers each bill's purchase.paid on its day."""
    merchant = await merchant_with_clock(http, now="2026-03-10T10:00:00Z")
    gw = gw_of(merchant)
    await webhook(http, gw, SINK.format(name="bills"), all_events=False, events=["purchase.paid"])
    template = await create_template(http, gw, merchant)
    added = await add_subscriber(http, gw, template["id"])
    first = await pay_purchase(http, added["purchase"]["id"])
    moved = await advance(http, merchant, days=100)
    assert moved["now"] == "2026-06-18T10:00:00Z"
    days = ["2026-04-10T00:00:00Z", "2026-05-10T00:00:00Z", "2026-06-10T00:00:00Z"]
    found = [a for a in await attempts(http, merchant=merchant["company_id"])
             if a["object_id"] != first["id"]]  # fmt: skip
    assert [(a["event_type"], a["attempt"], a["at"]) for a in found] == [
        ("purchase.paid", 1, day) for day in days
    ]
    messages = [m for m in await sink_messages(http, "bills") if m["json"]["id"] != first["id"]]
    assert [(m["received_at"], m["json"]["created_on"], m["json"]["billing_template_id"])
            for m in messages] == [(day, unix(day), template["id"]) for day in days]  # fmt: skip
    subscriber = await get_subscriber(
        http, gw, template["id"], added["billing_template_client"]["id"]
    )
    assert subscriber["number_of_billing_cycles_passed"] == 4


# -- retries count from the event's instant ---------------------------------------------------


@pytest.mark.parametrize("down", ["refused", "scenario"])
async def test_retries_count_from_the_events_instant(http, down):
    """payout.success (3 days in) to a receiver that is down: the first attempt at that instant,
    then 1 m, 5 m, 30 m, 2 h, 5 h, 10 h, 18 h and 36 h after it (an advance that ends among
    them leaves the rest to the next one).
    Down by a refused connection (the discard port), or by a scenario's fail_attempts (3: the
    fourth attempt, 30 minutes on, reaches the sink)."""
    merchant = await merchant_with_clock(http, now=A_START)
    gw = gw_of(merchant)
    url = DOWN if down == "refused" else SINK.format(name="flaky")
    await webhook(http, gw, url, all_events=False, events=["payout.success"])
    if down == "scenario":
        await activate(http, merchant, "webhook.delivery", {"fail_attempts": 3},
                       match={"event_type": "payout.success"})  # fmt: skip
    payout = await paid_out(http, gw, merchant, "5555555555554444")
    settled = later(A_START, days=3)
    expected = [
        ("payout.success", n + 1, later(settled, seconds=offset))
        for n, offset in enumerate(OFFSETS)
    ]
    await advance(http, merchant, to=later(settled, minutes=10))  # the schedule goes on after
    assert timeline(await attempts(http, object_id=payout["id"])) == expected[:3]
    await advance(http, merchant, days=7)
    found = await attempts(http, object_id=payout["id"])
    count = 9 if down == "refused" else 4
    assert timeline(found) == expected[:count]
    assert [a["success"] for a in found] == [False] * 3 + [down == "scenario"] * (count - 3)
    if down == "scenario":
        [message] = await sink_messages(http, "flaky")
        assert message["received_at"] == later(settled, minutes=30)


async def test_callback_retries_count_from_the_outcomes_instant(http):
    """The COMPLETED callback of a 110000001 collection (40 s after submission) fails twice
    (callback.delivery fail_attempts): attempts at + 40 s, + 100 s and + 340 s."""
    merchant = await merchant_with_clock(http, now=A_START)
    v2 = await v2_of(http, merchant)
    await register_callback(http, v2, merchant, "EFT_COLLECTION", SINK.format(name="retried"))
    await activate(http, merchant, "callback.delivery", {"fail_attempts": 2},
                   match={"status": "COMPLETED"})  # fmt: skip
    body = eft_body(merchant["profiles"][0]["profileCode"])
    created = (await http.post("/v2/collection/eft", json=body, headers=v2)).json()
    await advance(http, merchant, days=1)
    found = await attempts(http, object_id=created["id"])
    completed = later(A_START, seconds=40)
    assert [(a["event_type"], a["attempt"], a["at"], a["success"]) for a in found] == [
        ("collection.pending", 1, A_START, True),
        ("collection.completed", 1, completed, False),
        ("collection.completed", 2, later(completed, minutes=1), False),
        ("collection.completed", 3, later(completed, minutes=5), True),
    ]
    statuses = [
        (m["json"]["status"], m["received_at"]) for m in await sink_messages(http, "retried")
    ]
    assert statuses == [("PENDING", A_START), ("COMPLETED", later(completed, minutes=5))]


# -- a receiver that reads the API on receipt ---------------------------------------------------


@pytest.mark.parametrize("clock", ["own", "server"])
async def test_a_receiver_that_reads_the_api_on_receipt_sees_the_state_of_the_instant(http, clock):
    """On each payout webhook the receiver GETs the payout with the merchant's key. It sees
    pending at the start and success 3 days in, each with X-Emulator-Time of that instant; on
    the first success it pays out again (5555...: settles 3 days later, within the advance),
    and that payout's webhooks come in order at their instants too. The advance completes."""
    merchant = await the_merchant(http, clock)
    gw = gw_of(merchant)
    start = start_of(clock)
    second: list[dict[str, Any]] = []

    async def on_receipt(body: dict[str, Any], headers: dict[str, str]) -> tuple[str, ...]:
        got = await http.get(f"/api/v1/payouts/{body['id']}/", headers=gw)
        assert got.status_code == 200, got.text
        if body["event_type"] == "payout.success" and not second:
            second.append(await paid_out(http, gw, merchant, "5555555555554444"))
        return (body["id"], body["event_type"], headers["x-emulator-time"],
                got.json()["status"], got.headers["x-emulator-time"])  # fmt: skip

    async with Receiver(on_receipt) as receiver:
        await webhook(http, gw, receiver.url)
        first = await paid_out(http, gw, merchant, "5555555555554444")
        path = clock_path(merchant, "advance") if clock == "own" else "/_emulator/clock/advance"
        moved = await asyncio.wait_for(http.post(path, json={"days": 10}), 15)
        assert moved.status_code == 200, moved.text
    assert moved.json()["now"] == later(start, days=10)
    day3, day6 = later(start, days=3), later(start, days=6)
    assert receiver.seen == [
        (first["id"], "payout.pending", start, "pending", start),
        (first["id"], "payout.success", day3, "success", day3),
        (second[0]["id"], "payout.pending", day3, "pending", day3),
        (second[0]["id"], "payout.success", day6, "success", day6),
    ]
    assert second[0]["created_on"] == unix(day3)


async def test_jobs_a_receiver_schedules_run_in_order_within_the_advance(http):
    """On payout.success (3 days in) the receiver takes a new access token and submits an EFT
    collection (110000001: COMPLETED 40 s later). That outcome, due before a purchase's due
    date known since the start (3 days and 10 minutes in), runs first, at its instant, and its
    callback reaches the receiver then; the purchase expires at its due date after it."""
    merchant = await merchant_with_clock(http, now=A_START)
    gw = gw_of(merchant)
    day3 = later(A_START, days=3)

    async def on_receipt(body: dict[str, Any], headers: dict[str, str]) -> tuple[str, ...]:
        if body.get("event_type") == "payout.success":
            token = await http.post(
                "/oauth2/token",
                auth=(merchant["client_id"], merchant["client_secret"]),
                data={"grant_type": "client_credentials"},
            )
            v2 = {"Authorization": f"Bearer {token.json()['access_token']}"}
            await register_callback(http, v2, merchant, "EFT_COLLECTION", receiver.url)
            made = await http.post(
                "/v2/collection/eft", json=eft_body(merchant["profiles"][0]["profileCode"]),
                headers=v2,
            )  # fmt: skip
            assert made.status_code == 201, made.text
            return ("payout.success", headers["x-emulator-time"], token.headers["x-emulator-time"],
                    made.json()["submissionDate"])  # fmt: skip
        return (body["type"], headers["x-emulator-time"], body["status"])

    async with Receiver(on_receipt) as receiver:
        await webhook(http, gw, receiver.url, all_events=False, events=["payout.success"])
        await paid_out(http, gw, merchant, "5555555555554444")
        due = unix(later(day3, minutes=10))
        purchase = await create(
            http, gw, merchant, due=due, purchase={"currency": "ZAR", "due_strict": True,
                                                   "products": [{"name": "W", "price": 100}]},
        )  # fmt: skip
        moved = await asyncio.wait_for(
            http.post(clock_path(merchant, "advance"), json={"days": 10}), 15
        )
        assert moved.status_code == 200, moved.text
    assert receiver.seen == [
        ("payout.success", day3, day3, day3),
        ("EFT_COLLECTION", day3, "PENDING"),
        ("EFT_COLLECTION", later(day3, seconds=40), "COMPLETED"),
    ]
    got = await http.get(f"/api/v1/purchases/{purchase['id']}/", headers=gw)
    assert got.json()["status_history"][-1] == {"status": "expired", "timestamp": due}


async def test_a_bank_receiver_reads_each_collection_status_as_of_its_callback(http):
    """210000001: COMPLETED 40 s after submission, DISPUTED 40 s later; the receiver reads
    /v2/collection/eft/{id}/status on each callback and sees the status the callback carries."""
    merchant = await merchant_with_clock(http, now=A_START)
    v2 = await v2_of(http, merchant)

    async def on_receipt(body: dict[str, Any], headers: dict[str, str]) -> tuple[str, ...]:
        got = await http.get(f"/v2/collection/eft/{body['id']}/status", headers=v2)
        assert got.status_code == 200, got.text
        return (body["status"], headers["x-emulator-time"], got.json()["status"],
                got.headers["x-emulator-time"])  # fmt: skip

    async with Receiver(on_receipt) as receiver:
        await register_callback(http, v2, merchant, "EFT_COLLECTION", receiver.url)
        body = eft_body(merchant["profiles"][0]["profileCode"],
                        debtor={"accountNumber": "210000001", "branchCode": "051001"})  # fmt: skip
        assert (await http.post("/v2/collection/eft", json=body, headers=v2)).status_code == 201
        moved = await asyncio.wait_for(
            http.post(clock_path(merchant, "advance"), json={"hours": 12}), 15
        )
        assert moved.status_code == 200, moved.text
    completed, disputed = later(A_START, seconds=40), later(A_START, seconds=80)
    assert receiver.seen == [
        ("PENDING", A_START, "PENDING", A_START),
        ("COMPLETED", completed, "COMPLETED", completed),
        ("DISPUTED", disputed, "DISPUTED", disputed),
    ]


async def test_a_billing_receiver_sees_the_subscriber_as_of_each_billing_day(http):
    """On each bill's purchase.paid the receiver reads the subscriber: the cycle just billed
    is counted and the next billing day is a month on, as of that day."""
    merchant = await merchant_with_clock(http, now="2026-03-10T10:00:00Z")
    gw = gw_of(merchant)
    template = await create_template(http, gw, merchant)
    added = await add_subscriber(http, gw, template["id"])
    subscriber_id = added["billing_template_client"]["id"]
    await pay_purchase(http, added["purchase"]["id"])

    async def on_receipt(body: dict[str, Any], headers: dict[str, str]) -> tuple[Any, ...]:
        got = await get_subscriber(http, gw, template["id"], subscriber_id)
        return (headers["x-emulator-time"], got["number_of_billing_cycles_passed"],
                got["subscription_billing_scheduled_on"])  # fmt: skip

    async with Receiver(on_receipt) as receiver:
        await webhook(http, gw, receiver.url, all_events=False, events=["purchase.paid"])
        moved = await asyncio.wait_for(
            http.post(clock_path(merchant, "advance"), json={"to": "2026-06-30T00:00:00Z"}), 15
        )
        assert moved.status_code == 200, moved.text
    assert receiver.seen == [
        ("2026-04-10T00:00:00Z", 2, "2026-05-10"),
        ("2026-05-10T00:00:00Z", 3, "2026-06-10"),
        ("2026-06-10T00:00:00Z", 4, "2026-07-10"),
    ]


async def test_a_receiver_reading_a_real_server_over_http_sees_the_instant():
    """The same with everything on real loopback HTTP: the emulator under uvicorn, the receiver
    reading the payout from it with the merchant's key while the merchant's advance runs."""
    with LiveServer(clock="frozen", start=SERVER_NOW) as server:
        async with httpx.AsyncClient(base_url=server.url, timeout=15) as http:
            merchant = await merchant_with_clock(http, now=A_START)
            gw = gw_of(merchant)

            async def on_receipt(body: dict[str, Any], headers: dict[str, str]) -> tuple[str, ...]:
                got = await http.get(f"/api/v1/payouts/{body['id']}/", headers=gw)
                return (body["event_type"], headers["x-emulator-time"], got.json()["status"],
                        got.headers["x-emulator-time"])  # fmt: skip

            async with Receiver(on_receipt) as receiver:
                await webhook(http, gw, receiver.url)
                created = await http.post(
                    "/api/v1/payouts/",
                    json={"client": {"email": "payee@example.com"},
                          "payment": {"amount": 700, "currency": "ZAR"},
                          "brand_id": merchant["brand_id"]},
                    headers=gw,
                )  # fmt: skip
                executed = await http.post(
                    created.json()["execution_url"],
                    json={"card_number": "5555555555554444", **CARD},
                )
                assert executed.json()["status"] == "pending"
                moved = await http.post(clock_path(merchant, "advance"), json={"days": 10})
                assert moved.status_code == 200, moved.text
                await until(lambda: len(receiver.seen) == 2)  # pending went in the background
    day3 = later(A_START, days=3)
    assert sorted(receiver.seen, key=lambda s: s[1]) == [
        ("payout.pending", A_START, "pending", A_START),
        ("payout.success", day3, "success", day3),
    ]


@pytest.mark.slow  # waits out the 5-second delivery timeout: the point of the test
async def test_a_receiver_that_hangs_costs_the_advance_one_timeout_per_attempt(http):
    """The first attempt gets no answer: the advance waits the 5-second timeout for it, then
    makes the retry 1 minute after the first attempt, which is answered."""
    merchant = await merchant_with_clock(http, now=A_START)
    gw = gw_of(merchant)
    async with Receiver(hang=1) as receiver:
        await webhook(http, gw, receiver.url, all_events=False, events=["payout.success"])
        payout = await paid_out(http, gw, merchant, "5555555555554444")
        started = time.perf_counter()
        moved = await asyncio.wait_for(
            http.post(clock_path(merchant, "advance"), json={"days": 4}), 15
        )
        took = time.perf_counter() - started
        assert moved.status_code == 200, moved.text
    assert 4.5 <= took < 9, took
    settled = later(A_START, days=3)
    found = await attempts(http, object_id=payout["id"])
    assert [(a["attempt"], a["at"], a["success"]) for a in found] == [
        (1, settled, False),
        (2, later(settled, minutes=1), True),
    ]
    assert len(receiver.received) == 2


async def test_a_slow_receiver_of_one_merchant_holds_up_no_other(http):
    """A's receiver takes 0.4 s to answer each of A's four webhooks, so A's advance takes over
    a second. Meanwhile B and a merchant on the server clock are served at once, the server
    clock and B's move, and a request of A itself is served at the instant A's advance stands
    at. Everything else is done before A's advance."""
    a = await merchant_with_clock(http, now=A_START)
    b = await merchant_with_clock(http, now=A_START)
    c = await follower(http)
    gw_a = gw_of(a)
    async with Receiver(delay=0.4) as receiver:
        await webhook(http, gw_a, receiver.url)
        for _ in range(2):
            await paid_out(http, gw_a, a, "5555555555554444")
        await until(lambda: len(receiver.received) == 2)  # the payout.pending webhooks
        long = asyncio.create_task(http.post(clock_path(a, "advance"), json={"days": 10}))
        await until(lambda: len(receiver.received) == 3)  # A stands at the first settlement
        began = time.perf_counter()
        slowest = 0.0
        for n in range(5):
            for merchant in (b, c):
                asked = time.perf_counter()
                response = await http.post(
                    "/api/v1/clients/", json={"email": f"p{n}@example.com"}, headers=gw_of(merchant)
                )
                slowest = max(slowest, time.perf_counter() - asked)
                assert response.status_code == 201
        moved_b = await advance(http, b, days=1)
        moved_server = await advance(http, hours=1)
        mine = await http.get("/api/v1/clients/", headers=gw_a)
        others = time.perf_counter() - began
        assert not long.done(), f"A's advance ended within {others:.2f} s"
        answer = await asyncio.wait_for(long, 15)
    assert answer.status_code == 200 and answer.json()["now"] == later(A_START, days=10)
    assert slowest < 0.3, slowest
    assert moved_b["now"] == later(A_START, days=1)
    assert moved_server["now"] == later(SERVER_NOW, hours=1)
    assert mine.headers["x-emulator-time"] == later(A_START, days=3)
    assert [h["x-emulator-time"] for _, h in receiver.received] == [A_START] * 2 + [
        later(A_START, days=3)
    ] * 2


async def test_to_next_makes_the_deliveries_of_the_instant_it_moves_to(http):
    """To "next", a payout's settlement: its payout.success webhook is delivered at that
    instant by the same call."""
    merchant = await merchant_with_clock(http, now=A_START)
    gw = gw_of(merchant)
    await webhook(http, gw, SINK.format(name="next"), all_events=False, events=["payout.success"])
    payout = await paid_out(http, gw, merchant, "5555555555554444")
    await advance(http, merchant, minutes=15)  # past the execution window's job
    moved = await advance(http, merchant, to="next")
    settled = later(A_START, days=3)
    assert moved["now"] == settled
    assert (moved["next"]["kind"], moved["next"]["object_id"]) == (
        "payout.settlement",
        payout["id"],
    )
    assert timeline(await attempts(http, object_id=payout["id"])) == [
        ("payout.success", 1, settled)
    ]


async def test_a_delayed_delivery_is_held_back_from_the_events_instant(http):
    """delayed-callbacks (ten minutes): the payout.success of a payout that settles 3 days into
    a 10-day advance goes out at settlement + 10 minutes."""
    merchant = await merchant_with_clock(http, now=A_START)
    gw = gw_of(merchant)
    await http.post(
        "/_emulator/scenarios/delayed-callbacks/activate", json={"merchant": merchant["company_id"]}
    )
    await webhook(http, gw, SINK.format(name="later"), all_events=False, events=["payout.success"])
    payout = await paid_out(http, gw, merchant, "5555555555554444")
    await advance(http, merchant, days=10)
    delayed = later(A_START, days=3, minutes=10)
    assert timeline(await attempts(http, object_id=payout["id"])) == [
        ("payout.success", 1, delayed)
    ]
    [message] = await sink_messages(http, "later")
    assert message["received_at"] == delayed


async def test_a_real_clock_is_still_real_while_it_advances_and_in_a_snapshot_taken_then(http):
    """A merchant's clock in real mode, advancing (held at an instant while a slow receiver
    answers): it is still a real clock, as GET says and as a snapshot taken meanwhile keeps
    it; restored, it runs on."""
    merchant = await merchant_with_clock(http, now=A_START, mode="real")
    gw = gw_of(merchant)
    async with Receiver(delay=0.5) as receiver:
        await webhook(http, gw, receiver.url, all_events=False, events=["payout.success"])
        await paid_out(http, gw, merchant, "5555555555554444")
        long = asyncio.create_task(http.post(clock_path(merchant, "advance"), json={"days": 10}))
        await until(lambda: len(receiver.received) == 1)  # it stands at the settlement, day 3
        during = (await http.get(clock_path(merchant))).json()
        saved = await http.post("/_emulator/snapshots/mid-advance")
        answer = await asyncio.wait_for(long, 15)
    assert answer.status_code == 200 and answer.json()["mode"] == "real"
    assert saved.status_code == 201
    restored = await http.post("/_emulator/snapshots/mid-advance/restore")
    assert restored.status_code == 200
    after = (await http.get(clock_path(merchant))).json()
    assert (after["mode"], after["own"]) == ("real", True), after
    assert during["mode"] == "real", during
