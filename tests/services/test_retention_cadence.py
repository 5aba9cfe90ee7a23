"""How often retention runs (every half window: a row is gone at most half a window after it
left the window), what a long run at a short window keeps (the files stop growing), and the
far jumps of the clock that must still run it once and answer at once."""

from __future__ import annotations

import contextlib
import logging
import sqlite3
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from emulator.core.retention import jobs as retention
from emulator.core.retention import repo
from emulator.kernel import checkpoint
from emulator.runtime.runtime import Runtime
from emulator.serving.app import create_app
from tests.conftest import settings_for
from tests.http.purchase_helpers import create, pay

SINK = "http://127.0.0.1:8400/_emulator/sink/{name}"
PRUNED = ("outbox", "delivery_messages", "delivery_attempts", "sink_messages")


@contextlib.asynccontextmanager
async def emulator(tmp_path: Path, retain: int | None) -> AsyncIterator[tuple[Runtime, Any]]:
    async with Runtime(settings_for(tmp_path, retain_seconds=retain)) as rt:
        transport = httpx.ASGITransport(app=create_app(rt))
        async with httpx.AsyncClient(transport=transport, base_url="http://e") as http:
            yield rt, http


async def _schedule(http: httpx.AsyncClient) -> list[tuple[str, str]]:
    jobs = (await http.get("/_emulator/schedule")).json()["jobs"]
    return [(j["kind"], j["due"]) for j in jobs]


async def _advance(http: httpx.AsyncClient, **by: float) -> int:
    response = await http.post("/_emulator/clock/advance", json=by)
    assert response.status_code == 200, response.text
    ran: int = response.json()["jobs_run"]
    return ran


@pytest.mark.parametrize(
    ("retain", "due"),
    [
        (60, "2026-01-05T09:00:30Z"),  # --retain 1m: every 30 s, no longer once a minute
        (10, "2026-01-05T09:00:05Z"),
        (1, "2026-01-05T09:00:01Z"),  # at most once a second
        (2 * 3600, "2026-01-05T10:00:00Z"),
        (10 * 86_400, "2026-01-06T09:00:00Z"),  # at least once a day
    ],
)
async def test_the_job_runs_every_half_window(tmp_path: Path, retain: int, due: str):
    async with emulator(tmp_path, retain) as (_, http):
        assert await _schedule(http) == [("retention.prune", due)]


async def test_a_row_is_gone_at_most_half_a_window_after_it_left_it(tmp_path: Path):
    """--retain 1m: a delivery made at 0 s is still there at 60 s (inside the window), gone
    by 90 s (the prune of 90 s drops what is older than 30 s)."""
    async with emulator(tmp_path, 60) as (_, http):
        gw, merchant = await _merchant_with_a_webhook(http)
        old = await _paid(http, gw, merchant)
        assert await _advance(http, seconds=60) == 1  # the prune due at 30 s, run at 60 s
        await _paid(http, gw, merchant)  # the newest rows are never deleted: these are
        assert await _deliveries_of(http, old)
        await _advance(http, seconds=30)
        assert await _deliveries_of(http, old) == []


async def _merchant_with_a_webhook(http: httpx.AsyncClient) -> tuple[dict[str, str], Any]:
    merchant = (await http.post("/_emulator/merchants")).json()
    gw = {"Authorization": f"Bearer {merchant['api_key']}"}
    hook = {"title": "all", "all_events": True, "callback": SINK.format(name="hooks")}
    assert (await http.post("/api/v1/webhooks/", json=hook, headers=gw)).status_code == 201
    return gw, merchant


async def _paid(http: httpx.AsyncClient, gw: dict[str, str], merchant: Any) -> str:
    purchase = await create(http, gw, merchant, success_callback=SINK.format(name="paid"))
    assert (await pay(http, purchase["id"])).status_code == 200
    assert (await http.get("/_emulator/sink/hooks")).status_code == 200  # sends have arrived
    return str(purchase["id"])


async def _deliveries_of(http: httpx.AsyncClient, object_id: str) -> list[Any]:
    answer = await http.get("/_emulator/deliveries", params={"object_id": object_id})
    found: list[Any] = answer.json()["deliveries"]
    return found


def _history_bytes(db: Path) -> int:
    """Bytes the pruned tables and their indexes take in the file, with its free pages
    (which the next rows reuse): the part of the file retention keeps bounded."""
    with contextlib.closing(sqlite3.connect(db)) as conn:
        names = [
            r[0]
            for r in conn.execute(
                "SELECT name FROM sqlite_master WHERE tbl_name IN (?, ?, ?, ?)", PRUNED
            )
        ]
        marks = ", ".join("?" for _ in names)
        used = conn.execute(f"SELECT SUM(pgsize) FROM dbstat WHERE name IN ({marks})", names)
        free = conn.execute("PRAGMA freelist_count").fetchone()[0]
        size = conn.execute("PRAGMA page_size").fetchone()[0]
        return int(used.fetchone()[0] or 0) + int(free) * int(size)


async def test_a_long_run_at_a_one_minute_window_stops_growing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    """--retain 1m on the emulator's clock: 20 s steps, each making paid purchases with their
    webhooks, success callbacks and sink messages. Once a window and a half has passed, the
    history tables hold a steady number of rows and their share of the file (with the free
    pages new rows reuse) stops growing; what grows is state, the purchases, never pruned.
    The WAL starts over once it has RESTART_FRAMES frames, all copied back (64 MiB; 1 MiB
    here, so that this short run writes many times as much), when the writer is idle, or at
    RESTART_CEILING times that at once: it stays bounded."""
    monkeypatch.setattr("emulator.kernel.checkpoint.RESTART_FRAMES", 256)
    rounds, warm = 40, 12
    rows: list[dict[str, int]] = []
    history: list[int] = []
    wal: list[int] = []
    async with emulator(tmp_path, 60) as (rt, http):
        gw, merchant = await _merchant_with_a_webhook(http)
        db = rt.settings.db_path
        for _ in range(rounds):
            for _ in range(3):
                await _paid(http, gw, merchant)
            await _advance(http, seconds=20)
            await rt.journal.flush()
            rows.append(await rt.db.read(repo.sizes))
            history.append(_history_bytes(db))
            wal_file = db.with_name(db.name + "-wal")
            wal.append(wal_file.stat().st_size if wal_file.exists() else 0)
    made = {t: rows[warm - 1][t] for t in PRUNED}
    # 1.5 windows of 20 s steps at 3 purchases a step, give or take a step
    assert all(0 < n for n in made.values()), made
    for later in rows[warm:]:
        assert all(later[t] <= made[t] * 1.25 + 3 for t in PRUNED), (made, later)
    assert max(history[warm:]) <= history[warm - 1] * 1.25 + 64 * 1024, history
    assert history[-1] > 0
    # In this run the WAL grows about 1 MiB a round until the ceiling (4 x 256 frames of
    # 4 KiB) starts it over, then stays at the size reached: 6-7 MB on a quiet machine, 9.6 MB
    # once on a loaded one (what is committed while a start over waits for its moment).
    # Unbounded, this run's WAL reached 18 MB.
    ceiling = checkpoint.RESTART_CEILING * 256 * 4096
    assert max(wal[warm:]) <= 3 * ceiling, wal
    assert rows[-1]["delivery_messages"] * 2 < rounds * 3, rows[-1]  # most were pruned


async def test_a_freeze_near_the_end_of_time_answers_and_can_be_undone(tmp_path: Path, caplog):
    """Freezing at 8999-12-31 runs the overdue prune once and answers at once; freezing back
    at an earlier instant works, and retention runs at its cadence again from there (not at
    the far instant it was last rescheduled to)."""
    caplog.set_level(logging.INFO, logger=retention.__name__)
    async with emulator(tmp_path, 7 * 86_400) as (rt, http):
        gw, merchant = await _merchant_with_a_webhook(http)
        await _paid(http, gw, merchant)
        await _paid(http, gw, merchant)
        started = time.perf_counter()
        far = await http.post("/_emulator/clock/freeze", json={"at": "8999-12-31T00:00:00Z"})
        assert far.status_code == 200, far.text
        assert time.perf_counter() - started <= 1.0
        assert far.json()["now"] == "8999-12-31T00:00:00Z"
        pruned = [r for r in caplog.records if r.getMessage().startswith("retention: pruned")]
        assert len(pruned) == 1
        assert await rt.db.read(repo.sizes) == {t: 1 for t in PRUNED}
        back = await http.post("/_emulator/clock/freeze", json={"at": "2026-02-01T00:00:00Z"})
        assert back.status_code == 200, back.text
        assert (await http.get("/_emulator/clock")).json()["now"] == "2026-02-01T00:00:00Z"
        assert await _schedule(http) == [("retention.prune", "2026-02-02T00:00:00Z")]
        assert await _advance(http, days=1) == 1
        resumed = await http.post("/_emulator/clock/resume", json={"at": "2026-03-01T00:00:00Z"})
        assert resumed.status_code == 200
        assert [k for k, _ in await _schedule(http)] == ["retention.prune"]


@pytest.mark.parametrize(("retain", "days"), [(7 * 86_400, 10_950), (60, 10)])
async def test_a_long_advance_prunes_once(tmp_path: Path, caplog, retain: int, days: int):
    """30 years at the default window, 10 days at a one-minute window (14,400 half windows):
    one prune, at the end, and the next counted from there."""
    caplog.set_level(logging.INFO, logger=retention.__name__)
    async with emulator(tmp_path, retain) as (rt, http):
        gw, merchant = await _merchant_with_a_webhook(http)
        await _paid(http, gw, merchant)
        await _paid(http, gw, merchant)
        await _advance(http, days=1)  # the purchases' own jobs (due dates) run now
        caplog.clear()
        started = time.perf_counter()
        assert await _advance(http, days=days) == 1
        assert time.perf_counter() - started <= 1.0
        pruned = [r for r in caplog.records if r.getMessage().startswith("retention: pruned")]
        assert len(pruned) <= 1
        assert await rt.db.read(repo.sizes) == {t: 1 for t in PRUNED}
        (job,) = await _schedule(http)
        assert job[0] == "retention.prune"
