"""Delivery operations through HTTP: the log's filters, replay and recover in bulk, endpoints
switched off and on (kept, dropped, in order, across a restart), auto-disable on the clock,
``exhausted`` in the log and in expectations, and bad input in the control plane's dialect."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import msgspec
import pytest

from emulator.delivery.outgoing import MAX_ATTEMPTS
from emulator.domain.delivery_filters import FINAL_ATTEMPT
from emulator.runtime.runtime import Runtime
from tests.conftest import settings_for
from tests.delivery.test_deliveries import DOWN, SINK, _serve, advance, paid_out, verify, webhook
from tests.http.bank_helpers import eft_body
from tests.http.purchase_helpers import create, pay

CARD = "4444333322221111"


def test_exhausted_means_the_engines_last_attempt():
    assert FINAL_ATTEMPT == MAX_ATTEMPTS


async def log(http: httpx.AsyncClient, **query: str) -> list[dict[str, Any]]:
    """The log's attempts, oldest first."""
    response = await http.get("/_emulator/deliveries", params=query)
    assert response.status_code == 200, response.text
    found: list[dict[str, Any]] = response.json()["deliveries"]
    return found[::-1]


async def received(http: httpx.AsyncClient, name: str) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = (await http.get(f"/_emulator/sink/{name}")).json()["messages"]
    return found


async def post(http: httpx.AsyncClient, path: str, body: dict[str, Any]) -> dict[str, Any]:
    response = await http.post(path, json=body)
    assert response.status_code == 200, response.text
    answer: dict[str, Any] = response.json()
    return answer


async def switch(http: httpx.AsyncClient, path: str, **body: Any) -> dict[str, Any]:
    response = await http.put(path, json=body)
    assert response.status_code == 200, response.text
    answer: dict[str, Any] = response.json()
    return answer


async def test_a_filtered_replay_keeps_the_event_id_and_signs_again(http, gw, merchant):
    hook = await webhook(
        http, gw, SINK.format(name="replay"), all_events=False, events=["payout.success"]
    )
    payout = await paid_out(http, gw, merchant, CARD)
    [first] = await received(http, "replay")
    company = merchant["company_id"]
    none = {"merchant": company, "event_type": "payout.failed"}
    assert (await post(http, "/_emulator/deliveries/replay", none))["count"] == 0
    early = {"merchant": company, "until": "2026-01-05T08:59:59Z"}  # before the event
    assert (await post(http, "/_emulator/deliveries/replay", early))["count"] == 0
    wanted = {"merchant": company, "event_type": "payout.success", "outcome": "ok",
              "object_id": payout["id"], "url": SINK.format(name="replay"),
              "since": "2026-01-05T09:00:00Z", "until": "2026-01-05T09:00:00Z"}  # fmt: skip
    [original] = await log(http, object_id=payout["id"])
    done = await post(http, "/_emulator/deliveries/replay", wanted)
    assert done["count"] == 1 and not done["truncated"]
    assert done["replayed"][0]["replay_of"] == original["message_id"]
    assert done["replayed"][0]["event_id"] == original["event_id"]
    first_again, again = await received(http, "replay")
    assert first_again == first
    assert again["headers"]["x-event-id"] == first["headers"]["x-event-id"]
    assert again["body"] == first["body"]
    verify(hook["public_key"], again["headers"]["x-signature"], again["body"].encode())
    _, replayed = await log(http, object_id=payout["id"])
    assert replayed["replay_of"] == original["message_id"] and "replay_of" not in original
    assert replayed["message_id"] == done["replayed"][0]["message_id"]
    assert replayed["success"] and replayed["attempt"] == 1


async def test_exhausted_is_filterable_replayable_and_countable(http, gw, merchant):
    await webhook(http, gw, DOWN, all_events=False, events=["payout.success"])
    payout = await paid_out(http, gw, merchant, CARD)
    await advance(http, 36 * 3600)
    company = merchant["company_id"]
    failed = await log(http, merchant=company, outcome="failed", event_type="payout.success")
    assert [a["attempt"] for a in failed] == list(range(1, MAX_ATTEMPTS + 1))
    [last] = await log(http, merchant=company, outcome="exhausted")
    assert last["attempt"] == MAX_ATTEMPTS and last["object_id"] == payout["id"]
    assert await log(http, merchant=company, outcome="ok") == []
    path = f"/_emulator/merchants/{company}/verify"
    items = [{"delivery": {"event": "payout.success", "outcome": "exhausted"}, "count": 1},
             {"delivery": {"event": "payout.success", "outcome": "failed"}, "count": 9}]  # fmt: skip
    assert (await post(http, path, {"expect": items}))["ok"] is True
    done = await post(http, "/_emulator/deliveries/replay", {"outcome": "exhausted"})
    assert [r["replay_of"] for r in done["replayed"]] == [last["message_id"]]


class Switchable:
    """A receiver of our own (not the emulator's code): answers 503 while ``down``."""

    def __init__(self) -> None:
        self.down = True
        self.received: list[str] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        if self.down:
            return httpx.Response(503)
        self.received.append(msgspec.json.decode(request.content)["id"])
        return httpx.Response(200)


@contextlib.asynccontextmanager
async def served(tmp_path: Path, receiver: Switchable) -> AsyncIterator[httpx.AsyncClient]:
    settings = settings_for(tmp_path)
    async with Runtime(settings, transport=httpx.MockTransport(receiver)) as rt:
        async with await _serve(rt) as http:
            yield http


async def test_recover_sends_only_what_failed_since_then(tmp_path: Path):
    receiver = Switchable()
    async with served(tmp_path, receiver) as http:
        merchant = (await http.post("/_emulator/merchants")).json()
        gw = {"Authorization": f"Bearer {merchant['api_key']}"}
        await webhook(http, gw, "https://shop.test/hook", all_events=False,
                      events=["payout.success"])  # fmt: skip
        failed = await paid_out(http, gw, merchant, CARD)  # the receiver is down
        company = merchant["company_id"]
        assert len(await log(http, merchant=company, outcome="failed")) == 1
        receiver.down = False
        delivered = await paid_out(http, gw, merchant, CARD)
        assert len(await log(http, merchant=company, outcome="ok")) == 1
        body = {"merchant": company, "since": "2026-01-05T09:00:00Z"}
        done = await post(http, "/_emulator/deliveries/recover", body)
        assert [r["object_id"] for r in done["replayed"]] == [failed["id"]]
        assert receiver.received == [delivered["id"], failed["id"]]
        assert (await post(http, "/_emulator/deliveries/recover", body))["count"] == 0
        later = {"url": "https://shop.test/hook", "since": "2026-01-05T09:00:01Z"}
        assert (await post(http, "/_emulator/deliveries/recover", later))["count"] == 0


@pytest.mark.needs_file  # a restart on the same file
async def test_off_keeps_on_sends_in_order_across_a_restart(tmp_path: Path):
    settings = settings_for(tmp_path, clock_explicit=False)
    async with Runtime(settings) as rt, await _serve(rt) as http:
        merchant = (await http.post("/_emulator/merchants")).json()
        gw = {"Authorization": f"Bearer {merchant['api_key']}"}
        hook = await webhook(http, gw, SINK.format(name="offon"), all_events=False,
                             events=["purchase.created", "purchase.paid"])  # fmt: skip
        state = f"/_emulator/webhooks/{hook['id']}/state"
        off = await switch(http, state, enabled=False)
        assert off["enabled"] is False and off["merchant"] == merchant["company_id"]
        purchase = await create(http, gw, merchant)
    async with Runtime(settings) as rt, await _serve(rt) as http:  # the state is in the file
        assert (await pay(http, purchase["id"])).status_code == 200
        assert await received(http, "offon") == []
        view = await http.get("/_emulator/endpoints", params={"merchant": "nobody"})
        assert view.status_code == 404
        view = await http.get("/_emulator/endpoints", params={"merchant": off["merchant"]})
        kept = view.json()["kept"]
        assert [(k["event_type"], k["outcome"]) for k in kept] == [("purchase.created", "held")]
        [endpoint] = view.json()["endpoints"]
        assert endpoint["id"] == hook["id"] and endpoint["enabled"] is False
        on = await switch(http, state, enabled=True)
        assert on["released"] == 1
        messages = await received(http, "offon")
        assert [m["json"]["event_type"] for m in messages] == ["purchase.created", "purchase.paid"]
        view = await http.get("/_emulator/endpoints", params={"merchant": off["merchant"]})
        actions = [e["action"] for e in view.json()["events"]][::-1]
        assert actions == ["switched_off", "held", "switched_on"]


async def test_a_held_retry_keeps_its_gaps_after_it_is_released(http, gw, merchant):
    hook = await webhook(http, gw, DOWN, all_events=False, events=["payout.success"])
    payout = await paid_out(http, gw, merchant, CARD)
    assert len(await log(http, object_id=payout["id"])) == 1  # failed at 09:00
    state = f"/_emulator/webhooks/{hook['id']}/state"
    await switch(http, state, enabled=False)
    await advance(http, 3600)  # its second attempt (09:01) is held
    assert (await switch(http, state, enabled=True))["released"] == 1
    found = await log(http, object_id=payout["id"])
    assert [(a["attempt"], a["at"]) for a in found] == [
        (1, "2026-01-05T09:00:00Z"), (2, "2026-01-05T10:00:00Z")
    ]  # fmt: skip
    await advance(http, 4 * 60)  # the third: 4 minutes after the second, as scheduled
    assert [a["at"] for a in await log(http, object_id=payout["id"])][2:] == [
        "2026-01-05T10:04:00Z"
    ]


async def test_drop_drops_what_comes_while_off(http, gw, merchant):
    hook = await webhook(http, gw, SINK.format(name="dropped"), all_events=False,
                         events=["payout.success"])  # fmt: skip
    state = f"/_emulator/webhooks/{hook['id']}/state"
    assert (await switch(http, state, enabled=False, drop=True))["drop"] is True
    payout = await paid_out(http, gw, merchant, CARD)
    assert (await switch(http, state, enabled=True))["released"] == 0
    assert await received(http, "dropped") == []
    view = await http.get("/_emulator/endpoints", params={"merchant": merchant["company_id"]})
    [kept] = view.json()["kept"]
    assert kept["outcome"] == "dropped" and kept["object_id"] == payout["id"]
    assert await log(http, object_id=payout["id"]) == []  # never attempted


async def test_auto_disable_after_days_of_failures_on_the_clock(http, gw, merchant):
    company = merchant["company_id"]
    settings = f"/_emulator/merchants/{company}/delivery-settings"
    assert (await http.get(settings)).json()["auto_disable_after_days"] is None  # the default
    assert (await switch(http, settings, auto_disable_after_days=1))["company_id"] == company
    hook = await webhook(http, gw, DOWN, all_events=False, events=["payout.success"])
    payout = await paid_out(http, gw, merchant, CARD)
    await advance(http, 18 * 3600)  # eight attempts over 18 hours: not a day yet
    assert len(await log(http, object_id=payout["id"])) == 8
    await advance(http, 18 * 3600)  # the ninth falls due 36 hours on: switched off instead
    assert len(await log(http, object_id=payout["id"])) == 8
    view = (await http.get("/_emulator/endpoints", params={"merchant": company})).json()
    [endpoint] = view["endpoints"]
    assert (endpoint["id"], endpoint["enabled"], endpoint["reason"]) == (
        hook["id"], False, "auto_disabled"
    )  # fmt: skip
    assert endpoint["changed_at"] == "2026-01-06T21:00:00Z"
    assert [e["action"] for e in view["events"]][::-1] == ["auto_disabled", "held"]
    journal = (await http.get("/_emulator/requests", params={"merchant": company})).json()
    noted = [r for r in journal["requests"] if r["path"].endswith(f"{hook['id']}/state")]
    assert len(noted) == 1


async def test_a_callback_registration_switched_off_keeps_its_callbacks(http, v2, merchant):
    client = merchant["profiles"][0]["createdByClient"]
    body = {"clientId": client, "url": SINK.format(name="cb-off"),
            "callbackType": "EFT_COLLECTION", "callbackVersion": "V2"}  # fmt: skip
    registered = await http.post("/v2/clientcallbackurl/", json=body, headers=v2)
    assert registered.status_code == 200, registered.text
    state = f"/_emulator/callbacks/{registered.json()['id']}/state"
    await switch(http, state, enabled=False)
    profile = merchant["profiles"][0]["profileCode"]
    made = await http.post("/v2/collection/eft", json=eft_body(profile), headers=v2)
    assert made.status_code == 201
    assert await received(http, "cb-off") == []
    assert (await switch(http, state, enabled=True))["released"] == 1
    assert [m["json"]["status"] for m in await received(http, "cb-off")] == ["PENDING"]


@pytest.mark.parametrize(
    ("method", "path", "body", "message"),
    [
        ("GET", "/_emulator/deliveries?outcome=maybe", None, "'outcome' must be one of"),
        ("GET", "/_emulator/deliveries?colour=red", None, "'colour' is not a filter key"),
        ("GET", "/_emulator/deliveries?since=yesterday", None, "'since' is not an ISO-8601"),
        ("GET", "/_emulator/deliveries?since=2026-01-02&until=2026-01-01", None, "'until'"),
        ("POST", "/_emulator/deliveries/replay", {"outcome": 3}, "'outcome' must be a"),
        ("POST", "/_emulator/deliveries/replay", [], "must be a JSON object"),
        ("POST", "/_emulator/deliveries/recover", {"merchant": "m"}, "give 'since'"),
        ("POST", "/_emulator/deliveries/recover", {"since": "2026-01-01"}, "'merchant' or"),
        ("PUT", "/_emulator/webhooks/nope/state", {"enabled": "no"}, "'enabled' must be"),
        ("PUT", "/_emulator/webhooks/nope/state", {"enabled": True, "x": 1}, "'x' is not"),
        ("PUT", "/_emulator/callbacks/nope/state", {}, "'enabled' must be"),
    ],
)
async def test_bad_input_is_a_400_naming_the_key(http, method, path, body, message):
    response = await http.request(method, path, json=body)
    assert response.status_code == 400, response.text
    error = response.json()["error"]
    assert error["code"] in ("invalid", "malformed_json") and message in error["message"]


async def test_unknown_things_are_404s(http, merchant):
    missing = await http.put("/_emulator/webhooks/nope/state", json={"enabled": False})
    assert (missing.status_code, missing.json()["error"]["code"]) == (404, "not_found")
    body = {"auto_disable_after_days": 2}
    nobody = await http.put("/_emulator/merchants/nobody/delivery-settings", json=body)
    assert nobody.json()["error"]["code"] == "merchant_not_found"
    replay = await http.post("/_emulator/deliveries/replay", json={"merchant": "nobody"})
    assert replay.status_code == 404
    days = f"/_emulator/merchants/{merchant['company_id']}/delivery-settings"
    for bad in (0, 1.5, True, 366, "2"):
        response = await http.put(days, json={"auto_disable_after_days": bad})
        assert response.status_code == 400, bad
