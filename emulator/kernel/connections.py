"""What the database's connections share: ``Tx`` (a unit of work's connection), their settings,
and the point reader, a read connection used on the event loop's own thread."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from emulator.kernel.checkpoint import WAL_LIMIT_BYTES

T = TypeVar("T")

# Python's sqlite3 (3.11) binds int, float, str and bytearray parameters as they are, and
# looks for an adapter for any other type, bytes included: two failed attribute look-ups per
# JSON blob bound (about 2 % of a purchase's instructions, nine blobs each). An adapter that
# is ``bytes`` itself hands the same object back (``bytes(b) is b``) after one dict hit.
sqlite3.register_adapter(bytes, bytes)
# None (an absent column: a purchase's token client, a journal entry's note) took the failing
# path, two attribute look-ups that raise (__adapt__, __conform__), three times a purchase. An
# adapter found in the table hands it back: ``{}.get(None)`` is None, in C.
_NONE: dict[None, None] = {}
sqlite3.register_adapter(type(None), _NONE.get)

Hook = Callable[[], None]


@dataclass
class Tx:
    """The connection a unit of work runs on, plus what to do once it has committed."""

    conn: sqlite3.Connection
    hooks: list[Hook] = field(default_factory=list)
    scratch: dict[str, dict[Any, Any]] | None = field(default=None, repr=False, compare=False)

    def execute(self, sql: str, params: Sequence[Any] | dict[str, Any] = ()) -> sqlite3.Cursor:
        return self.conn.execute(sql, params)

    def one(self, sql: str, params: Sequence[Any] | dict[str, Any] = ()) -> sqlite3.Row | None:
        row: sqlite3.Row | None = self.conn.execute(sql, params).fetchone()
        return row

    def all(self, sql: str, params: Sequence[Any] | dict[str, Any] = ()) -> list[sqlite3.Row]:
        return self.conn.execute(sql, params).fetchall()

    def after_commit(self, hook: Hook) -> None:
        """Run ``hook`` on the event loop once this unit's transaction has committed."""
        self.hooks.append(hook)

    def kept(self, name: str) -> dict[Any, Any]:
        """The dict ``name`` of this unit of work, empty at first: what its steps read once
        and reuse (a run of jobs in one unit), gone with the unit (a unit replayed after a
        failure starts with none)."""
        if self.scratch is None:
            self.scratch = {}
        return self.scratch.setdefault(name, {})


# How much of the file the connection that scans reads through a map (mmap) instead of a
# read() and a copy per page: a list page's skip over 100,000 rows took 6 ms mapped, 35 ms and
# more without. The map's pages are the kernel's page cache (clean, dropped under pressure) but
# count in the process's RSS once per connection that touched them: only that connection maps.
MAP_BYTES = 1 << 30


def configure(conn: sqlite3.Connection, *, readonly: bool, mapped: bool = False) -> None:
    """The settings of every connection; ``mapped``: the one that scans (lists, exports)."""
    conn.row_factory = sqlite3.Row
    if not readonly:
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA wal_autocheckpoint=0")  # the checkpointer's job
    # NORMAL in WAL mode: a commit survives a crash of the process (not of the machine).
    conn.execute("PRAGMA synchronous=NORMAL")
    conn.execute("PRAGMA foreign_keys=ON")
    conn.execute("PRAGMA busy_timeout=5000")
    if not readonly:  # 16 MiB, not 2: the pages a batch of writes changes stay in memory.
        # Not 64 either: a long-running server filled it (a 60 s soak: RSS 162 MiB, 112 with
        # 16), and a year of billing took no longer.
        conn.execute("PRAGMA cache_size=-16384")
        # A WAL started over is cut back to this (kernel.checkpoint makes it start over).
        conn.execute(f"PRAGMA journal_size_limit={WAL_LIMIT_BYTES}")
        # Deleted rows are not overwritten with zeros: SQLite's own default, which Debian's
        # build turns on. Zeroing wrote every pruned 3.4 KB event's page again (a year of
        # billing: 5 % of the writer's instructions, a quarter of its system time); a sandbox's
        # file keeps nothing a deletion must scrub.
        conn.execute("PRAGMA secure_delete=OFF")
    # The writer reads what its batches change from its cache; a point reader a page or two.
    conn.execute(f"PRAGMA mmap_size={MAP_BYTES if mapped else 0}")
    # Savepoints copy the pages they change into a sub-journal: in memory, not a temp file's
    # write() per page (kernel.units keeps savepoints from nesting deeply, which memory's
    # journal does badly).
    conn.execute("PRAGMA temp_store=MEMORY")
    if readonly:
        conn.execute("PRAGMA query_only=ON")


class PointReader:
    """A read connection for units that read a row or two by key (an object by id, a
    credential), run right on the event loop's thread: the hop to aiosqlite's thread and back
    (a queue, a wake-up, ``call_soon_threadsafe``) costs several times such a read. In WAL mode
    a read sees committed data only and never waits for the writer. Never for anything that can
    take long (lists, scans, exports): those block every request while they run."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._conn: sqlite3.Connection | None = None

    def open(self) -> None:
        conn = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        configure(conn, readonly=True)
        self._conn = conn

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    def read(self, unit: Callable[[Tx], T]) -> T:
        conn = self._conn
        if conn is None:
            raise RuntimeError("database is not open")
        conn.execute("BEGIN")  # one snapshot for the unit
        try:
            return unit(Tx(conn))
        finally:
            conn.execute("COMMIT")
