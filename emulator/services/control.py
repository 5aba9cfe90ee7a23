"""Control-plane use cases: the clock, reset, snapshots and the built-in sink."""

from __future__ import annotations

import re
import sqlite3
from datetime import datetime
from typing import TYPE_CHECKING, Any

import msgspec

from emulator.kernel.clock import CLOCK_RANGE, ClockState, in_clock_range, iso, to_us
from emulator.kernel.dbfile import NotADatabase
from emulator.kernel.scheduler import ClockBackwards, ClockOutOfRange
from emulator.kernel.storage import Tx
from emulator.repos import merchants as merchants_repo
from emulator.repos import sink as sink_repo

if TYPE_CHECKING:
    from emulator.runtime import Runtime

CLOCK_KEY = "clock"
SNAPSHOT_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
SINK_NAME = SNAPSHOT_NAME


class ControlError(Exception):
    """A control-plane request that cannot be done; ``status`` is its HTTP status."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message


# -- clock -----------------------------------------------------------------------------------


def clock_view(rt: Runtime) -> dict[str, Any]:
    return {"now": iso(rt.clock.now()), "mode": rt.clock.mode}


def persist_clock(tx: Tx, state: ClockState) -> None:
    tx.execute(
        "INSERT INTO settings (key, value) VALUES (?, ?)"
        " ON CONFLICT (key) DO UPDATE SET value = excluded.value",
        (CLOCK_KEY, msgspec.json.encode(state).decode()),
    )


async def save_clock(rt: Runtime) -> None:
    state = rt.clock.state()
    await rt.db.write(lambda tx: persist_clock(tx, state))


def is_fresh(tx: Tx) -> bool:
    """A database nothing has been stored in yet (every start seeds the default merchant)."""
    return tx.one("SELECT 1 FROM merchants LIMIT 1") is None


async def load_clock(rt: Runtime) -> ClockState | None:
    row = await rt.db.read(
        lambda tx: tx.one("SELECT value FROM settings WHERE key = ?", (CLOCK_KEY,))
    )
    return msgspec.json.decode(row[0], type=ClockState) if row is not None else None


async def advance(rt: Runtime, seconds: float | None, to: datetime | None) -> dict[str, Any]:
    if (seconds is None) == (to is None):
        raise ControlError(400, "invalid", "give exactly one of 'seconds' or 'to'")
    if to is not None:
        target = {"target_us": to_us(to)}
    else:
        assert seconds is not None
        target = {"by_us": round(seconds * 1_000_000)}
    try:
        jobs_run = await rt.scheduler.advance(**target)
    except ClockBackwards:
        raise ControlError(
            400, "invalid", "the clock only moves forward; use freeze with 'at' to jump"
        ) from None
    except ClockOutOfRange as exc:
        raise ControlError(400, "invalid", str(exc)) from None
    await save_clock(rt)
    return {**clock_view(rt), "jobs_run": jobs_run}


def _check_range(moment_us: int) -> None:
    if not in_clock_range(moment_us):
        raise ControlError(400, "invalid", f"the clock stays {CLOCK_RANGE}")


async def freeze(rt: Runtime, at: datetime | None) -> dict[str, Any]:
    if at is not None:
        _check_range(to_us(at))
    async with rt.scheduler.paused():  # an advance under way would overwrite the jump
        rt.clock.freeze(to_us(at) if at is not None else None)
        await save_clock(rt)
    await rt.scheduler.run_due()
    return clock_view(rt)


async def resume(rt: Runtime, at: datetime | None, system: bool = False) -> dict[str, Any]:
    """Back to real mode: from now, from ``at``, or (``system``) exactly on system time."""
    if system and at is not None:
        raise ControlError(400, "invalid", "give 'at' or 'system', not both")
    if at is not None:
        _check_range(to_us(at))
    async with rt.scheduler.paused():  # an advance under way would overwrite the jump
        if system:
            rt.clock.configure("real", None)
        else:
            rt.clock.resume(to_us(at) if at is not None else None)
        await save_clock(rt)
    await rt.scheduler.run_due()
    return clock_view(rt)


# -- reset and snapshots -----------------------------------------------------------------------


async def reset(rt: Runtime) -> None:
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


async def _reset(rt: Runtime) -> None:
    rt.journal.discard()
    rt.clock.configure(rt.settings.clock, rt.settings.start)
    state = rt.clock.state()
    seed = rt.default_merchant
    created_s = rt.clock.now_us() // 1_000_000

    def wipe(conn: sqlite3.Connection) -> None:
        conn.execute("BEGIN IMMEDIATE")  # rolled back by the storage layer if anything fails
        conn.execute("PRAGMA defer_foreign_keys = ON")
        # Every table is state but the migrations' own record (and SQLite's bookkeeping).
        tables = conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table'"
            " AND name NOT IN ('schema_migrations', 'sqlite_sequence')"
        ).fetchall()
        for (table,) in tables:
            conn.execute(f'DELETE FROM "{table}"')
        tx = Tx(conn)
        merchants_repo.insert(tx, seed, created_s)
        persist_clock(tx, state)
        conn.execute("COMMIT")

    await rt.db.exclusive(wipe)


def _snapshot_path(rt: Runtime, name: str) -> Any:
    if not SNAPSHOT_NAME.match(name):
        raise ControlError(
            400, "invalid", "snapshot names are 1-64 letters, digits, '.', '_' or '-'"
        )
    return rt.snapshot_dir / f"{name}.sqlite"


async def save_snapshot(rt: Runtime, name: str) -> dict[str, Any]:
    path = _snapshot_path(rt, name)
    await rt.journal.flush()
    await save_clock(rt)
    rt.snapshot_dir.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(".partial")

    def copy(conn: sqlite3.Connection) -> None:
        target = sqlite3.connect(partial)
        try:
            conn.backup(target)
        finally:
            target.close()
        partial.replace(path)

    await rt.db.exclusive(copy)
    return {"name": name, "saved_at": iso(rt.clock.now())}


async def restore_snapshot(rt: Runtime, name: str) -> dict[str, Any]:
    path = _snapshot_path(rt, name)
    if not path.is_file():
        raise ControlError(404, "snapshot_not_found", f"no snapshot named {name!r}")
    # An advance under way ends first; deliveries under way are cancelled (the restored state
    # has its own jobs).
    async with rt.scheduler.paused(cancel_running=True):
        rt.journal.discard()
        try:
            await rt.db.replace(path)
        except (NotADatabase, sqlite3.DatabaseError) as exc:  # the live database is unchanged
            raise ControlError(
                400, "invalid_snapshot", f"snapshot {name!r} cannot be restored: {exc}"
            ) from None
        except OSError as exc:
            raise ControlError(
                500, "restore_failed", f"snapshot {name!r} could not be copied in: {exc}"
            ) from None
        state = await load_clock(rt)
        if state is not None:
            rt.clock.restore(state)
        await rt.reload_state(wiped=False)
        return {"name": name, "restored": True, **clock_view(rt)}


def list_snapshots(rt: Runtime) -> list[str]:
    if not rt.snapshot_dir.is_dir():
        return []
    return sorted(p.stem for p in rt.snapshot_dir.glob("*.sqlite"))


# -- sink ----------------------------------------------------------------------------------------


def _check_sink(name: str) -> None:
    if not SINK_NAME.match(name):
        raise ControlError(400, "invalid", "sink names are 1-64 letters, digits, '.', '_' or '-'")


async def sink_receive(
    rt: Runtime, name: str, method: str, path: str, headers: dict[str, str], body: str
) -> int:
    _check_sink(name)
    at = rt.clock.now_us()
    return await rt.db.write(lambda tx: sink_repo.insert(tx, name, at, method, path, headers, body))


async def sink_messages(rt: Runtime, name: str) -> list[dict[str, Any]]:
    _check_sink(name)
    await rt.db.barrier()
    return await rt.db.read(lambda tx: sink_repo.messages(tx, name))


async def sink_clear(rt: Runtime, name: str) -> int:
    _check_sink(name)
    return await rt.db.write(lambda tx: sink_repo.clear(tx, name))
