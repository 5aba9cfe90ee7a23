"""The latest of a merchant's requests, deliveries and events, newest first, for the
``/requests``, the HAR view and a timeline; and when the merchant was made."""

from __future__ import annotations

from emulator.kernel.storage import Tx
from emulator.sandbox.expectations.model_records import (
    DeliveryRecord,
    EventRecord,
    RequestRecord,
)
from emulator.sandbox.expectations.repo import deliveries_where, events_where, requests_where


def tail_requests(tx: Tx, merchant_id: str, limit: int) -> list[RequestRecord]:
    where = f"merchant_id = ? ORDER BY id DESC LIMIT {int(limit)}"
    return requests_where(tx, f"id IN (SELECT id FROM requests WHERE {where}) ORDER BY id",
                     [merchant_id], "request_body")  # fmt: skip


def tail_deliveries(tx: Tx, merchant_id: str, limit: int) -> list[DeliveryRecord]:
    latest = (
        "SELECT id FROM delivery_attempts WHERE merchant_id = ?"
        f" ORDER BY id DESC LIMIT {int(limit)}"
    )
    return deliveries_where(tx, f"a.id IN ({latest}) ORDER BY a.id", [merchant_id])


def tail_events(tx: Tx, merchant_id: str, limit: int) -> list[EventRecord]:
    latest = f"SELECT seq FROM outbox WHERE merchant_id = ? ORDER BY seq DESC LIMIT {int(limit)}"
    return events_where(tx, f"seq IN ({latest}) ORDER BY seq", [merchant_id], True, True)


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
