"""Holds and the things they took, in SQLite (``holds``, ``held_items``)."""

from __future__ import annotations

from typing import Any

import msgspec

from emulator.kernel.storage import Tx

_decode = msgspec.json.Decoder()
_encode = msgspec.json.Encoder()


class Hold(msgspec.Struct, frozen=True, kw_only=True):
    id: str
    merchant_id: str
    kind: str
    match: dict[str, Any]
    count: int
    remaining: int
    timeout_seconds: int | None
    on_timeout: str
    created_us: int


class Item(msgspec.Struct, frozen=True, kw_only=True):
    id: int
    hold_id: str
    merchant_id: str
    state: str
    held_us: int
    message_id: int | None
    point: str | None
    subject: dict[str, Any]
    default_outcome: dict[str, Any] | None
    resume_kind: str | None
    resume_payload: dict[str, Any] | None
    done: dict[str, Any] | None
    done_us: int | None


def _json(value: Any) -> str | None:
    return None if value is None else _encode.encode(value).decode()


def _loaded(text: str | None) -> Any:
    return None if text is None else _decode.decode(text)


def _hold(row: Any) -> Hold:
    return Hold(
        id=row["id"],
        merchant_id=row["merchant_id"],
        kind=row["kind"],
        match=_loaded(row["match"]),
        count=row["count"],
        remaining=row["remaining"],
        timeout_seconds=row["timeout_seconds"],
        on_timeout=row["on_timeout"],
        created_us=row["created_us"],
    )


def _item(row: Any) -> Item:
    return Item(
        id=row["id"],
        hold_id=row["hold_id"],
        merchant_id=row["merchant_id"],
        state=row["state"],
        held_us=row["held_us"],
        message_id=row["message_id"],
        point=row["point"],
        subject=_loaded(row["subject"]) or {},
        default_outcome=_loaded(row["default_outcome"]),
        resume_kind=row["resume_kind"],
        resume_payload=_loaded(row["resume_payload"]),
        done=_loaded(row["done"]),
        done_us=row["done_us"],
    )


def insert(tx: Tx, hold: Hold) -> None:
    tx.execute(
        "INSERT INTO holds (id, merchant_id, kind, match, count, remaining, timeout_seconds,"
        " on_timeout, created_us) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            hold.id,
            hold.merchant_id,
            hold.kind,
            _json(hold.match),
            hold.count,
            hold.remaining,
            hold.timeout_seconds,
            hold.on_timeout,
            hold.created_us,
        ),
    )


def armed(tx: Tx, merchant_id: str | None, kind: str) -> list[Hold]:
    """The merchant's holds of this kind that may still take something, oldest first."""
    if merchant_id is None:
        return []
    rows = tx.all(
        "SELECT * FROM holds WHERE merchant_id = ? AND kind = ? AND remaining > 0"
        " ORDER BY created_us, id",
        (merchant_id, kind),
    )
    return [_hold(row) for row in rows]


def take(tx: Tx, hold_id: str) -> bool:
    """One use of the hold, if it has one left."""
    cursor = tx.execute(
        "UPDATE holds SET remaining = remaining - 1 WHERE id = ? AND remaining > 0", (hold_id,)
    )
    return cursor.rowcount > 0


def hold(tx: Tx, merchant_id: str, hold_id: str) -> Hold | None:
    row = tx.one("SELECT * FROM holds WHERE id = ? AND merchant_id = ?", (hold_id, merchant_id))
    return None if row is None else _hold(row)


def holds_of(tx: Tx, merchant_id: str) -> list[Hold]:
    rows = tx.all(
        "SELECT * FROM holds WHERE merchant_id = ? ORDER BY created_us DESC, id DESC",
        (merchant_id,),
    )
    return [_hold(row) for row in rows]


def insert_item(tx: Tx, item: Item) -> int:
    cursor = tx.execute(
        "INSERT INTO held_items (hold_id, merchant_id, state, held_us, message_id, point,"
        " subject, default_outcome, resume_kind, resume_payload)"
        " VALUES (?, ?, 'held', ?, ?, ?, ?, ?, ?, ?)",
        (
            item.hold_id,
            item.merchant_id,
            item.held_us,
            item.message_id,
            item.point,
            _json(item.subject),
            _json(item.default_outcome),
            item.resume_kind,
            _json(item.resume_payload),
        ),
    )
    assert cursor.lastrowid is not None
    return cursor.lastrowid


def items_of(tx: Tx, hold_ids: list[str]) -> list[Item]:
    if not hold_ids:
        return []
    marks = ", ".join("?" for _ in hold_ids)
    rows = tx.all(f"SELECT * FROM held_items WHERE hold_id IN ({marks}) ORDER BY id", hold_ids)
    return [_item(row) for row in rows]


def item(tx: Tx, item_id: int) -> Item | None:
    row = tx.one("SELECT * FROM held_items WHERE id = ?", (item_id,))
    return None if row is None else _item(row)


def finish(tx: Tx, item_id: int, state: str, done: dict[str, Any], done_us: int) -> bool:
    """The item leaves ``held``; False if it had already (a timeout and a call crossing)."""
    cursor = tx.execute(
        "UPDATE held_items SET state = ?, done = ?, done_us = ? WHERE id = ? AND state = 'held'",
        (state, _json(done), done_us, item_id),
    )
    return cursor.rowcount > 0


def set_message(tx: Tx, message_id: int, headers: dict[str, str], body: bytes) -> None:
    """A held message edited before it goes."""
    tx.execute(
        "UPDATE delivery_messages SET headers = ?, body = ? WHERE id = ?",
        (_json(headers), body, message_id),
    )


def copy_message(tx: Tx, message_id: int) -> int:
    """A copy of a message (same event id, headers and body) that neither waits nor is
    waited for, queued: a held delivery duplicated."""
    columns = (
        "merchant_id, event_id, event_seq, event_type, object_type, object_id, kind,"
        " target_id, url, headers, body"
    )
    cursor = tx.execute(
        f"INSERT INTO delivery_messages ({columns}, state, fail_attempts, reorder,"
        f" not_before_us, created_us) SELECT {columns}, 'queued', 0, 1, not_before_us,"
        " created_us FROM delivery_messages WHERE id = ?",
        (message_id,),
    )
    assert cursor.lastrowid is not None
    return cursor.lastrowid


def items_of_object(tx: Tx, merchant_id: str, object_id: str, limit: int) -> list[Item]:
    """What holds took of one object, oldest first: its messages (deliveries), and decisions
    whose job names it (their resume payload holds its id as a value)."""
    rows = tx.all(
        "SELECT i.* FROM held_items i LEFT JOIN delivery_messages m ON m.id = i.message_id"
        " WHERE i.merchant_id = ? AND (m.object_id = ?"
        " OR (i.message_id IS NULL AND instr(i.resume_payload, ?) > 0))"
        " ORDER BY i.id LIMIT ?",
        (merchant_id, object_id, _encode.encode(object_id).decode(), limit),
    )
    return [_item(row) for row in rows]
