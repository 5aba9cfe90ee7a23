"""The request journal: every interface request with its status and bodies.

Entries are buffered in memory and written in one statement every ``FLUSH_SECONDS`` (or once
``FLUSH_ENTRIES`` or ``FLUSH_CHARS`` of bodies wait, or when someone reads the journal, takes
a snapshot or stops the emulator), so journaling costs a
request neither a commit nor a thread hop. A reader flushes first, so it always sees every
request answered before it asked. A crash can lose the last fraction of a second of entries:
the journal is a record of traffic, not state that anything depends on.
"""

from __future__ import annotations

import asyncio
import codecs
from typing import Any

import msgspec

from emulator.kernel.clock import from_us, iso
from emulator.kernel.notices import Notices
from emulator.kernel.storage import Database, Tx

BODY_LIMIT = 64 * 1024  # bytes of each body kept (as sent; cut, then decoded)
KEEP = 50_000  # entries kept; older ones are pruned
# Each flush deletes at most as many of the oldest entries over KEEP as it wrote, plus this
# many: the table stays at KEEP once it is there, a backlog (an earlier run's, a lower KEEP)
# goes a little at every flush, and no prune holds the one writer for long (a large delete
# stalls every request queued behind it).
PRUNE_STEP = 64
# Every write of entries costs a lone request in flight a stall of the writer: few writes
# keep a client's p99 down. A reader flushes first, so it never sees less.
FLUSH_SECONDS = 0.25
FLUSH_ENTRIES = 2_000  # ...or as soon as this many are waiting (memory stays bounded)
# ...or once the waiting bodies hold this many characters: a write holds the one writer for
# as long as its bodies are big, so no write of large bodies grows long enough to stall the
# requests queued behind it. Small bodies (reads) still go a few hundred at a time.
FLUSH_CHARS = 512 * 1024


class Entry(msgspec.Struct, frozen=True):
    at_us: int
    merchant_id: str | None
    interface: str
    method: str
    path: str
    query: str
    status: int
    request_body: str
    response_body: str
    duration_us: int
    note: str | None = None  # why it was refused (a 401: which credential, and how)
    warnings: str | None = None  # keys the platform ignores, one warning per line


def body_text(raw: bytes) -> str:
    """At most BODY_LIMIT bytes of ``raw`` as text, never ending in half a character."""
    if len(raw) <= BODY_LIMIT:  # nearly always: no decoder object on every request
        return raw.decode("utf-8", errors="replace")
    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
    return decoder.decode(raw[:BODY_LIMIT], final=False)  # drops a trailing half character


class Journal:
    def __init__(self, db: Database) -> None:
        self._db = db
        self._buffer: list[Entry] = []
        self._chars = 0
        self._timer: asyncio.TimerHandle | None = None
        self.notices: Notices | None = None  # told of each entry (waits flush, then read)
        # The id of the newest entry written or on its way (None: not known yet). Entries
        # are written with the ids that follow it, so ``last_id`` needs no flush: a move
        # noted for the flow recorder (each payment, payout execution or settle) cost a
        # write of the journal, and the deliveries figure lost a quarter of its rate.
        self._top: int | None = None
        self._stale = False  # set by the writer's thread: ``_top`` is to be read again

    def record(self, entry: Entry) -> None:
        self._buffer.append(entry)
        self._chars += len(entry.request_body) + len(entry.response_body)
        if len(self._buffer) >= FLUSH_ENTRIES or self._chars >= FLUSH_CHARS:
            if self._timer is not None:
                self._timer.cancel()
            self._write()
        elif self._timer is None:
            loop = self._db.loop
            assert loop is not None, "the database is not open"
            self._timer = loop.call_later(FLUSH_SECONDS, self._write)
        if self.notices is not None:
            self.notices.notify(entry.merchant_id, "request")

    def _write(self) -> None:
        self._timer = None
        entries, self._buffer, self._chars = self._buffer, [], 0
        if not entries:
            return
        self._check_top()
        first = None if self._top is None else self._top + 1
        if self._top is not None:
            self._top += len(entries)

        def unit(tx: Tx) -> None:
            if not _insert(tx, entries, first):  # the ids were taken meanwhile: read them again
                self._stale = True

        self._db.write_later(unit)

    async def flush(self) -> None:
        """Write what is buffered and wait until it has committed."""
        if self._timer is not None:
            self._timer.cancel()
        self._write()
        await self._db.barrier()

    async def last_id(self) -> int:
        """The id of the newest entry (0: none), every entry answered before counted (those
        still buffered: the ids they will be written with)."""
        self._check_top()
        if self._top is not None:
            return self._top + len(self._buffer)
        await self.flush()
        top = await self._db.read(_last_id)
        if self._top is None and not self._buffer:
            self._top = top
        return top + len(self._buffer)

    def _check_top(self) -> None:
        if self._stale:
            self._stale, self._top = False, None

    def discard(self) -> None:
        """Forget what is buffered (the whole state is being replaced)."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self._buffer, self._chars = [], 0
        self._top = None  # the state's own ids are read again

    async def list(
        self,
        *,
        merchant_id: str | None,
        limit: int,
        before_id: int | None,
        after_id: int | None = None,
    ) -> list[dict[str, Any]]:
        """Newest first; with `after_id`, the entries after it, oldest first."""
        await self.flush()
        return await self._db.read(lambda tx: _select(tx, merchant_id, limit, before_id, after_id))


def _insert(tx: Tx, entries: list[Entry], first: int | None) -> bool:
    """Write the entries, with the ids from ``first`` on when given and still free (ids are
    never reused: a merchant's deletion leaves no gap that a later entry would fill); whether
    they got those ids."""
    top = _last_id(tx)
    planned = first is not None and first > top
    start = first if planned and first is not None else top + 1
    tx.conn.executemany(
        "INSERT INTO requests (id, at_us, merchant_id, interface, method, path, query, status,"
        " request_body, response_body, duration_us, note, warnings)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [
            (
                start + i,
                e.at_us,
                e.merchant_id,
                e.interface,
                e.method,
                e.path,
                e.query,
                e.status,
                e.request_body,
                e.response_body,
                e.duration_us,
                e.note,
                e.warnings,
            )
            for i, e in enumerate(entries)
        ],
    )
    # The oldest ids, up to the newest KEEP (MIN and MAX of the key: two index probes).
    tx.execute(
        "DELETE FROM requests WHERE id <= MIN((SELECT MIN(id) FROM requests) + ?,"
        " (SELECT MAX(id) FROM requests) - ?)",
        (len(entries) + PRUNE_STEP - 1, KEEP),
    )
    return planned


def _last_id(tx: Tx) -> int:
    row = tx.one("SELECT MAX(id) FROM requests")
    return int(row[0] or 0) if row is not None else 0


def _select(
    tx: Tx, merchant_id: str | None, limit: int, before_id: int | None, after_id: int | None
) -> list[dict[str, Any]]:
    clauses: list[str] = []
    params: list[object] = []
    if merchant_id is not None:
        clauses.append("merchant_id = ?")
        params.append(merchant_id)
    if before_id is not None:
        clauses.append("id < ?")
        params.append(before_id)
    if after_id is not None:
        clauses.append("id > ?")
        params.append(after_id)
    where = f"WHERE {' AND '.join(clauses)}" if clauses else ""
    order = "ASC" if after_id is not None else "DESC"
    rows = tx.all(f"SELECT * FROM requests {where} ORDER BY id {order} LIMIT ?", (*params, limit))
    return [
        {
            "id": r["id"],
            "time": iso(from_us(r["at_us"])),
            "merchant": r["merchant_id"],
            "interface": r["interface"],
            "method": r["method"],
            "path": r["path"],
            "query": r["query"],
            "status": r["status"],
            "request_body": r["request_body"],
            "response_body": r["response_body"],
            "duration_ms": round(r["duration_us"] / 1000, 3),
            "note": r["note"],
            "warnings": r["warnings"].split("\n") if r["warnings"] else [],
        }
        for r in rows
    ]
