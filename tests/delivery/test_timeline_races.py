"""Advances racing other work: other merchants' stuck sends, a clock given mid-delivery, a
restore while an advance waits, "next" on a real clock with a send out, a receiver reading its
own delivery log. Each was a defect found in review; each test failed before its fix."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest

from tests.delivery.test_deliveries import SINK, attempts, paid_out, webhook
from tests.http.clock_helpers import (
    Receiver,
    clock_of,
    clock_path,
    follower,
    gw_of,
    later,
    merchant_with_clock,
    until,
)

START = "2026-03-02T08:00:00Z"


async def test_other_merchants_stuck_sends_do_not_push_an_advances_deliveries_to_its_end(http):
    """Sixteen of B's sends hang (every background slot); A's advance still sends its own
    payout.success at the settlement's instant (an advance sends its own, not in the
    background)."""
    a = await merchant_with_clock(http, now=START)
    b = await follower(http)
    await webhook(http, gw_of(a), SINK.format(name="races-a"))
    await paid_out(http, gw_of(a), a, "5555555555554444")
    async with Receiver(hang=30) as hanging:
        await webhook(http, gw_of(b), hanging.url)
        for _ in range(17):
            await paid_out(http, gw_of(b), b, "4444333322221111")
        await until(lambda: len(hanging.received) >= 17)  # B's sends are out
        moved = await asyncio.wait_for(http.post(clock_path(a, "advance"), json={"days": 10}), 4)
        assert moved.status_code == 200, moved.text
        found = [(x["event_type"], x["at"]) for x in await attempts(http, merchant=a["company_id"])]
    assert ("payout.success", later(START, days=3)) in found


async def test_a_clock_given_while_its_delivery_is_out_does_not_send_it_twice(http):
    """The receiver of a server-clock advance's delivery gives the merchant its own clock:
    the send under way moves with the merchant's jobs but is not started again."""
    merchant = await follower(http)
    gw = gw_of(merchant)
    given: list[int] = []

    async def on_receipt(body: dict[str, Any], headers: dict[str, str]) -> Any:
        if body["event_type"] == "payout.success" and not given:
            answer = await http.put(clock_path(merchant), json={})
            given.append(answer.status_code)
            await asyncio.sleep(0.3)  # time for a second copy to be started, if it would be
        return body["event_type"]

    async with Receiver(on_receipt) as receiver:
        await webhook(http, gw, receiver.url)
        await paid_out(http, gw, merchant, "5555555555554444")
        await http.get("/_emulator/deliveries")
        moved = await asyncio.wait_for(http.post("/_emulator/clock/advance", json={"days": 10}), 20)
        assert moved.status_code == 200, moved.text
        await http.get("/_emulator/deliveries")  # waits for sends under way: a second copy too
    assert given == [200]
    assert [event for event in receiver.seen].count("payout.success") == 1


async def test_an_advance_that_waited_behind_a_restore_is_refused_not_run_on_the_old_clock(
    http, runtime
):
    """A restore replaces the merchant's clock while an advance of it waits: that advance is
    a 409 (try again), and the restored clock stays as restored."""
    merchant = await merchant_with_clock(http, now=START)
    gw = gw_of(merchant)
    holding, release = asyncio.Event(), asyncio.Event()

    async def on_receipt(body: dict[str, Any], headers: dict[str, str]) -> Any:
        if body["event_type"] == "payout.success":
            holding.set()
            await asyncio.wait_for(release.wait(), 4)  # holds the first advance at day 3
        return body["event_type"]

    async with Receiver(on_receipt) as receiver:
        await webhook(http, gw, receiver.url)
        await paid_out(http, gw, merchant, "5555555555554444")
        await http.get("/_emulator/deliveries")
        assert (await http.post("/_emulator/snapshots/races")).status_code == 201
        first = asyncio.create_task(http.post(clock_path(merchant, "advance"), json={"days": 10}))
        await asyncio.wait_for(holding.wait(), 10)
        # a request queued behind a held clock shows no sign of it: a short pause each for the
        # restore, then the second advance, to queue (in that order) before the first ends
        restore = asyncio.create_task(http.post("/_emulator/snapshots/races/restore"))
        await asyncio.sleep(0.1)
        waiting = asyncio.create_task(http.post(clock_path(merchant, "advance"), json={"days": 1}))
        await asyncio.sleep(0.1)
        release.set()
        done = await asyncio.gather(first, restore, waiting)
    assert [r.status_code for r in done[:2]] == [200, 200]
    assert (done[2].status_code, done[2].json()["error"]["code"]) == (409, "clock_replaced")
    assert (await clock_of(http, merchant))["now"] == START  # as the snapshot had it


async def test_to_next_on_a_real_clock_with_a_send_out_goes_to_the_next_job(http):
    """A real clock whose payout.pending webhook is still out: "next" is the payout's next job
    (its execution window's end), not the send under way, and it is found once the clock is
    the advance's (no 400 "backwards" because real time moved on meanwhile)."""
    merchant = await merchant_with_clock(http, now=START, mode="real")
    gw = gw_of(merchant)

    async def on_receipt(body: dict[str, Any], headers: dict[str, str]) -> Any:
        await asyncio.sleep(0.5)
        return body["event_type"]

    async with Receiver(on_receipt) as receiver:
        await webhook(http, gw, receiver.url)
        await paid_out(http, gw, merchant, "5555555555554444")
        await until(lambda: bool(receiver.received))  # payout.pending's send is out
        answer = await http.post(clock_path(merchant, "advance"), json={"to": "next"})
    assert answer.status_code == 200, answer.text
    assert answer.json()["next"]["kind"] == "payout.expiry"


@pytest.mark.slow  # the read waits out its 3 seconds (SEND_WAIT_SECONDS): the point of the test
async def test_a_receiver_reading_its_delivery_log_on_receipt_is_answered_in_time(http):
    """A background delivery whose receiver reads the delivery log on receipt: the read waits
    at most 3 seconds for the sends under way (its own among them), not the 5-second timeout
    that would fail the attempt."""
    merchant = await merchant_with_clock(http, now=START)
    gw = gw_of(merchant)
    took: list[float] = []

    async def on_receipt(body: dict[str, Any], headers: dict[str, str]) -> Any:
        started = time.monotonic()
        got = await http.get("/_emulator/deliveries", params={"merchant": merchant["company_id"]})
        took.append(time.monotonic() - started)
        return got.status_code

    async with Receiver(on_receipt) as receiver:
        await webhook(http, gw, receiver.url)
        await paid_out(http, gw, merchant, "4444333322221111")
        await until(lambda: bool(receiver.seen))
    assert receiver.seen and receiver.seen[0] == 200
    assert took[0] < 4.5
    assert receiver.seen == [200]  # one attempt: it did not time out and go again
