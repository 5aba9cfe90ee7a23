"""The request journal: every interface request with its status and bodies.

Entries are queued to the writer without waiting (``Database.write_later``), so journaling
costs a request no extra commit; reads go through ``Database.barrier`` first, so a reader
always sees every request answered before it asked.
"""

from __future__ import annotations

from typing import Any

import msgspec

from emulator.kernel.clock import from_us, iso
from emulator.kernel.storage import Database, Tx

BODY_LIMIT = 64 * 1024  # characters of each body kept
KEEP = 50_000  # entries kept; older ones are pruned


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


def body_text(raw: bytes) -> str:
    text = raw[: BODY_LIMIT * 4].decode("utf-8", errors="replace")
    return text[:BODY_LIMIT]


class Journal:
    def __init__(self, db: Database) -> None:
        self._db = db
        self._written = 0

    def record(self, entry: Entry) -> None:
        self._written += 1
        prune = self._written % 1000 == 0
        self._db.write_later(lambda tx: _insert(tx, entry, prune))

    async def list(
        self, *, merchant_id: str | None, limit: int, before_id: int | None
    ) -> list[dict[str, Any]]:
        await self._db.barrier()
        return await self._db.read(lambda tx: _select(tx, merchant_id, limit, before_id))


def _insert(tx: Tx, e: Entry, prune: bool) -> None:
    tx.execute(
        "INSERT INTO requests (at_us, merchant_id, interface, method, path, query, status,"
        " request_body, response_body, duration_us) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
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
        ),
    )
    if prune:
        tx.execute("DELETE FROM requests WHERE id <= (SELECT MAX(id) FROM requests) - ?", (KEEP,))


def _select(
    tx: Tx, merchant_id: str | None, limit: int, before_id: int | None
) -> list[dict[str, Any]]:
    clauses: list[str] = []
    params: list[object] = []
    if merchant_id is not None:
        clauses.append("merchant_id = ?")
        params.append(merchant_id)
    if before_id is not None:
        clauses.append("id < ?")
        params.append(before_id)
    where = f"WHERE {' AND '.join(clauses)}" if clauses else ""
    rows = tx.all(f"SELECT * FROM requests {where} ORDER BY id DESC LIMIT ?", (*params, limit))
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
        }
        for r in rows
    ]
