"""A sink's wait (``GET /_emulator/sink/{name}/wait``): it answers as soon as the sink holds
enough messages, woken by the message's POST; it times out cleanly with what arrived; bad
counts, timeouts and names are 400s. The delivery log's wait (``GET /_emulator/deliveries/
wait``): the attempts after the last one seen, as soon as one is recorded, of any merchant or
of one."""

from __future__ import annotations

import asyncio

import pytest

from tests.delivery.test_deliveries import SINK, paid_out, webhook
from tests.http.clock_helpers import gw_of

PAYS = "4444333322221111"  # a payout that succeeds at once


async def _open_waits(http, count: int) -> None:
    for _ in range(400):
        if (await http.get("/_emulator/waits")).json() == {"open": count}:
            return
        await asyncio.sleep(0.005)
    raise AssertionError(f"{count} waits never opened")


async def test_the_wait_answers_once_the_message_arrives(http):
    params = {"count": 2, "timeout_seconds": 30}
    waiting = asyncio.ensure_future(http.get("/_emulator/sink/shop/wait", params=params))
    await _open_waits(http, 1)
    assert (await http.post("/_emulator/sink/shop", json={"n": 1})).status_code == 200
    await asyncio.sleep(0)  # the first message wakes it: one of two is not enough
    assert not waiting.done()
    loop = asyncio.get_running_loop()
    await http.post("/_emulator/sink/other", json={"n": 0})  # another sink's: not counted
    posted = await http.post("/_emulator/sink/shop", json={"n": 2})
    sent = loop.time()
    assert posted.status_code == 200
    answer = await asyncio.wait_for(waiting, timeout=10)
    assert loop.time() - sent < 1  # woken by the POST, far from the 30 s timeout
    body = answer.json()
    assert body["timed_out"] is False and body["name"] == "shop"
    assert [m["json"] for m in body["messages"]] == [{"n": 1}, {"n": 2}]
    assert (await http.get("/_emulator/waits")).json() == {"open": 0}


async def test_what_is_there_already_answers_at_once(http):
    await http.post("/_emulator/sink/early", json={"n": 1})
    answer = await http.get("/_emulator/sink/early/wait", params={"timeout_seconds": 30})
    assert answer.json()["timed_out"] is False and len(answer.json()["messages"]) == 1


async def test_the_wait_times_out_with_what_arrived(http):
    await http.post("/_emulator/sink/late", json={"n": 1})
    loop = asyncio.get_running_loop()
    began = loop.time()
    answer = await http.get(
        "/_emulator/sink/late/wait", params={"count": 3, "timeout_seconds": 0.2}
    )
    assert 0.2 <= loop.time() - began < 5
    assert answer.status_code == 200
    body = answer.json()
    assert body["timed_out"] is True and len(body["messages"]) == 1
    assert (await http.get("/_emulator/waits")).json() == {"open": 0}


@pytest.mark.parametrize(
    "query",
    ["count=0", "count=x", "count=10001", "timeout_seconds=-1", "timeout_seconds=nan",
     "timeout_seconds=601", "timeout_seconds=soon"],
)  # fmt: skip
async def test_bad_counts_and_timeouts_are_400s(http, query):
    answer = await http.get(f"/_emulator/sink/shop/wait?{query}")
    assert answer.status_code == 400
    assert answer.json()["error"]["code"] == "invalid"


async def test_a_bad_name_is_a_400(http):
    answer = await http.get("/_emulator/sink/%20bad%20/wait")
    assert answer.status_code == 400


async def test_the_delivery_log_wait_answers_with_the_next_attempt(http, merchant):
    gw = gw_of(merchant)
    await webhook(http, gw, SINK.format(name="log"), all_events=False, events=["payout.success"])
    other = (await http.post("/_emulator/merchants")).json()
    params = {"after": 0, "timeout_seconds": 30}
    anyone = asyncio.ensure_future(http.get("/_emulator/deliveries/wait", params=params))
    mine = asyncio.ensure_future(
        http.get(
            "/_emulator/deliveries/wait", params={**params, "merchant": merchant["company_id"]}
        )
    )
    theirs = asyncio.ensure_future(
        http.get("/_emulator/deliveries/wait", params={**params, "merchant": other["company_id"],
                                                       "timeout_seconds": 0.3})
    )  # fmt: skip
    await _open_waits(http, 3)
    loop = asyncio.get_running_loop()
    began = loop.time()
    payout = await paid_out(http, gw, merchant, PAYS)
    for waiting in (anyone, mine):
        answer = (await asyncio.wait_for(waiting, timeout=10)).json()
        assert answer["timed_out"] is False
        [attempt] = answer["deliveries"]
        assert (attempt["event_type"], attempt["object_id"]) == ("payout.success", payout["id"])
    assert loop.time() - began < 5  # well before the 30 s timeout
    nothing = (await theirs).json()  # another merchant's wait saw none of it
    assert nothing == {"deliveries": [], "timed_out": True}
    later = await http.get(
        "/_emulator/deliveries/wait", params={"after": attempt["id"], "timeout_seconds": 0.1}
    )
    assert later.json() == {"deliveries": [], "timed_out": True}
    assert (await http.get("/_emulator/waits")).json() == {"open": 0}


@pytest.mark.parametrize("query", ["", "after=x", "after=0&kind=fax", "after=0&timeout_seconds=-1"])
async def test_the_delivery_log_wait_refuses_bad_queries(http, query):
    answer = await http.get(f"/_emulator/deliveries/wait?{query}")
    assert answer.status_code == 400
    assert answer.json()["error"]["code"] == "invalid"
