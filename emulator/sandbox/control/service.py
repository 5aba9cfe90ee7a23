"""Control-plane use cases: the clocks, reset and snapshots (the sink: ``sandbox.sink.service``)."""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
from collections.abc import AsyncIterator
from datetime import datetime
from typing import TYPE_CHECKING, Any

import msgspec

from emulator.core.merchants import repo as merchants_repo
from emulator.core.merchants import service as merchants
from emulator.core.retention import jobs as retention
from emulator.domain.errors import ControlError
from emulator.kernel.clock import (
    CLOCK_RANGE,
    Clock,
    ClockState,
    Mode,
    from_us,
    in_clock_range,
    iso,
    to_us,
)
from emulator.kernel.jobs import Job, pending_of, pending_on
from emulator.kernel.schema import build_database
from emulator.kernel.storage import Tx
from emulator.kernel.timeline import (
    SERVER,
    ClockBackwards,
    ClockOutOfRange,
    NothingScheduled,
    Timeline,
    TimelineReplaced,
)
from emulator.sandbox.schedule import service as schedule_view

if TYPE_CHECKING:
    from emulator.kernel.context import Context

CLOCK_KEY = "clock"


# -- clocks ----------------------------------------------------------------------------------


def clock_view(rt: Context, timeline: Timeline | None = None) -> dict[str, Any]:
    clock = (timeline or rt.scheduler.server).clock
    return {"now": iso(clock.now()), "mode": clock.mode}


def persist_clock(tx: Tx, timeline: Timeline) -> None:
    """Store a timeline's clock (each batch of an advance does, with the jobs it ran)."""
    state = timeline.clock.state()
    if timeline.key == SERVER:
        tx.execute(
            "INSERT INTO settings (key, value) VALUES (?, ?)"
            " ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            (CLOCK_KEY, msgspec.json.encode(state).decode()),
        )
    else:
        merchants_repo.save_own_clock(tx, timeline.key, state)


async def save_clock(rt: Context, timeline: Timeline | None = None) -> None:
    held = timeline or rt.scheduler.server
    await rt.db.write(lambda tx: persist_clock(tx, held))


def is_fresh(tx: Tx) -> bool:
    """A database nothing has been stored in yet (every start seeds the default merchant)."""
    return tx.one("SELECT 1 FROM merchants LIMIT 1") is None


async def load_clock(rt: Context) -> ClockState | None:
    row = await rt.db.read(
        lambda tx: tx.one("SELECT value FROM settings WHERE key = ?", (CLOCK_KEY,))
    )
    return msgspec.json.decode(row[0], type=ClockState) if row is not None else None


async def load_own_clocks(rt: Context) -> None:
    """Merchants' own clocks as stored (a start, a restore); after ``forget_own_clocks``."""
    for merchant_id, state in await rt.db.read(merchants_repo.own_clocks):
        clock = Clock()
        clock.restore(state)
        rt.scheduler.timelines.adopt(merchant_id, clock)


class Advance(msgspec.Struct, frozen=True):
    """How far: by a duration (``by_us``), to an instant (``to_us``) or to the next job."""

    by_us: int | None = None
    to_us: int | None = None
    next: bool = False


async def advance(rt: Context, how: Advance, timeline: Timeline | None = None) -> dict[str, Any]:
    held = timeline or rt.scheduler.server
    upcoming: Job | None = None
    try:
        if how.next:
            jobs_run, upcoming = await rt.scheduler.advance_to_next(held)
        elif how.to_us is not None:
            jobs_run = await rt.scheduler.advance(how.to_us, timeline=held)
        else:
            jobs_run = await rt.scheduler.advance(by_us=how.by_us, timeline=held)
    except ClockBackwards:
        raise ControlError(
            400, "invalid", "the clock only moves forward; use freeze with 'at' to jump"
        ) from None
    except ClockOutOfRange as exc:
        raise ControlError(400, "invalid", str(exc)) from None
    except NothingScheduled as exc:
        raise ControlError(409, "nothing_scheduled", str(exc)) from None
    except TimelineReplaced:
        raise _replaced() from None
    stopped = held.stopped  # a hold took something on the way (emulator/delivery/holds.py)
    await save_clock(rt, held)
    answer = {**clock_view(rt, held), "jobs_run": jobs_run}
    if stopped is not None:
        answer["stopped"] = {"hold": stopped[1], "at": iso(from_us(stopped[0]))}
    if upcoming is not None:
        job = upcoming
        answer["next"] = await rt.db.read(lambda tx: schedule_view.describe(tx, job))
    return answer


def _replaced() -> ControlError:
    return ControlError(
        409, "clock_replaced", "a reset or restore replaced this clock meanwhile; try again"
    )


@contextlib.asynccontextmanager
async def _held(rt: Context, timeline: Timeline) -> AsyncIterator[None]:
    """The timeline paused (nothing runs on it meanwhile); 409 if a reset or restore replaced
    it while this call waited for it."""
    try:
        async with rt.scheduler.paused(timeline):
            yield
    except TimelineReplaced:
        raise _replaced() from None


def _check_range(moment_us: int) -> None:
    if not in_clock_range(moment_us):
        raise ControlError(400, "invalid", f"the clock stays {CLOCK_RANGE}")


async def freeze(
    rt: Context, at: datetime | None, timeline: Timeline | None = None
) -> dict[str, Any]:
    held = timeline or rt.scheduler.server
    if at is not None:
        _check_range(to_us(at))
    async with _held(rt, held):  # an advance under way would overwrite the jump
        held.clock.freeze(to_us(at) if at is not None else None)
        await save_clock(rt, held)
    await rt.scheduler.run_due(held)
    if held is rt.scheduler.server:  # after a jump back, the prune is due from the new now
        await retention.ensure_job(rt)
    return clock_view(rt, held)


async def resume(
    rt: Context, at: datetime | None, system: bool = False, timeline: Timeline | None = None
) -> dict[str, Any]:
    """Back to real mode: from now, from ``at``, or (``system``) exactly on system time."""
    held = timeline or rt.scheduler.server
    if system and at is not None:
        raise ControlError(400, "invalid", "give 'at' or 'system', not both")
    if at is not None:
        _check_range(to_us(at))
    async with _held(rt, held):  # an advance under way would overwrite the jump
        if system:
            held.clock.configure("real", None)
        else:
            held.clock.resume(to_us(at) if at is not None else None)
        await save_clock(rt, held)
    await rt.scheduler.run_due(held)
    if held is rt.scheduler.server:  # as after a freeze
        await retention.ensure_job(rt)
    return clock_view(rt, held)


async def _merchant(rt: Context, company_id: str) -> None:
    """404 unless the merchant exists (a point read: one row by key, on the loop)."""
    if not await rt.db.read_point(lambda tx: merchants_repo.exists(tx, company_id)):
        raise ControlError(404, "merchant_not_found", f"no merchant with company_id {company_id!r}")


async def own_timeline(rt: Context, company_id: str) -> Timeline:
    """The merchant's own clock's timeline, for advance, freeze and resume."""
    await _merchant(rt, company_id)
    timeline = rt.scheduler.timeline_of(company_id)
    if timeline.key != company_id:
        raise ControlError(
            409,
            "clock_not_own",
            f"merchant {company_id} follows the server clock: give it its own clock first"
            f" (PUT /_emulator/merchants/{company_id}/clock), or move the server clock",
        )
    return timeline


async def merchant_clock(rt: Context, company_id: str) -> dict[str, Any]:
    await _merchant(rt, company_id)
    return merchants.clock_view(rt, company_id)


async def give_clock(
    rt: Context, company_id: str, mode: Mode | None, now: datetime | None
) -> dict[str, Any]:
    """The merchant owns a clock from now on (``new_clock``); a merchant that owns one has it
    set anew."""
    await _merchant(rt, company_id)
    timeline = rt.scheduler.timeline_of(company_id)
    if timeline.key == company_id:
        async with _held(rt, timeline):
            timeline.clock.configure(mode or "frozen", now or rt.clock.server.now())
            await save_clock(rt, timeline)
    else:
        clock = new_clock(rt, mode, now)

        def own(tx: Tx) -> Timeline:
            given = rt.scheduler.timelines.give_own_clock(tx, company_id, clock)
            persist_clock(tx, given)
            return given

        timeline = await rt.db.write(own)
        # its jobs left the server's timeline for its own
        await rt.scheduler.refresh(rt.scheduler.server, timeline)
    await rt.scheduler.run_due(timeline)
    return merchants.clock_view(rt, company_id)


def new_clock(rt: Context, mode: Mode | None, now: datetime | None) -> Clock:
    """A merchant's own clock as asked: frozen, at the server clock's instant, unless told."""
    return Clock(mode or "frozen", now or rt.clock.server.now())


async def schedule(
    rt: Context, timeline: Timeline, merchant_id: str | None, object_id: str | None, limit: int
) -> list[dict[str, Any]]:
    """Pending jobs, soonest first, as a user reads them: the merchant's (``merchant_id``), or
    those of every merchant on the timeline."""
    scan = limit if object_id is None else SCHEDULE_SCAN

    def read(tx: Tx) -> list[dict[str, Any]]:
        if merchant_id is not None:
            jobs = pending_of(tx, merchant_id, scan)
        else:
            jobs = pending_on(tx, timeline.key, scan)
        return schedule_view.describe_all(tx, jobs, object_id)[:limit]

    return await rt.db.read(read)


SCHEDULE_SCAN = 100_000  # jobs looked through for one object's


# -- reset and snapshots -----------------------------------------------------------------------


async def reset(rt: Context) -> None:
    """Wipe all state, put the clock back to how the emulator was started, reseed fixtures.

    One transaction of its own (never part of a group commit, so concurrent writes cannot share
    its fate): the wipe, the default merchant and the clock commit together, and no request
    ever sees the emulator without its default merchant.
    """
    # An advance under way ends first, not on top of this; deliveries under way are cancelled
    # (their jobs are wiped with everything else).
    async with rt.scheduler.paused(cancel_running=True):
        await _reset(rt)
        await rt.reload_state(wiped=True)


async def _reset(rt: Context) -> None:
    """The state becomes a new database file, built beside the old one with the default
    merchant and the clock, and swapped in as a restore swaps its copy: it costs the schema,
    not the rows stored (a DELETE of every row cost seconds with 200,000 objects)."""
    rt.journal.discard()
    rt.scheduler.timelines.forget_own_clocks()  # wiped with everything else
    server = rt.scheduler.server
    server.clock.configure(rt.settings.clock, rt.settings.start)
    seed = rt.default_merchant
    created_s = server.clock.now_us() // 1_000_000

    # Ids numbered by AUTOINCREMENT (the journal's, deliveries', the sink's) go on from where
    # they were, as they did when a reset deleted the rows: a tail reading ``?after=ID``
    # across a reset misses nothing.
    sequences = await rt.db.read(lambda tx: tx.all("SELECT name, seq FROM sqlite_sequence"))
    numbered = [(row[0], row[1]) for row in sequences]

    def fill(conn: sqlite3.Connection) -> None:
        tx = Tx(conn)
        merchants_repo.insert(tx, seed, created_s)
        persist_clock(tx, server)
        conn.execute("DELETE FROM sqlite_sequence")
        conn.executemany("INSERT INTO sqlite_sequence (name, seq) VALUES (?, ?)", numbered)

    fresh = rt.db.beside(".fresh")
    try:
        await asyncio.to_thread(build_database, fresh, fill)
        await rt.db.replace(fresh)
    finally:
        fresh.unlink(missing_ok=True)
