"""The delivery operations in SQLite: the log filtered, the messages a replay or recover
picks, endpoints switched off and the messages they keep, a merchant's delivery settings."""

from __future__ import annotations

from typing import Any

from emulator.delivery.repo import ATTEMPT_COLUMNS, OPEN
from emulator.domain.delivery_filters import FINAL_ATTEMPT, DeliveryFilter
from emulator.kernel.storage import Tx


def _common(f: DeliveryFilter, merchant: str) -> tuple[list[str], list[object]]:
    where: list[str] = []
    params: list[object] = []
    for column, value in (
        (merchant, f.merchant),
        ("m.event_type", f.event_type),
        ("m.url", f.url),
        ("m.kind", f.kind),
    ):
        if value is not None:
            where.append(f"{column} = ?")
            params.append(value)
    return where, params


def attempts(
    tx: Tx, f: DeliveryFilter, limit: int, before_id: int | None, after_id: int | None
) -> list[dict[str, Any]]:
    """The log: attempts newest first (with ``after_id``, the ones after it, oldest first),
    narrowed by the filter; an attempt's outcome is its own (``exhausted``: a failed last
    attempt the schedule allows)."""
    where, params = _common(f, "a.merchant_id")
    if f.object_id is not None:
        where.append("a.object_id = ?")
        params.append(f.object_id)
    if f.outcome is not None:
        where.append("a.success = ?")
        params.append(int(f.outcome == "ok"))
        if f.outcome == "exhausted":
            where.append("a.attempt >= ?")
            params.append(FINAL_ATTEMPT)
    for clause, value in (("a.at_us >= ?", f.since_us), ("a.at_us <= ?", f.until_us)):
        if value is not None:
            where.append(clause)
            params.append(value)
    if before_id is not None:
        where.append("a.id < ?")
        params.append(before_id)
    if after_id is not None:
        where.append("a.id > ?")
        params.append(after_id)
    order = "ASC" if after_id is not None else "DESC"
    rows = tx.all(
        f"SELECT {ATTEMPT_COLUMNS} FROM delivery_attempts a"
        " JOIN delivery_messages m ON m.id = a.message_id"
        f" WHERE {' AND '.join(where) or '1 = 1'} ORDER BY a.id {order} LIMIT ?",
        (*params, limit),
    )
    return [dict(r) for r in rows]


MESSAGE_COLUMNS = (
    "m.id, m.merchant_id, m.event_id, m.event_seq, m.event_type, m.object_type, m.object_id,"
    " m.kind, m.target_id, m.url, m.headers, m.body, m.state, m.attempts, m.created_us"
)
_LAST_AT = "(SELECT MAX(at_us) FROM delivery_attempts WHERE message_id = m.id)"
# A message whose replay went through, or is still on its way, is not recovered again.
_NOT_RECOVERED = (
    "NOT EXISTS (SELECT 1 FROM delivery_messages r WHERE r.replay_of = m.id"
    " AND r.state IN ('delivered', 'waiting', 'queued'))"
)


def messages(tx: Tx, f: DeliveryFilter, limit: int, *, recover: bool = False) -> list[Any]:
    """The messages a replay (or, with ``recover``, a recover) is about, oldest first: by
    their outcome (``ok``: delivered; ``failed``: the last attempt failed; ``exhausted``:
    failed for good after the last attempt the schedule allows) and their event's instant
    (a recover: their last attempt's)."""
    where, params = _common(f, "m.merchant_id")
    if f.object_id is not None:
        where.append("m.object_id = ?")
        params.append(f.object_id)
    outcome = "failed" if recover else f.outcome
    if outcome == "ok":
        where.append("m.state = 'delivered'")
    elif outcome == "failed":
        where.append("m.state IN ('queued', 'failed') AND m.attempts > 0")
    elif outcome == "exhausted":
        where.append("m.state = 'failed' AND m.attempts >= ?")
        params.append(FINAL_ATTEMPT)
    at = _LAST_AT if recover else "m.created_us"
    for clause, value in ((f"{at} >= ?", f.since_us), (f"{at} <= ?", f.until_us)):
        if value is not None:
            where.append(clause)
            params.append(value)
    if recover:
        where.append(_NOT_RECOVERED)
    return tx.all(
        f"SELECT {MESSAGE_COLUMNS} FROM delivery_messages m"
        f" WHERE {' AND '.join(where) or '1 = 1'} ORDER BY m.id LIMIT ?",
        (*params, limit),
    )


def insert_replay(tx: Tx, row: Any, headers: str, at_us: int) -> int:
    """A new message of the same event, URL and body with these headers, queued at
    ``at_us``, holding nothing back (as a re-send): the replay of ``row``."""
    cursor = tx.execute(
        "INSERT INTO delivery_messages (merchant_id, event_id, event_seq, event_type,"
        " object_type, object_id, kind, target_id, url, headers, body, state, fail_attempts,"
        " reorder, not_before_us, created_us, replay_of) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?,"
        " ?, 'queued', 0, 1, ?, ?, ?)",
        (
            row["merchant_id"],
            row["event_id"],
            row["event_seq"],
            row["event_type"],
            row["object_type"],
            row["object_id"],
            row["kind"],
            row["target_id"],
            row["url"],
            headers,
            row["body"],
            at_us,
            at_us,
            row["id"],
        ),
    )
    assert cursor.lastrowid is not None
    return cursor.lastrowid


# -- endpoints switched off ------------------------------------------------------------------


def set_endpoint_state(
    tx: Tx,
    merchant_id: str,
    kind: str,
    target_id: str,
    enabled: bool,
    drop: bool,
    at_us: int,
    reason: str | None,
) -> None:
    tx.execute(
        "INSERT INTO endpoint_state (merchant_id, kind, target_id, enabled, drop_while_off,"
        " changed_us, reason) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (kind, target_id) DO"
        " UPDATE SET enabled = excluded.enabled, drop_while_off = excluded.drop_while_off,"
        " changed_us = excluded.changed_us, reason = excluded.reason",
        (merchant_id, kind, target_id, int(enabled), int(drop), at_us, reason),
    )


def endpoint_states(tx: Tx, merchant_id: str | None) -> list[dict[str, Any]]:
    where, params = ("merchant_id = ?", [merchant_id]) if merchant_id else ("1 = 1", [])
    rows = tx.all(
        "SELECT merchant_id, kind, target_id, enabled, drop_while_off, changed_us, reason"
        f" FROM endpoint_state WHERE {where} ORDER BY merchant_id, kind, target_id",
        params,
    )
    return [dict(r) for r in rows]


def keep(tx: Tx, message: Any, at_us: int, outcome: str) -> None:
    tx.execute(
        "INSERT OR REPLACE INTO delivery_kept (message_id, merchant_id, kind, target_id, at_us,"
        " outcome) VALUES (?, ?, ?, ?, ?, ?)",
        (message.id, message.merchant_id, message.kind, message.target_id, at_us, outcome),
    )


def release_held(tx: Tx, kind: str, target_id: str) -> list[int]:
    """The messages held for this endpoint, in order, no longer held."""
    ids = [
        int(r[0])
        for r in tx.all(
            "SELECT message_id FROM delivery_kept WHERE kind = ? AND target_id = ?"
            " AND outcome = 'held' ORDER BY message_id",
            (kind, target_id),
        )
    ]
    tx.execute(
        "DELETE FROM delivery_kept WHERE kind = ? AND target_id = ? AND outcome = 'held'",
        (kind, target_id),
    )
    return ids


def kept(tx: Tx, merchant_id: str | None, limit: int) -> list[dict[str, Any]]:
    """Messages kept or dropped by an endpoint switched off, newest first."""
    where, params = ("k.merchant_id = ?", [merchant_id]) if merchant_id else ("1 = 1", [])
    rows = tx.all(
        "SELECT k.message_id, k.merchant_id, k.kind, k.target_id, k.at_us, k.outcome,"
        " m.event_id, m.event_type, m.object_type, m.object_id, m.url FROM delivery_kept k"
        f" JOIN delivery_messages m ON m.id = k.message_id WHERE {where}"
        " ORDER BY k.message_id DESC LIMIT ?",
        (*params, limit),
    )
    return [dict(r) for r in rows]


def add_event(
    tx: Tx,
    merchant_id: str | None,
    kind: str,
    target_id: str,
    at_us: int,
    action: str,
    message_id: int | None = None,
    detail: str | None = None,
) -> None:
    tx.execute(
        "INSERT INTO endpoint_events (merchant_id, kind, target_id, at_us, action, message_id,"
        " detail) VALUES (?, ?, ?, ?, ?, ?, ?)",
        (merchant_id, kind, target_id, at_us, action, message_id, detail),
    )


def events(tx: Tx, merchant_id: str | None, limit: int) -> list[dict[str, Any]]:
    where, params = ("merchant_id = ?", [merchant_id]) if merchant_id else ("1 = 1", [])
    rows = tx.all(
        "SELECT id, merchant_id, kind, target_id, at_us, action, message_id, detail"
        f" FROM endpoint_events WHERE {where} ORDER BY id DESC LIMIT ?",
        (*params, limit),
    )
    return [dict(r) for r in rows]


# -- auto-disable ----------------------------------------------------------------------------


def auto_disable_days(tx: Tx, merchant_id: str) -> int | None:
    row = tx.one(
        "SELECT auto_disable_after_days FROM delivery_settings WHERE merchant_id = ?",
        (merchant_id,),
    )
    return None if row is None or row[0] is None else int(row[0])


def set_auto_disable_days(tx: Tx, merchant_id: str, days: int | None) -> None:
    tx.execute(
        "INSERT INTO delivery_settings (merchant_id, auto_disable_after_days) VALUES (?, ?)"
        " ON CONFLICT (merchant_id) DO UPDATE SET"
        " auto_disable_after_days = excluded.auto_disable_after_days",
        (merchant_id, days),
    )


def failing_since(tx: Tx, merchant_id: str, kind: str, target_id: str) -> int | None:
    """The first failed attempt to this endpoint since its last success (None: none, or it
    has not failed since)."""
    row = tx.one(
        "SELECT MIN(a.at_us) FROM delivery_attempts a JOIN delivery_messages m"
        " ON m.id = a.message_id WHERE a.merchant_id = ? AND m.kind = ? AND m.target_id = ?"
        " AND a.success = 0 AND a.id > COALESCE((SELECT MAX(s.id) FROM delivery_attempts s"
        " JOIN delivery_messages sm ON sm.id = s.message_id WHERE s.merchant_id = ?"
        " AND sm.kind = ? AND sm.target_id = ? AND s.success = 1), 0)",
        (merchant_id, kind, target_id, merchant_id, kind, target_id),
    )
    return None if row is None or row[0] is None else int(row[0])


def open_message(tx: Tx, message_id: int) -> bool:
    row = tx.one(f"SELECT 1 FROM delivery_messages WHERE id = ? AND {OPEN}", (message_id,))
    return row is not None


def endpoint_owner(tx: Tx, kind: str, target_id: str) -> str | None:
    """The merchant of a webhook (by id) or a v2 callback registration (by public id)."""
    if kind == "webhook":
        row = tx.one("SELECT merchant_id FROM webhooks WHERE id = ?", (target_id,))
    else:
        row = tx.one("SELECT merchant_id FROM bank_callback_urls WHERE public_id = ?", (target_id,))
    return None if row is None else str(row[0])


def signing_keys(tx: Tx, merchant_id: str) -> dict[tuple[str, str], str]:
    """The private key of each of the merchant's webhooks, ("webhook", id), and of its
    company key, ("success_callback", ""): what its messages are signed with now."""
    keys = {
        ("webhook", str(r[0])): str(r[1])
        for r in tx.all(
            "SELECT id, private_key FROM webhooks WHERE merchant_id = ?", (merchant_id,)
        )
    }
    row = tx.one("SELECT private_key FROM company_keys WHERE merchant_id = ?", (merchant_id,))
    if row is not None:
        keys["success_callback", ""] = str(row[0])
    return keys
