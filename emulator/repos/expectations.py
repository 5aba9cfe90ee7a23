"""A merchant's records for expectations (``domain.expectation_records``): its journal
entries, delivery attempts and outbox events, oldest first, always by merchant (an
expectation never sees another merchant's records). Each read narrows in SQL by what the
expectations ask, where an index or a cheap filter can."""

from __future__ import annotations

import re

from emulator.domain.expectation_records import DeliveryRecord, EventRecord, RequestRecord
from emulator.kernel.storage import Tx

MAX_ROWS = 100_000  # per kind and read: the journal keeps 50,000 entries in all


def _marks(values: list[str]) -> str:
    return ", ".join("?" for _ in values)


def path_glob(template: str) -> str:
    """A GLOB that every path the template (or glob) matches also matches: a superset, for
    SQLite to narrow with; the exact match is the domain's."""
    literal = re.sub(r"[\[\]?]", lambda m: f"[{m.group(0)}]", template.rstrip("/"))
    return re.sub(r"\{[^}/]*\}|\*\*", "*", literal) + "*"


def requests(
    tx: Tx,
    merchant_id: str,
    methods: list[str] | None,
    paths: list[str] | None,
    with_bodies: bool,
) -> list[RequestRecord]:
    """The merchant's journal entries (only these methods, and paths like these, when
    given)."""
    where, params = "merchant_id = ?", [merchant_id]
    if methods:
        where += f" AND method IN ({_marks(methods)})"
        params.extend(methods)
    if paths:
        where += " AND (" + " OR ".join("path GLOB ?" for _ in paths) + ")"
        params.extend(path_glob(p) for p in paths)
    body = "request_body" if with_bodies else "''"
    rows = tx.conn.execute(
        f"SELECT id, at_us, interface, method, path, status, {body} FROM requests"
        f" WHERE {where} ORDER BY id LIMIT {MAX_ROWS}",
        params,
    ).fetchall()
    return [RequestRecord(r[0], r[1], r[2], r[3], r[4], r[5], r[6]) for r in rows]


def deliveries(
    tx: Tx, merchant_id: str, object_ids: list[str] | None = None
) -> list[DeliveryRecord]:
    """The merchant's delivery attempts, with their messages' event, object and URL (only
    these objects' when given: the attempts' object index answers)."""
    where, params = "a.merchant_id = ?", [merchant_id]
    if object_ids:
        where = f"a.object_id IN ({_marks(object_ids)}) AND a.merchant_id = ?"
        params = [*object_ids, merchant_id]
    rows = tx.conn.execute(
        "SELECT a.id, a.at_us, m.id, m.event_type, m.object_type, m.object_id, m.kind, m.url,"
        " a.attempt, a.status, a.error, a.success FROM delivery_attempts a"
        " JOIN delivery_messages m ON m.id = a.message_id"
        f" WHERE {where} ORDER BY a.id LIMIT {MAX_ROWS}",
        params,
    ).fetchall()
    return [
        DeliveryRecord(
            r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], r[8], r[9], r[10], bool(r[11])
        )
        for r in rows
    ]


def events(
    tx: Tx, merchant_id: str, object_ids: list[str] | None, with_payloads: bool
) -> list[EventRecord]:
    """The merchant's outbox events, in order (only these objects' when given: the outbox's
    object index answers); each with its payload's ``status``."""
    params: list[object] = [merchant_id]
    if object_ids:
        where = (
            f"object_id IN ({_marks(object_ids)}) AND merchant_id = ? AND object_type <> 'client'"
        )
        params = [*object_ids, merchant_id]
    else:
        where = "merchant_id = ?"
    payload = "payload" if with_payloads else "NULL"
    rows = tx.conn.execute(
        "SELECT seq, id, created_us, event_type, object_type, object_id,"
        f" json_extract(CAST(payload AS TEXT), '$.status'), {payload} FROM outbox"
        f" WHERE {where} ORDER BY seq LIMIT {MAX_ROWS}",
        params,
    ).fetchall()
    return [
        EventRecord(
            r[0], r[1], r[2], r[3], r[4], r[5],
            None if r[6] is None else str(r[6]),
            bytes(r[7]) if r[7] is not None else b"{}",
        )
        for r in rows
    ]  # fmt: skip


def created_us(tx: Tx, merchant_id: str) -> int | None:
    row = tx.one("SELECT created_us FROM merchants WHERE id = ?", (merchant_id,))
    return None if row is None else int(row[0])


def journal_rows(tx: Tx, merchant_id: str, limit: int) -> list[dict[str, object]]:
    """The merchant's latest journal entries, whole (for an HTTP Archive), oldest first."""
    rows = tx.all(
        "SELECT id, at_us, interface, method, path, query, status, request_body, response_body,"
        " duration_us FROM requests WHERE merchant_id = ? ORDER BY id DESC LIMIT ?",
        (merchant_id, limit),
    )
    return [dict(r) for r in reversed(rows)]


def delivery_rows(tx: Tx, merchant_id: str, limit: int) -> list[dict[str, object]]:
    """The merchant's latest delivery attempts with what they sent, oldest first."""
    rows = tx.all(
        "SELECT a.id, a.at_us, a.attempt, a.status, a.error, a.success, a.duration_us,"
        " m.event_type, m.object_id, m.kind, m.url, m.headers, m.body"
        " FROM delivery_attempts a JOIN delivery_messages m ON m.id = a.message_id"
        " WHERE a.merchant_id = ? ORDER BY a.id DESC LIMIT ?",
        (merchant_id, limit),
    )
    return [dict(r) for r in reversed(rows)]
