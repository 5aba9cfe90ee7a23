"""Deliveries end to end: signed webhooks to the built-in sink, success callbacks, the
delivery logs, the retry schedule on the clock, a restart in the middle of it, and order."""

from __future__ import annotations

import base64
import contextlib
import sqlite3
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import httpx
import msgspec
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding, rsa

from emulator.delivery.outgoing import RETRY_AFTER_SECONDS
from emulator.domain.events import Event
from emulator.runtime.runtime import Runtime
from emulator.serving.app import create_app
from tests.conftest import EPOCH_S, settings_for

SINK = "http://127.0.0.1:8400/_emulator/sink/{name}"
DOWN = "http://127.0.0.1:9/hook"  # the discard port: nothing listens, connections are refused
CARD = {"cardholder_name": "Jane Doe", "expiry_month": "12", "expiry_year": "30"}


def verify(public_pem: str, signature: str, body: bytes) -> None:
    """Raises InvalidSignature unless ``signature`` signs ``body`` with that key."""
    key = serialization.load_pem_public_key(public_pem.encode())
    assert isinstance(key, rsa.RSAPublicKey)
    key.verify(base64.b64decode(signature), body, padding.PKCS1v15(), hashes.SHA256())


async def webhook(
    http: httpx.AsyncClient, gw: dict[str, str], callback: str, **extra: Any
) -> dict[str, Any]:
    data = {"title": "hook", "all_events": True, "callback": callback, **extra}
    response = await http.post("/api/v1/webhooks/", json=data, headers=gw)
    assert response.status_code == 201, response.text
    hook: dict[str, Any] = response.json()
    return hook


async def paid_out(
    http: httpx.AsyncClient, gw: dict[str, str], merchant: dict[str, Any], number: str
) -> dict[str, Any]:
    created = await http.post(
        "/api/v1/payouts/",
        json={
            "client": {"email": "payee@example.com"},
            "payment": {"amount": 700, "currency": "ZAR"},
            "brand_id": merchant["brand_id"],
        },
        headers=gw,
    )
    payout: dict[str, Any] = created.json()
    response = await http.post(
        httpx.URL(payout["execution_url"]).path, json={"card_number": number, **CARD}
    )
    assert response.status_code == 200
    executed: dict[str, Any] = response.json()
    return executed


async def attempts(http: httpx.AsyncClient, **query: str) -> list[dict[str, Any]]:
    """The control plane's attempts, oldest first."""
    response = await http.get("/_emulator/deliveries", params=query)
    assert response.status_code == 200
    found: list[dict[str, Any]] = response.json()["deliveries"]
    return found[::-1]


async def test_signed_webhook_reaches_the_sink_in_process(http, gw, merchant):
    """The body is the object plus event_type; X-Signature verifies with the webhook's key."""
    hook = await webhook(
        http, gw, SINK.format(name="signed"), all_events=False, events=["payout.success"]
    )
    payout = await paid_out(http, gw, merchant, "4444333322221111")
    messages = (await http.get("/_emulator/sink/signed")).json()["messages"]
    assert len(messages) == 1
    message = messages[0]
    verify(hook["public_key"], message["headers"]["x-signature"], message["body"].encode())
    assert message["json"] == {**payout, "event_type": "payout.success"}
    assert message["headers"]["content-type"] == "application/json"
    [attempt] = await attempts(http, object_id=payout["id"])
    assert message["headers"]["x-event-id"] == attempt["event_id"]
    assert message["headers"]["x-emulator-time"] == "2026-01-05T09:00:00Z"
    assert attempt == {
        "id": attempt["id"],
        "message_id": attempt["message_id"],
        "merchant": merchant["company_id"],
        "kind": "webhook",
        "target_id": hook["id"],
        "event_id": attempt["event_id"],
        "event_type": "payout.success",
        "object_type": "payout",
        "object_id": payout["id"],
        "url": SINK.format(name="signed"),
        "headers": {  # every header sent, in order, as the sink got them
            "Host": "127.0.0.1:8400",
            "Accept": "*/*",
            "Accept-Encoding": message["headers"]["accept-encoding"],
            "Connection": "keep-alive",
            "User-Agent": message["headers"]["user-agent"],
            "Content-Type": "application/json",
            "X-Signature": message["headers"]["x-signature"],
            "X-Event-Id": attempt["event_id"],
            "X-Emulator-Time": message["headers"]["x-emulator-time"],
            "Content-Length": str(len(message["body"].encode())),
        },
        "body": message["body"],
        "attempt": 1,
        "at": "2026-01-05T09:00:00Z",
        "status": 200,
        "error": None,
        "success": True,
        "duration_ms": attempt[
            "duration_ms"
        ],  # measured: tests/delivery/test_delivery_durations.py
    }


async def test_only_subscribed_events_are_delivered(http, gw, merchant):
    """A webhook on payout.failed hears nothing of a successful payout; all_events hears both
    of a pending one that succeeds."""
    await webhook(
        http, gw, SINK.format(name="failed-only"), all_events=False, events=["payout.failed"]
    )
    await webhook(http, gw, SINK.format(name="everything"))
    payout = await paid_out(http, gw, merchant, "5555555555554444")
    await http.post(f"/_emulator/payouts/{payout['id']}/settle")
    assert (await http.get("/_emulator/sink/failed-only")).json()["messages"] == []
    everything = (await http.get("/_emulator/sink/everything")).json()["messages"]
    assert [m["json"]["event_type"] for m in everything] == ["payout.pending", "payout.success"]


async def test_gateway_deliveries_list_the_attempts_of_one_object(http, gw, merchant):
    """GET /webhooks/deliveries/ lists the object's attempts; paginated."""
    hook = await webhook(http, gw, SINK.format(name="log"))
    payout = await paid_out(http, gw, merchant, "5555555555554444")
    await http.post(f"/_emulator/payouts/{payout['id']}/settle")
    query = {"id": payout["id"], "source_type": "Payout", "page_size": "1"}
    response = await http.get("/api/v1/webhooks/deliveries/", params=query, headers=gw)
    assert response.status_code == 200
    page = response.json()
    assert page["next"] is not None and page["previous"] is None
    [first] = page["results"]
    assert first == {
        "id": first["id"],
        "type": "webhook_delivery",
        "webhook_id": hook["id"],
        "kind": "webhook",
        "event_id": first["event_id"],
        "event_type": "payout.pending",
        "url": SINK.format(name="log"),
        "attempt": 1,
        "response_status": 200,
        "error": None,
        "successful": True,
        "duration_ms": first["duration_ms"],
        "created_on": EPOCH_S,
    }
    second = (await http.get(page["next"], headers=gw)).json()
    assert [r["event_type"] for r in second["results"]] == ["payout.success"]


async def test_gateway_deliveries_query_errors(http, gw, merchant):
    """Missing or invalid query: 400; an object the merchant does not know: 404."""
    payout = await paid_out(http, gw, merchant, "4444333322221111")
    url = "/api/v1/webhooks/deliveries/"
    missing = await http.get(url, headers=gw)
    assert (missing.status_code, missing.json()) == (
        400,
        {
            "id": {"message": "This field is required.", "code": "required"},
            "source_type": {"message": "This field is required.", "code": "required"},
        },
    )
    bad = await http.get(url, params={"id": "x", "source_type": "Thing"}, headers=gw)
    assert bad.json() == {
        "id": {"message": "'x' is not a valid UUID.", "code": "invalid_uuid"},
        "source_type": {
            "message": "Must be one of: Purchase, Payment, Payout, BillingTemplateClient.",
            "code": "invalid",
        },
    }
    wrong_type = await http.get(
        url, params={"id": payout["id"], "source_type": "Purchase"}, headers=gw
    )
    assert (wrong_type.status_code, wrong_type.json()) == (
        404,
        {"__all__": {"message": "No such object", "code": "purchase_not_found"}},
    )
    other = (await http.post("/_emulator/merchants")).json()
    other_gw = {"Authorization": f"Bearer {other['api_key']}"}
    theirs = await http.get(
        url, params={"id": payout["id"], "source_type": "Payout"}, headers=other_gw
    )
    assert theirs.status_code == 404
    known = await http.get(url, params={"id": payout["id"], "source_type": "Payout"}, headers=gw)
    assert known.json() == {"results": [], "next": None, "previous": None}  # no webhook


async def test_success_callback_is_signed_with_the_company_key(http, gw, merchant, runtime):
    """purchase.paid goes to the purchase's success_callback, signed with GET /public_key/'s key."""
    purchase = {"id": "6f1c0a52-7d4e-4b8a-9c61-2e5f0a7b3d10", "type": "purchase", "status": "paid",
                "success_callback": SINK.format(name="success")}  # fmt: skip
    event = Event("purchase.paid", "purchase", purchase["id"], purchase)
    await runtime.db.write(
        lambda tx: runtime.outbox.emit(tx, merchant["company_id"], event, runtime.clock.now_us())
    )
    [message] = (await http.get("/_emulator/sink/success")).json()["messages"]
    assert message["json"] == {**purchase, "event_type": "purchase.paid"}
    public_pem = (await http.get("/api/v1/public_key/", headers=gw)).json()
    verify(public_pem, message["headers"]["x-signature"], message["body"].encode())
    listed = await http.get(
        "/api/v1/webhooks/deliveries/",
        params={"id": purchase["id"], "source_type": "Purchase"},
        headers=gw,
    )
    assert [(r["kind"], r["webhook_id"]) for r in listed.json()["results"]] == [
        ("success_callback", None)
    ]


async def advance(http: httpx.AsyncClient, seconds: int) -> None:
    assert (
        await http.post("/_emulator/clock/advance", json={"seconds": seconds})
    ).status_code == 200


async def test_a_receiver_that_is_down_gets_the_documented_schedule(http, gw, merchant):
    """Nine attempts: at once, then 1 m, 5 m, 30 m, 2 h, 5 h, 10 h, 18 h and 36 h after the first."""
    await webhook(http, gw, DOWN)
    payout = await paid_out(http, gw, merchant, "4444333322221111")
    await advance(http, 40 * 3600)
    found = await attempts(http, object_id=payout["id"])
    offsets = [0, *RETRY_AFTER_SECONDS]
    assert [(a["attempt"], a["at"]) for a in found] == [
        (n + 1, _iso(EPOCH_S + offset)) for n, offset in enumerate(offsets)
    ]
    assert all(a["status"] is None and a["error"] and not a["success"] for a in found)
    await advance(http, 30 * 24 * 3600)
    assert len(await attempts(http, object_id=payout["id"])) == 9


def _iso(seconds: int) -> str:
    from datetime import UTC, datetime

    return datetime.fromtimestamp(seconds, UTC).isoformat().replace("+00:00", "Z")


async def _serve(runtime: Runtime) -> httpx.AsyncClient:
    return httpx.AsyncClient(
        transport=httpx.ASGITransport(app=create_app(runtime)), base_url="http://emulator"
    )


async def test_nothing_is_lost_across_a_restart_mid_schedule(tmp_path: Path):
    """Stop after three attempts; a new emulator on the same file makes the other six on time."""
    settings = settings_for(tmp_path, clock_explicit=False)
    async with Runtime(settings) as rt, await _serve(rt) as http:
        merchant = (await http.post("/_emulator/merchants")).json()
        gw = {"Authorization": f"Bearer {merchant['api_key']}"}
        await webhook(http, gw, DOWN)
        payout = await paid_out(http, gw, merchant, "4444333322221111")
        await advance(http, 10 * 60)
        assert len(await attempts(http, object_id=payout["id"])) == 3
    async with Runtime(settings) as rt, await _serve(rt) as http:
        await advance(http, 40 * 3600)
        found = await attempts(http, object_id=payout["id"])
    assert [a["at"] for a in found] == [_iso(EPOCH_S + s) for s in (0, *RETRY_AFTER_SECONDS)]


class Receiver:
    """A receiver (not the emulator's code): answers 503 to the first ``failures`` requests."""

    def __init__(self, failures: int) -> None:
        self.failures = failures
        self.received: list[tuple[str, str]] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        body = msgspec.json.decode(request.content)
        self.received.append((body["event_type"], request.headers["x-event-id"]))
        if len(self.received) <= self.failures:
            return httpx.Response(503)
        return httpx.Response(200)


@contextlib.asynccontextmanager
async def _with_receiver(
    tmp_path: Path, receiver: Callable[[httpx.Request], httpx.Response]
) -> AsyncIterator[tuple[Runtime, httpx.AsyncClient]]:
    async with Runtime(settings_for(tmp_path), transport=httpx.MockTransport(receiver)) as rt:
        async with await _serve(rt) as http:
            yield rt, http


async def test_order_per_object_holds_under_retries(tmp_path: Path):
    """payout.success waits until payout.pending, retried three times, has been delivered."""
    receiver = Receiver(failures=3)
    async with _with_receiver(tmp_path, receiver) as (_, http):
        merchant = (await http.post("/_emulator/merchants")).json()
        gw = {"Authorization": f"Bearer {merchant['api_key']}"}
        await webhook(http, gw, "https://receiver.example.com/hook")
        payout = await paid_out(http, gw, merchant, "5555555555554444")
        await http.post(f"/_emulator/payouts/{payout['id']}/settle")
        await http.get("/_emulator/deliveries")  # first attempts go out
        assert [e for e, _ in receiver.received] == ["payout.pending"]
        await advance(http, 3600)
        found = await attempts(http, object_id=payout["id"])
    assert [e for e, _ in receiver.received] == ["payout.pending"] * 4 + ["payout.success"]
    pending_ids = {i for e, i in receiver.received if e == "payout.pending"}
    assert len(pending_ids) == 1  # every retry carries the same event id
    assert [(a["event_type"], a["attempt"], a["status"], a["at"]) for a in found] == [
        ("payout.pending", 1, 503, _iso(EPOCH_S)),
        ("payout.pending", 2, 503, _iso(EPOCH_S + 60)),
        ("payout.pending", 3, 503, _iso(EPOCH_S + 300)),
        ("payout.pending", 4, 200, _iso(EPOCH_S + 1800)),
        ("payout.success", 1, 200, _iso(EPOCH_S + 1800)),
    ]


def test_a_real_server_delivers_a_signed_webhook_over_loopback():
    """uvicorn on a loopback port: the webhook goes out over real HTTP to its own sink."""
    from emulator.testing.live_server import LiveServer

    async def served(rt: Runtime) -> bool:
        return rt.served

    with (
        LiveServer(clock="frozen", start="2026-01-05T09:00:00Z") as server,
        httpx.Client(base_url=server.url) as http,
    ):
        assert server.call(served)  # so deliveries to it take the network, not a shortcut
        merchant = http.post("/_emulator/merchants").json()
        gw = {"Authorization": f"Bearer {merchant['api_key']}"}
        sink = f"{server.url}/_emulator/sink/live"
        hook = http.post(
            "/api/v1/webhooks/",
            json={"title": "live", "all_events": True, "callback": sink},
            headers=gw,
        ).json()
        payout = http.post(
            "/api/v1/payouts/",
            json={
                "client": {"email": "payee@example.com"},
                "payment": {"amount": 700, "currency": "ZAR"},
                "brand_id": merchant["brand_id"],
            },
            headers=gw,
        ).json()
        assert payout["execution_url"].startswith(server.url)
        executed = httpx.post(
            payout["execution_url"], json={"card_number": "4444333322221111", **CARD}
        )
        assert executed.status_code == 200
        [message] = http.get("/_emulator/sink/live").json()["messages"]
    assert message["headers"]["host"] == httpx.URL(server.url).netloc.decode()
    verify(hook["public_key"], message["headers"]["x-signature"], message["body"].encode())
    assert message["json"] == {**executed.json(), "event_type": "payout.success"}


async def test_control_plane_deliveries_filters(http, gw, merchant):
    """?merchant=, ?object_id=, ?kind=, ?limit= narrow the list; bad values are 400."""
    await webhook(http, gw, SINK.format(name="filters"))
    first = await paid_out(http, gw, merchant, "4444333322221111")
    second = await paid_out(http, gw, merchant, "4444333322221111")
    newest = (await http.get("/_emulator/deliveries", params={"limit": "1"})).json()["deliveries"]
    assert [d["object_id"] for d in newest] == [second["id"]]
    mine = await attempts(http, merchant=merchant["company_id"], kind="webhook")
    assert [d["object_id"] for d in mine] == [first["id"], second["id"]]
    assert await attempts(http, merchant="someone-else") == []
    assert await attempts(http, kind="callback") == []
    since = newest[0]["id"] - 1
    tail = (await http.get("/_emulator/deliveries", params={"after": str(since - 1)})).json()
    assert [d["id"] for d in tail["deliveries"]] == [since, since + 1]  # oldest first
    for query, message in (
        ({"limit": "0"}, "'limit' must be an integer from 1 to 1000"),
        ({"before": "x"}, "'before' must be an entry id"),
        ({"after": "-1"}, "'after' must be an entry id"),
        ({"kind": "fax"}, "'kind' must be one of: webhook, success_callback, callback"),
    ):
        response = await http.get("/_emulator/deliveries", params=query)
        assert (response.status_code, response.json()) == (
            400,
            {"error": {"code": "invalid", "message": message}},
        )


async def test_events_left_undispatched_by_a_crash_are_delivered_after_a_restart(tmp_path: Path):
    """An event committed just before a crash (never routed) is delivered by the next run."""
    settings = settings_for(tmp_path, clock_explicit=False)
    async with Runtime(settings) as rt, await _serve(rt) as http:
        merchant = (await http.post("/_emulator/merchants")).json()
        gw = {"Authorization": f"Bearer {merchant['api_key']}"}
        await webhook(http, gw, SINK.format(name="after-crash"))
    payout = {"id": "1f1c0a52-7d4e-4b8a-9c61-2e5f0a7b3d10", "type": "payout", "status": "success"}
    with contextlib.closing(sqlite3.connect(settings.db_path)) as conn, conn:
        conn.execute(  # what the crashed process had committed, and nothing after it
            "INSERT INTO outbox (id, merchant_id, event_type, object_type, object_id, created_us,"
            " payload) VALUES (?, ?, 'payout.success', 'payout', ?, ?, ?)",
            ("e-1", merchant["company_id"], payout["id"], EPOCH_S * 1_000_000,
             msgspec.json.encode(payout)),
        )  # fmt: skip
    async with Runtime(settings) as rt, await _serve(rt) as http:
        [message] = (await http.get("/_emulator/sink/after-crash")).json()["messages"]
    assert message["json"] == {**payout, "event_type": "payout.success"}
    assert message["headers"]["x-event-id"] == "e-1"
