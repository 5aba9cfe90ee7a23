"""Snapshots: the whole state saved under a name in the snapshot folder, restored, listed."""

from __future__ import annotations

import re
import sqlite3
from typing import TYPE_CHECKING, Any

from emulator.domain.errors import ControlError
from emulator.kernel.clock import (
    iso,
)
from emulator.kernel.dbfile import NotADatabase
from emulator.sandbox.control.service import (
    clock_view,
    load_clock,
    load_own_clocks,
    save_clock,
)

if TYPE_CHECKING:
    from emulator.kernel.context import Context


SNAPSHOT_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}\Z")


def _snapshot_path(rt: Context, name: str) -> Any:
    if not SNAPSHOT_NAME.match(name):
        raise ControlError(
            400, "invalid", "snapshot names are 1-64 letters, digits, '.', '_' or '-'"
        )
    return rt.snapshot_dir / f"{name}.sqlite"


async def save_snapshot(rt: Context, name: str) -> dict[str, Any]:
    path = _snapshot_path(rt, name)
    await rt.journal.flush()
    await save_clock(rt)
    for timeline in list(rt.scheduler.timelines.values()):
        await save_clock(rt, timeline)  # a real clock's state moves on: stored as of now
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
    return {"name": name, "saved_at": iso(rt.clock.server.now())}


async def restore_snapshot(rt: Context, name: str) -> dict[str, Any]:
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
            rt.clock.server.restore(state)
        rt.scheduler.timelines.forget_own_clocks()
        await load_own_clocks(rt)
        await rt.reload_state(wiped=False)
        return {"name": name, "restored": True, **clock_view(rt)}


def list_snapshots(rt: Context) -> list[str]:
    if not rt.snapshot_dir.is_dir():
        return []
    return sorted(p.stem for p in rt.snapshot_dir.glob("*.sqlite"))
