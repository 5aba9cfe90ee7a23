"""Retention: a job on the server clock prunes delivered events, finished deliveries and sink
messages older than the window; snapshots and "advance to the next job" are unaffected."""

from __future__ import annotations

import logging
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from emulator.core.retention import jobs as retention
from emulator.core.retention import repo
from emulator.delivery import dispatch
from emulator.runtime.runtime import Runtime
from emulator.runtime.settings import DEFAULT_RETAIN, from_env, parse_retain
from emulator.serving.app import create_app
from tests.conftest import settings_for
from tests.http.purchase_helpers import create, pay

SINK = "http://127.0.0.1:8400/_emulator/sink/{name}"
DAY = 86_400


@pytest.mark.parametrize(
    ("text", "seconds"),
    [("7d", 7 * DAY), ("12h", 43_200), ("2h30m", 9000), ("90m", 5400), ("3600", 3600),
     ("45s", 45), ("0", None), ("off", None), ("OFF", None)],
)  # fmt: skip
def test_retain_durations(text, seconds):
    assert parse_retain(text) == seconds


@pytest.mark.parametrize("text", ["7 days", "-1d", "d", "1y", "", "1e400"])
def test_bad_retain_durations_are_refused(text):
    with pytest.raises(ValueError, match="duration"):
        parse_retain(text)


def test_retain_from_the_environment():
    assert from_env({"EMULATOR_RETAIN": "off"})["retain_seconds"] is None
    assert from_env({"EMULATOR_RETAIN": "1d"})["retain_seconds"] == DAY
    with pytest.raises(ValueError, match="EMULATOR_RETAIN"):
        from_env({"EMULATOR_RETAIN": "soon"})
    assert settings_for(Path("/x")).retain_seconds == DEFAULT_RETAIN == 7 * DAY


def test_the_cursor_is_the_delivery_engines():
    assert repo.CURSOR_KEY == dispatch.CURSOR_KEY


async def _paid_with_deliveries(http: httpx.AsyncClient, gw: dict[str, str], merchant: Any) -> str:
    purchase = await create(http, gw, merchant, success_callback=SINK.format(name="paid"))
    assert (await pay(http, purchase["id"])).status_code == 200
    assert (await http.get("/_emulator/sink/hooks")).status_code == 200  # sends have arrived
    return str(purchase["id"])


async def _deliveries_of(http: httpx.AsyncClient, object_id: str) -> list[Any]:
    found: list[Any] = (await http.get(f"/_emulator/deliveries?object_id={object_id}")).json()[
        "deliveries"
    ]
    return found


async def _advance(http: httpx.AsyncClient, days: float) -> dict[str, Any]:
    response = await http.post("/_emulator/clock/advance", json={"days": days})
    assert response.status_code == 200, response.text
    answer: dict[str, Any] = response.json()
    return answer


async def test_what_is_older_than_the_window_is_pruned(http, gw, merchant, runtime):
    hook = {"title": "all", "all_events": True, "callback": SINK.format(name="hooks")}
    assert (await http.post("/api/v1/webhooks/", json=hook, headers=gw)).status_code == 201
    old = await _paid_with_deliveries(http, gw, merchant)
    assert await _deliveries_of(http, old)
    await _advance(http, 3)
    new = await _paid_with_deliveries(http, gw, merchant)
    before = await runtime.db.read(repo.sizes)
    assert all(before.values()), before
    await _advance(http, 5)  # day 8: the prune of day 8 drops what is older than day 1
    assert await _deliveries_of(http, old) == []
    kept = await _deliveries_of(http, new)
    assert kept and all(d["object_id"] == new for d in kept)
    hooks = (await http.get("/_emulator/sink/hooks")).json()["messages"]
    assert hooks and all(new in m["body"] for m in hooks)
    after = await runtime.db.read(repo.sizes)
    assert all(0 < after[t] < before[t] for t in after), (before, after)
    # the purchase itself is state, not history: it stays
    assert (await http.get(f"/api/v1/purchases/{old}/", headers=gw)).status_code == 200


async def test_endpoint_history_older_than_the_window_is_pruned(http, gw, merchant):
    """What happened to endpoints (switched off, on) is history too: pruned as deliveries are,
    never the newest row."""
    hook = {"title": "all", "all_events": True, "callback": SINK.format(name="switched")}
    created = await http.post("/api/v1/webhooks/", json=hook, headers=gw)
    state = f"/_emulator/webhooks/{created.json()['id']}/state"
    view = {"merchant": merchant["company_id"]}

    async def toggle() -> None:
        for enabled in (False, True):
            assert (await http.put(state, json={"enabled": enabled})).status_code == 200

    async def history() -> list[tuple[str, str]]:
        events = (await http.get("/_emulator/endpoints", params=view)).json()["events"]
        return [(e["action"], e["at"][:10]) for e in events]

    await toggle()
    await _advance(http, 3)
    await toggle()
    assert [day for _, day in await history()] == ["2026-01-08"] * 2 + ["2026-01-05"] * 2
    await _advance(http, 5)  # day 8: the prune of day 8 drops what is older than day 1
    assert [day for _, day in await history()] == ["2026-01-08"] * 2


async def test_the_job_is_on_the_server_schedule_and_reschedules_itself(http):
    jobs = (await http.get("/_emulator/schedule")).json()["jobs"]
    assert [(j["kind"], j["due"]) for j in jobs] == [("retention.prune", "2026-01-06T09:00:00Z")]
    assert "older than 7 days" in jobs[0]["description"]
    # three days passed: it runs once, at the new now, and counts the next day from there
    assert (await _advance(http, 3))["jobs_run"] == 1
    jobs = (await http.get("/_emulator/schedule")).json()["jobs"]
    assert [(j["kind"], j["due"]) for j in jobs] == [("retention.prune", "2026-01-09T09:00:00Z")]


async def test_a_jump_of_centuries_prunes_once_at_the_new_now(http, gw, merchant, runtime, caplog):
    """A freeze 500 years ahead answers at once: the overdue prune runs once, at the new now,
    not once per day passed (182,500 runs took 12.5 s), and its next day counts from there."""
    caplog.set_level(logging.INFO, logger=retention.__name__)
    hook = {"title": "all", "all_events": True, "callback": SINK.format(name="hooks")}
    assert (await http.post("/api/v1/webhooks/", json=hook, headers=gw)).status_code == 201
    await _paid_with_deliveries(http, gw, merchant)
    started = time.perf_counter()
    frozen = await http.post("/_emulator/clock/freeze", json={"at": "2526-11-24T07:00:00Z"})
    assert frozen.status_code == 200, frozen.text
    assert time.perf_counter() - started <= 1.0
    after = await runtime.db.read(repo.sizes)
    assert after == {t: 1 for t in after}  # all but the newest row of each table
    pruned = [r for r in caplog.records if r.getMessage().startswith("retention: pruned")]
    assert len(pruned) == 1
    jobs = (await http.get("/_emulator/schedule")).json()["jobs"]
    assert [(j["kind"], j["due"]) for j in jobs] == [("retention.prune", "2526-11-25T07:00:00Z")]
    # an advance of as long runs it once too
    assert (await _advance(http, 500 * 365))["jobs_run"] == 1


async def test_advance_to_the_next_job_passes_the_retention_job_by(http):
    response = await http.post("/_emulator/clock/advance", json={"to": "next"})
    assert response.status_code == 409
    assert response.json()["error"]["code"] == "nothing_scheduled"


async def test_snapshots_and_resets_keep_exactly_one_job(http):
    assert (await http.post("/_emulator/snapshots/before")).status_code == 201
    await _advance(http, 2)
    restored = await http.post("/_emulator/snapshots/before/restore")
    assert restored.status_code == 200
    kinds = [j["kind"] for j in (await http.get("/_emulator/schedule")).json()["jobs"]]
    assert kinds == ["retention.prune"]
    assert (await http.post("/_emulator/reset")).status_code == 200
    kinds = [j["kind"] for j in (await http.get("/_emulator/schedule")).json()["jobs"]]
    assert kinds == ["retention.prune"]


async def test_with_retention_off_nothing_is_pruned(tmp_path: Path):
    async with Runtime(settings_for(tmp_path, retain_seconds=None)) as rt:
        transport = httpx.ASGITransport(app=create_app(rt))
        async with httpx.AsyncClient(transport=transport, base_url="http://e") as http:
            merchant = (await http.post("/_emulator/merchants")).json()
            gw = {"Authorization": f"Bearer {merchant['api_key']}"}
            old = await _paid_with_deliveries(http, gw, merchant)
            jobs = (await http.get("/_emulator/schedule")).json()["jobs"]
            assert "retention.prune" not in [j["kind"] for j in jobs]
            await _advance(http, 30)
            assert await _deliveries_of(http, old)


async def test_a_restart_keeps_the_pending_job_and_off_drops_it(tmp_path: Path):
    async with Runtime(settings_for(tmp_path)) as rt:
        first = await rt.db.read(lambda tx: repo.pending_prunes(tx, retention.PRUNE_JOB))
    async with Runtime(settings_for(tmp_path)) as rt:
        again = await rt.db.read(lambda tx: repo.pending_prunes(tx, retention.PRUNE_JOB))
    assert again == first and len(first) == 1
    async with Runtime(settings_for(tmp_path, retain_seconds=None)) as rt:
        assert await rt.db.read(lambda tx: repo.pending_prunes(tx, retention.PRUNE_JOB)) == []
    async with Runtime(settings_for(tmp_path, retain_seconds=600)) as rt:
        pending = await rt.db.read(lambda tx: repo.pending_prunes(tx, retention.PRUNE_JOB))
        # every half window: 5 minutes of a 10-minute window
        assert [due - rt.clock.server.now_us() for _, due in pending] == [300_000_000]


async def test_a_large_prune_goes_in_chunks_at_one_instant(
    http, gw, merchant, runtime, monkeypatch
):
    monkeypatch.setattr(retention, "CHUNK", 2)
    hook = {"title": "all", "all_events": True, "callback": SINK.format(name="hooks")}
    assert (await http.post("/api/v1/webhooks/", json=hook, headers=gw)).status_code == 201
    for _ in range(3):
        await _paid_with_deliveries(http, gw, merchant)
    before = await runtime.db.read(repo.sizes)
    assert min(before.values()) >= 6, before
    await _advance(http, 8)
    after = await runtime.db.read(repo.sizes)
    assert after == {t: 1 for t in after}  # all but the newest row of each table, chunk by chunk
    jobs = (await http.get("/_emulator/schedule")).json()["jobs"]
    assert [(j["kind"], j["due"]) for j in jobs] == [("retention.prune", "2026-01-14T09:00:00Z")]
