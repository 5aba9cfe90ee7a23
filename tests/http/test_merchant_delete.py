"""DELETE /_emulator/merchants/{company_id}: the merchant and everything of it, at once."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import msgspec
import pytest

from emulator.runtime.runtime import Runtime
from emulator.serving.app import create_app
from tests.conftest import DEFAULT_KEY, settings_for, token_for
from tests.http.purchase_helpers import purchase_body
from tests.http.scenario_helpers import activate, new_merchant

DEFAULT_ID = "9f1c3a52-7d4e-4b8a-9c61-2e5f0a7b3d10"


async def _fill(http: httpx.AsyncClient, merchant: dict[str, Any]) -> str:
    """Objects, a webhook and its deliveries, jobs, journal entries, a scenario: an OAuth
    token of the merchant, returned."""
    gw = {"Authorization": f"Bearer {merchant['api_key']}"}
    hook = await http.post(
        "/api/v1/webhooks/",
        json={
            "title": "t",
            "all_events": True,
            "callback": "http://127.0.0.1:8400/_emulator/sink/d",
        },
        headers=gw,
    )
    assert hook.status_code == 201, hook.text
    for _ in range(2):
        made = await http.post("/api/v1/purchases/", json=purchase_body(merchant), headers=gw)
        assert made.status_code == 201, made.text
    await activate(http, merchant, "collection.outcome", {"status": "UNPAID"})
    assert (await http.get("/_emulator/sink/d")).json()["messages"]  # deliveries were made
    return await token_for(http, merchant["client_id"], merchant["client_secret"])


def _rows_of(db: Path, company_id: str) -> dict[str, int]:
    """Rows naming the merchant, in every table that has a merchant column."""
    found: dict[str, int] = {}
    with sqlite3.connect(db) as conn:
        tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")]
        for table in tables:
            columns = {c[1] for c in conn.execute(f'PRAGMA table_info("{table}")')}
            for column in ("merchant_id", "scope") if table != "merchants" else ("id",):
                if column in columns:
                    sql = f'SELECT COUNT(*) FROM "{table}" WHERE "{column}" = ?'
                    count = conn.execute(sql, (company_id,)).fetchone()[0]
                    if count:
                        found[table] = count
    return found


@pytest.mark.needs_file
async def test_deleting_a_merchant_removes_everything_of_it_and_nothing_else(
    runtime: Runtime, http: httpx.AsyncClient
):
    doomed, kept = await new_merchant(http), await new_merchant(http)
    await http.put(f"/_emulator/merchants/{doomed['company_id']}/clock", json={})  # its own
    token = await _fill(http, doomed)
    kept_token = await _fill(http, kept)
    await runtime.journal.flush()
    db = runtime.settings.db_path
    before = _rows_of(db, doomed["company_id"])
    assert {"purchases", "webhooks", "jobs", "outbox", "requests", "delivery_messages"} <= set(
        before
    )
    assert {"merchant_clocks", "scenario_activations", "api_keys", "oauth_clients"} <= set(before)
    kept_before = _rows_of(db, kept["company_id"])

    response = await http.delete(f"/_emulator/merchants/{doomed['company_id']}")

    assert response.status_code == 200, response.text
    body = response.json()
    assert (body["deleted"], body["company_id"]) == (True, doomed["company_id"])
    assert body["removed"]["merchants"] == 1
    assert body["removed"]["purchases"] == 2
    assert _rows_of(db, doomed["company_id"]) == {}
    assert _rows_of(db, kept["company_id"]) == kept_before
    # Its credentials stop working at once (they were cached by the calls above).
    gw = {"Authorization": f"Bearer {doomed['api_key']}"}
    assert (await http.get("/api/v1/webhooks/", headers=gw)).status_code == 401
    v2 = {"Authorization": f"Bearer {token}"}
    assert (await http.get("/v2/merchantprofile", headers=v2)).status_code == 401
    again = await http.post(
        "/oauth2/token",
        auth=(doomed["client_id"], doomed["client_secret"]),
        data={"grant_type": "client_credentials"},
    )
    assert (again.status_code, again.json()["error"]) == (400, "invalid_client")
    # It is gone from every view; its own clock with it.
    listed = (await http.get("/_emulator/merchants")).json()["merchants"]
    assert [m["company_id"] for m in listed] == [DEFAULT_ID, kept["company_id"]]
    assert (await http.get(f"/_emulator/merchants/{doomed['company_id']}/clock")).status_code == 404
    assert doomed["company_id"] not in runtime.scheduler.timelines
    assert doomed["company_id"] not in runtime.clock.own
    journal = await http.get("/_emulator/requests", params={"merchant": doomed["company_id"]})
    assert journal.json()["requests"] == []
    # The other merchant goes on as before.
    kept_gw = {"Authorization": f"Bearer {kept['api_key']}"}
    assert len((await http.get("/api/v1/webhooks/", headers=kept_gw)).json()["results"]) == 1
    kept_v2 = {"Authorization": f"Bearer {kept_token}"}
    assert (await http.get("/v2/merchantprofile", headers=kept_v2)).status_code == 200
    advanced = await http.post("/_emulator/clock/advance", json={"days": 40})
    assert advanced.status_code == 200, advanced.text


@pytest.mark.needs_file
async def test_a_restart_after_a_delete_is_fine(tmp_path: Path):
    settings = settings_for(tmp_path)
    async with Runtime(settings) as rt:
        async with httpx.AsyncClient(
            transport=httpx.ASGITransport(app=create_app(rt)), base_url="http://e"
        ) as http:
            doomed, kept = await new_merchant(http), await new_merchant(http)
            await http.put(f"/_emulator/merchants/{doomed['company_id']}/clock", json={})
            await _fill(http, doomed)
            deleted = await http.delete(f"/_emulator/merchants/{doomed['company_id']}")
            assert deleted.status_code == 200
    async with Runtime(settings) as rt:
        async with httpx.AsyncClient(
            transport=httpx.ASGITransport(app=create_app(rt)), base_url="http://e"
        ) as http:
            listed = (await http.get("/_emulator/merchants")).json()["merchants"]
            assert [m["company_id"] for m in listed] == [DEFAULT_ID, kept["company_id"]]
            gw = {"Authorization": f"Bearer {kept['api_key']}"}
            made = await http.post("/api/v1/purchases/", json=purchase_body(kept), headers=gw)
            assert made.status_code == 201
            gone = {"Authorization": f"Bearer {doomed['api_key']}"}
            assert (await http.get("/api/v1/webhooks/", headers=gone)).status_code == 401
            assert (
                await http.post("/_emulator/clock/advance", json={"days": 3})
            ).status_code == 200


async def test_an_unknown_merchant_is_a_404(http: httpx.AsyncClient):
    response = await http.delete("/_emulator/merchants/no-such-merchant")
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "merchant_not_found"


async def test_a_merchant_is_deleted_once(http: httpx.AsyncClient, merchant: dict[str, Any]):
    path = f"/_emulator/merchants/{merchant['company_id']}"
    assert (await http.delete(path)).status_code == 200
    assert (await http.delete(path)).json()["error"]["code"] == "merchant_not_found"


async def _hook_and_purchase(http: httpx.AsyncClient, merchant: dict[str, Any], sink: str) -> None:
    """A webhook of the merchant to the sink ``sink``, then a purchase (one delivery)."""
    gw = {"Authorization": f"Bearer {merchant['api_key']}"}
    callback = f"http://127.0.0.1:8400/_emulator/sink/{sink}"
    hook = {"title": "t", "all_events": True, "callback": callback}
    assert (await http.post("/api/v1/webhooks/", json=hook, headers=gw)).status_code == 201
    made = await http.post("/api/v1/purchases/", json=purchase_body(merchant), headers=gw)
    assert made.status_code == 201, made.text


async def test_events_after_a_delete_of_the_newest_ones_are_delivered(http: httpx.AsyncClient):
    """Deleting the merchant of the newest events frees their outbox seqs for the next events:
    those are still delivered (the delivery cursor goes back), not passed as dispatched."""

    async def hook_and_purchase(merchant: dict[str, Any], sink: str) -> list[Any]:
        await _hook_and_purchase(http, merchant, sink)
        messages: list[Any] = (await http.get(f"/_emulator/sink/{sink}")).json()["messages"]
        return messages

    gone = await new_merchant(http)
    assert len(await hook_and_purchase(gone, "gone")) == 1
    assert (await http.delete(f"/_emulator/merchants/{gone['company_id']}")).status_code == 200
    kept = await new_merchant(http)
    delivered = await hook_and_purchase(kept, "kept")
    assert [m["json"]["event_type"] for m in delivered] == ["purchase.created"]


async def test_attempt_ids_of_a_deleted_merchant_are_not_given_again(http: httpx.AsyncClient):
    """The newest delivery attempts were a deleted merchant's: the next attempt's id is above
    theirs, so a tail reading after an id (listen --after, the deliveries wait) misses none."""

    async def newest_attempt(merchant: dict[str, Any], sink: str) -> int:
        await _hook_and_purchase(http, merchant, sink)
        listed = await http.get("/_emulator/deliveries", params={"limit": 1})
        return int(listed.json()["deliveries"][0]["id"])

    gone = await new_merchant(http)
    before = await newest_attempt(gone, "ids-gone")
    assert (await http.delete(f"/_emulator/merchants/{gone['company_id']}")).status_code == 200
    after = await newest_attempt(await new_merchant(http), "ids-kept")
    assert after > before


async def test_the_default_merchant_is_not_deleted(http: httpx.AsyncClient):
    response = await http.delete(f"/_emulator/merchants/{DEFAULT_ID}")
    assert response.status_code == 409
    assert response.json()["error"]["code"] == "default_merchant"
    gw = {"Authorization": f"Bearer {DEFAULT_KEY}"}
    assert (await http.get("/api/v1/webhooks/", headers=gw)).status_code == 200


INVALID_TOKEN = {"__all__": {"message": "Invalid token.", "code": "invalid_token"}}
NO_BRAND = {"brand_id": {"message": "No brand with this id.", "code": "invalid"}}


def _late_bodies(merchant: dict[str, Any]) -> list[tuple[str, dict[str, Any], int, Any]]:
    """Path, body, and the answer once the merchant is gone (a purchase looks its brand up
    first: the brand went with the merchant)."""
    hook = {"title": "t", "all_events": True, "callback": "http://127.0.0.1:8400/_emulator/sink/l"}
    return [
        (
            "/api/v1/clients/",
            {"email": "late@example.com", "full_name": "Late"},
            401,
            INVALID_TOKEN,
        ),
        ("/api/v1/purchases/", purchase_body(merchant), 400, NO_BRAND),
        ("/api/v1/webhooks/", hook, 401, INVALID_TOKEN),
    ]


@pytest.mark.parametrize("index", range(3))
async def test_a_request_under_way_when_its_merchant_goes_is_a_401_not_a_500(
    http: httpx.AsyncClient, merchant: dict[str, Any], index: int
):
    """Authenticated, then its merchant deleted before it writes: the write finds no
    merchant, and the answer is the gateway's 401 (its key is no longer valid), not a 500."""
    path, body, status, answered = _late_bodies(merchant)[index]
    raw = msgspec.json.encode(body)
    body_may_end = asyncio.Event()
    body_read = asyncio.Event()  # the handler reads the body after authenticating its caller

    async def slow_body() -> AsyncIterator[bytes]:
        yield raw[:5]
        body_read.set()
        await body_may_end.wait()
        yield raw[5:]

    async def send() -> httpx.Response:
        headers = {
            "Authorization": f"Bearer {merchant['api_key']}",
            "Content-Type": "application/json",
        }
        return await http.post(path, content=slow_body(), headers=headers)

    under_way = asyncio.create_task(send())
    await asyncio.wait_for(body_read.wait(), 5)
    deleted = await http.delete(f"/_emulator/merchants/{merchant['company_id']}")
    assert deleted.status_code == 200, deleted.text
    body_may_end.set()
    answer = await under_way
    assert answer.status_code == status, answer.text
    assert answer.json() == answered
