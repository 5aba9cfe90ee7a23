"""Expectations through the control plane (issue 26): verify each kind against what a merchant
did and was sent, the 400s naming key paths, 404, YAML bodies, isolation between merchants;
wait returning early on a delivery, timing out, and stepping the merchant's own clock to the
instant the expectation became true."""

from __future__ import annotations

import asyncio
import re
from typing import Any

import httpx

from tests.delivery.test_deliveries import SINK, paid_out, webhook
from tests.http.clock_helpers import error, gw_of, later, merchant_with_clock

A_START = "2026-03-02T08:00:00Z"
SETTLES = "5555555555554444"  # a payout that is pending, and settles after three days
PAYS = "4444333322221111"  # a payout that succeeds at once
UNKNOWN = "00000000-0000-4000-8000-000000000000"


def path(merchant: dict[str, Any], verb: str) -> str:
    return f"/_emulator/merchants/{merchant['company_id']}/{verb}"


async def verify(http: httpx.AsyncClient, merchant: dict[str, Any], *items: Any, **top: Any) -> Any:
    response = await http.post(path(merchant, "verify"), json={"expect": list(items), **top})
    assert response.status_code == 200, response.text
    return response.json()


async def clients(http: httpx.AsyncClient, merchant: dict[str, Any], count: int) -> None:
    for n in range(count):
        body = {"email": f"payer{n}@example.com"}
        response = await http.post("/api/v1/clients/", json=body, headers=gw_of(merchant))
        assert response.status_code == 201, response.text


async def test_verify_counts_requests_and_names_them(http, merchant):
    await clients(http, merchant, 2)
    made = {"request": {"method": "POST", "path": "/api/v1/clients/", "status": 201}}
    report = await verify(http, merchant, {**made, "count": 2})
    assert report["ok"] is True
    [result] = report["results"]
    assert result["ok"] is True and len(result["matches"]) == 2
    assert [m["ref"] for m in result["matches"]] == [f"#{m['id']}" for m in result["matches"]]
    once = await verify(http, merchant, {**made, "count": 1})
    assert once["ok"] is False
    first, second = once["results"][0]["matches"]
    assert once["results"][0]["message"] == (
        "expected exactly 1 POST /api/v1/clients/ answered 201, saw 2:"
        f" #{first['id']} at {first['at']}, #{second['id']} at {second['at']}"
    )
    body = {"request": {"path": "/api/v1/clients/", "body": {"email": {"regex": r"payer\d@.*"}}}}
    assert (await verify(http, merchant, {**body, "count": 2}))["ok"] is True
    gone = await verify(http, merchant, {"request": {"path": "/api/v1/purchases/"}, "never": True})
    assert gone["ok"] is True


async def test_deliveries_events_and_transitions(http, merchant):
    gw = gw_of(merchant)
    await webhook(http, gw, SINK.format(name="shop"), all_events=False, events=["payout.success"])
    payout = await paid_out(http, gw, merchant, PAYS)
    report = await verify(
        http,
        merchant,
        {"delivery": {"event": "payout.success", "sink": "shop"}, "count": 1},
        {"delivery": {"event": "payout.*", "object_id": payout["id"], "outcome": "failed"},
         "never": True},
        {"event": {"event": "payout.success", "object_id": payout["id"]}},
        {"transition": {"object_id": payout["id"], "status": "success"}, "count": 1},
        {"transition": {"object_type": "payout", "fields": {"id": payout["id"]},
                        "status": "success"}},
    )  # fmt: skip
    assert report["ok"] is True, report
    assert [r["kind"] for r in report["results"]] == [
        "delivery",
        "delivery",
        "event",
        "transition",
        "transition",
    ]
    by_object = await verify(http, merchant, {"delivery": {"object_id": payout["id"]}, "count": 1})
    assert by_object["ok"] is True  # read through the attempts' object index
    assert (await verify(http, merchant, {"delivery": {"object_id": "nope"}}))["ok"] is False
    missing = await verify(http, merchant, {"delivery": {"event": "payout.failed"}})
    [result] = missing["results"]
    assert result["ok"] is False
    assert result["message"].startswith("expected at least 1 payout.failed delivered, saw none")
    assert [c["differs"] for c in result["candidates"]] == [["event payout.success"]]


async def test_an_expectation_never_sees_another_merchants_records(http, merchant):
    other = (await http.post("/_emulator/merchants")).json()
    payout = await paid_out(http, gw_of(other), other, PAYS)
    theirs = {"transition": {"object_id": payout["id"], "status": "success"}}
    assert (await verify(http, other, theirs))["ok"] is True
    mine = await verify(http, merchant, theirs)
    assert mine["ok"] is False and mine["results"][0]["candidates"] == []
    asked = {"request": {"path": "/api/v1/payouts/"}, "never": True}
    assert (await verify(http, merchant, asked))["ok"] is True
    assert (await verify(http, other, asked))["ok"] is False


async def test_bad_expectations_are_400s_that_name_the_key_path(http, merchant):
    items = [{"request": {}}, {"request": {}}, {"request": {}, "within": "5x"}]
    response = await http.post(path(merchant, "verify"), json={"expect": items})
    assert error(response) == (400, "invalid")
    assert response.json()["error"]["message"] == (
        'expect[2].within: "5x" is not a duration (such as "5m", "3d")'
    )
    for body, message in [
        ({"expect": [{"rquest": {}}]}, "expect[0].rquest: is not a key of an expectation"),
        ({"expect": []}, "expect: must be a non-empty list of expectations"),
        ({"expect": [{"event": {}}], "timeout_seconds": 1}, "are for /wait"),
    ]:
        refused = await http.post(path(merchant, "verify"), json=body)
        assert error(refused) == (400, "invalid")
        assert message in refused.json()["error"]["message"]
    waits = [
        ({"timeout_seconds": -1}, "timeout_seconds: must be a number"),
        ({"advance": {"up_to": "soon"}}, 'advance.up_to: "soon" is not a duration'),
        ({"advance": {"by": "1d"}}, "advance: must be"),
    ]
    for extra, message in waits:
        refused = await http.post(path(merchant, "wait"), json={"expect": items[:1], **extra})
        assert error(refused) == (400, "invalid")
        assert message in refused.json()["error"]["message"]
    malformed = await http.post(path(merchant, "verify"), content=b"{", headers=JSON_TYPE)
    assert error(malformed) == (400, "malformed_json")


JSON_TYPE = {"Content-Type": "application/json"}


async def test_unknown_merchant_is_404(http):
    body = {"expect": [{"event": {}}]}
    for verb in ("verify", "wait"):
        response = await http.post(f"/_emulator/merchants/{UNKNOWN}/{verb}", json=body)
        assert error(response) == (404, "merchant_not_found")


async def test_a_yaml_body(http, merchant):
    await clients(http, merchant, 1)
    text = "expect:\n  - request: {method: POST, path: /api/v1/clients/}\n    count: 1\n"
    headers = {"Content-Type": "application/yaml"}
    response = await http.post(path(merchant, "verify"), content=text.encode(), headers=headers)
    assert response.status_code == 200, response.text
    assert response.json()["ok"] is True
    broken = await http.post(path(merchant, "verify"), content=b"expect: [", headers=headers)
    assert error(broken) == (400, "invalid")


# -- wait -------------------------------------------------------------------------------------


async def test_wait_returns_as_soon_as_the_delivery_is_recorded(http, merchant, runtime):
    gw = gw_of(merchant)
    await webhook(http, gw, SINK.format(name="early"), all_events=False, events=["payout.success"])
    body = {
        "expect": [{"delivery": {"event": "payout.success", "sink": "early"}}],
        "timeout_seconds": 30,
    }
    waiting = asyncio.ensure_future(http.post(path(merchant, "wait"), json=body))
    for _ in range(200):  # until the wait watches its merchant
        if (await http.get("/_emulator/waits")).json() == {"open": 1}:
            break
        await asyncio.sleep(0.005)
    assert not waiting.done() and runtime.notices.watched(merchant["company_id"])
    loop = asyncio.get_running_loop()
    began = loop.time()
    await paid_out(http, gw, merchant, PAYS)
    response = await asyncio.wait_for(waiting, timeout=10)
    assert (await http.get("/_emulator/waits")).json() == {"open": 0}
    assert loop.time() - began < 5  # well before the 30 s timeout
    answer = response.json()
    assert answer["ok"] is True and answer["timed_out"] is False
    assert answer["at"] == answer["now"]
    assert len(answer["results"][0]["matches"]) == 1
    assert runtime.notices.watching() == 0


async def test_wait_times_out_with_the_report(http, merchant, runtime):
    body = {"expect": [{"delivery": {"event": "payout.success"}}], "timeout_seconds": 0.3}
    loop = asyncio.get_running_loop()
    began = loop.time()
    response = await http.post(path(merchant, "wait"), json=body)
    assert 0.3 <= loop.time() - began < 5
    answer = response.json()
    assert answer["ok"] is False and answer["timed_out"] is True
    assert "at" not in answer
    assert answer["results"][0]["message"] == (
        "expected at least 1 payout.success delivered, saw none"
    )
    assert runtime.notices.watching() == 0


async def test_wait_with_advance_stops_at_the_instant_it_became_true(http):
    """A pending payout settles three days on (after its 15-minute window's job): the wait
    steps the merchant's clock job by job and answers at the settlement's instant."""
    merchant = await merchant_with_clock(http, now=A_START)
    payout = await paid_out(http, gw_of(merchant), merchant, SETTLES)
    assert payout["status"] == "pending"
    settled = {"transition": {"object_id": payout["id"], "status": "success"}, "within": "4d"}
    short = {"expect": [settled], "advance": {"up_to": {"days": 2}}, "timeout_seconds": 0.3}
    response = await http.post(path(merchant, "wait"), json=short)
    assert response.status_code == 200, response.text
    answer = response.json()
    assert answer["ok"] is False and answer["timed_out"] is True
    assert answer["now"] == later(A_START, minutes=15)  # the one job within two days
    body = {"expect": [settled], "advance": {"up_to": "7d"}, "timeout_seconds": 10}
    response = await http.post(path(merchant, "wait"), json=body)
    answer = response.json()
    assert answer["ok"] is True, answer
    assert answer["at"] == answer["now"] == later(A_START, days=3)
    assert answer["results"][0]["matches"][0]["at"] == later(A_START, days=3)
    assert answer["advanced"]["from"] == later(A_START, minutes=15)
    assert answer["advanced"]["jobs_run"] >= 1
    clock = (await http.get(path(merchant, "clock"))).json()
    assert clock["now"] == later(A_START, days=3)  # not a moment past it


async def test_wait_with_advance_needs_an_own_clock(http, merchant):
    body = {"expect": [{"event": {}}], "advance": {"up_to": "1d"}, "timeout_seconds": 0}
    response = await http.post(path(merchant, "wait"), json=body)
    assert error(response) == (409, "clock_not_own")


async def test_within_after_and_in_order_on_the_merchants_clock(http):
    """A client at the start, a webhook ten minutes later (the merchant's own clock moved):
    windows and order are read on that clock."""
    merchant = await merchant_with_clock(http, now=A_START)
    await clients(http, merchant, 1)
    moved = await http.post(path(merchant, "clock/advance"), json={"minutes": 10})
    assert moved.status_code == 200, moved.text
    await webhook(http, gw_of(merchant), SINK.format(name="order"), all_events=True)
    client = {"id": "client", "request": {"method": "POST", "path": "/api/v1/clients/"}}
    hook = {"request": {"method": "POST", "path": "/api/v1/webhooks/"}}
    assert (await verify(http, merchant, {**hook, "within": "15m"}))["ok"] is True
    from_then = await verify(
        http, merchant, {**hook, "within": "5m"}, start=later(A_START, minutes=8)
    )
    assert from_then["ok"] is True  # the set's start given: 10m is within 5m of 8m
    late = await verify(http, merchant, {**hook, "within": "5m"})
    assert re.fullmatch(
        r"expected at least 1 POST /api/v1/webhooks/ within 5m, saw none in time,"
        r" only #\d+ at \+10m",
        late["results"][0]["message"],
    )
    assert (await verify(http, merchant, client, {**hook, "after": "client", "within": "10m"}))[
        "ok"
    ] is True
    tight = await verify(http, merchant, client, {**hook, "after": "client", "within": "9m"})
    assert [r["ok"] for r in tight["results"]] == [True, False]
    since = {**hook, "after": later(A_START, minutes=11)}
    assert (await verify(http, merchant, since))["ok"] is False
    assert (await verify(http, merchant, client, hook, in_order=True))["ok"] is True
    backwards = await verify(http, merchant, hook, client, in_order=True)
    assert [r["ok"] for r in backwards["results"]] == [True, False]
    assert "(in_order), but its matches came before" in backwards["results"][1]["message"]
    ranged = {**client, "at_least": 1, "at_most": 1}
    assert (await verify(http, merchant, ranged))["ok"] is True
    assert (await verify(http, merchant, {**client, "at_least": 2}))["ok"] is False
    assert (await verify(http, merchant, {**client, "at_most": 0}))["ok"] is False


async def test_many_waits_across_merchants_each_wake_on_their_own(http, runtime):
    """Ten waits over five merchants, open at once: each merchant's request answers its two
    waits, while the others' keep waiting."""
    merchants = [(await http.post("/_emulator/merchants")).json() for _ in range(5)]
    body = {
        "expect": [{"request": {"method": "POST", "path": "/api/v1/clients/"}}],
        "timeout_seconds": 30,
    }
    waits = [
        [asyncio.ensure_future(http.post(path(m, "wait"), json=body)) for _ in range(2)]
        for m in merchants
    ]
    for _ in range(400):  # until all ten watch
        if runtime.notices.watching() == 10:
            break
        await asyncio.sleep(0.005)
    assert runtime.notices.watching() == 10
    for i, merchant in enumerate(merchants):
        await clients(http, merchant, 1)
        answers = await asyncio.wait_for(asyncio.gather(*waits[i]), timeout=10)
        assert all(a.json()["ok"] for a in answers)
        assert not any(w.done() for later_waits in waits[i + 1 :] for w in later_waits)
    assert runtime.notices.watching() == 0
