"""The delivery engine's messages and attempts in SQLite."""

from __future__ import annotations

from typing import Any

import msgspec

from emulator.kernel.storage import Tx

_decode_headers = msgspec.json.Decoder(dict[str, str])

OPEN = "state IN ('waiting', 'queued')"  # verbatim: lets SQLite use the partial index


class Message(msgspec.Struct, frozen=True, kw_only=True):
    id: int
    merchant_id: str | None
    event_id: str
    event_type: str
    object_type: str
    object_id: str
    kind: str
    target_id: str
    url: str
    headers: dict[str, str]
    body: bytes
    state: str
    attempts: int
    fail_attempts: int
    reorder: bool
    not_before_us: int
    first_us: int | None


def insert_message(tx: Tx, message: Message, event_seq: int, created_us: int) -> int:
    cursor = tx.execute(
        "INSERT INTO delivery_messages (merchant_id, event_id, event_seq, event_type,"
        " object_type, object_id, kind, target_id, url, headers, body, state, fail_attempts,"
        " reorder, not_before_us, created_us) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?,"
        " ?, ?)",
        (
            message.merchant_id,
            message.event_id,
            event_seq,
            message.event_type,
            message.object_type,
            message.object_id,
            message.kind,
            message.target_id,
            message.url,
            msgspec.json.encode(message.headers).decode(),
            message.body,
            message.state,
            message.fail_attempts,
            int(message.reorder),
            message.not_before_us,
            created_us,
        ),
    )
    assert cursor.lastrowid is not None
    return cursor.lastrowid


def mark_copy(tx: Tx, message_id: int, copy: int, copies: int, cause: str | None) -> None:
    """The message is copy ``copy`` of ``copies`` sends of its event to its target, made so
    by ``cause`` (migration 0017 says its forms)."""
    tx.execute(
        "UPDATE delivery_messages SET copy = ?, copies = ?, cause = ? WHERE id = ?",
        (copy, copies, cause, message_id),
    )


def sends_of(tx: Tx, event_id: str, kind: str, target_id: str) -> int:
    """How many messages of this event went (or will go) to this target."""
    row = tx.one(
        "SELECT COUNT(*) FROM delivery_messages WHERE event_id = ? AND kind = ? AND target_id = ?",
        (event_id, kind, target_id),
    )
    return int(row[0]) if row is not None else 0


def has_open(tx: Tx, object_id: str, kind: str, target_id: str) -> bool:
    """Whether an in-order message of this object to this target is still open."""
    row = tx.one(
        f"SELECT 1 FROM delivery_messages WHERE object_id = ? AND kind = ? AND target_id = ?"
        f" AND {OPEN} AND reorder = 0 LIMIT 1",
        (object_id, kind, target_id),
    )
    return row is not None


def next_waiting(tx: Tx, message: Message) -> tuple[int, int] | None:
    """(id, not_before_us) of the in-order message next behind ``message``, if it waits."""
    row = tx.one(
        f"SELECT id, not_before_us, state FROM delivery_messages WHERE object_id = ?"
        f" AND kind = ? AND target_id = ? AND {OPEN} AND reorder = 0 AND id > ?"
        " ORDER BY id LIMIT 1",
        (message.object_id, message.kind, message.target_id, message.id),
    )
    if row is None or row[2] != "waiting":
        return None
    return row[0], row[1]


_MESSAGE_COLUMNS = (
    "id, merchant_id, event_id, event_type, object_type, object_id, kind, target_id, url,"
    " headers, body, state, attempts, fail_attempts, reorder, not_before_us, first_us"
)


def message(tx: Tx, message_id: int) -> Message | None:
    row = tx.one(f"SELECT {_MESSAGE_COLUMNS} FROM delivery_messages WHERE id = ?", (message_id,))
    return None if row is None else _message(row)


# The message with its endpoint's state and its merchant's auto-disable days, in one statement
# (``to_send``): three rows by key.
_TO_SEND = (
    "SELECT m.id, m.merchant_id, m.event_id, m.event_type, m.object_type, m.object_id, m.kind,"
    " m.target_id, m.url, m.headers, m.body, m.state, m.attempts, m.fail_attempts, m.reorder,"
    " m.not_before_us, m.first_us, e.enabled AS enabled, e.drop_while_off AS drop_while_off,"
    " s.auto_disable_after_days AS days"
    " FROM delivery_messages AS m"
    " LEFT JOIN endpoint_state AS e ON e.kind = m.kind AND e.target_id = m.target_id"
    " LEFT JOIN delivery_settings AS s ON s.merchant_id = m.merchant_id"
    " WHERE m.id = ?"
)

EndpointRow = tuple[tuple[bool, bool] | None, int | None]  # (enabled, drop), auto-disable days


def to_send(tx: Tx, message_id: int) -> tuple[Message | None, EndpointRow]:
    """The message and what its endpoint says of it (its state, or None when it was never
    switched; its merchant's auto-disable days, or None), read together."""
    row = tx.one(_TO_SEND, (message_id,))
    if row is None:
        return None, (None, None)
    return _to_send_row(row)


_TO_SEND_MANY = _TO_SEND.replace("m.id = ?", "m.id IN (SELECT value FROM json_each(?))")


def to_send_many(tx: Tx, ids: list[int]) -> dict[int, tuple[Message, EndpointRow]]:
    """``to_send`` of several messages in one statement, by id (those gone are left out)."""
    if len(ids) == 1:
        message, endpoint = to_send(tx, ids[0])
        return {} if message is None else {message.id: (message, endpoint)}
    rows = tx.all(_TO_SEND_MANY, (msgspec.json.encode(ids).decode(),))
    return {row["id"]: _to_send_row(row) for row in rows}


def _to_send_row(row: Any) -> tuple[Message, EndpointRow]:
    enabled = row["enabled"]
    state = None if enabled is None else (bool(enabled), bool(row["drop_while_off"]))
    days = row["days"]
    return _message(row), (state, None if days is None else int(days))


def _message(row: Any) -> Message:
    return Message(
        id=row["id"],
        merchant_id=row["merchant_id"],
        event_id=row["event_id"],
        event_type=row["event_type"],
        object_type=row["object_type"],
        object_id=row["object_id"],
        kind=row["kind"],
        target_id=row["target_id"],
        url=row["url"],
        headers=_decode_headers.decode(row["headers"]),
        body=bytes(row["body"]),
        state=row["state"],
        attempts=row["attempts"],
        fail_attempts=row["fail_attempts"],
        reorder=bool(row["reorder"]),
        not_before_us=row["not_before_us"],
        first_us=row["first_us"],
    )


def move_on(tx: Tx, sent: Message, state: str, attempts: int, first_us: int | None) -> bool:
    """``set_state`` of a message as it was sent (queued, its attempts and first attempt's
    instant as ``sent`` has them); False, changing nothing, when it is not that any more (a
    reset or restore replaced it while its request was out)."""
    cursor = tx.execute(
        "UPDATE delivery_messages SET state = ?, attempts = ?, first_us = ? WHERE id = ?"
        " AND state = 'queued' AND attempts = ? AND first_us IS ?",
        (state, attempts, first_us, sent.id, sent.attempts, sent.first_us),
    )
    return cursor.rowcount == 1


def set_state(tx: Tx, message_id: int, state: str, attempts: int, first_us: int | None) -> None:
    tx.execute(
        "UPDATE delivery_messages SET state = ?, attempts = ?, first_us = ? WHERE id = ?",
        (state, attempts, first_us, message_id),
    )


def insert_attempt(
    tx: Tx,
    message: Message,
    attempt: int,
    at_us: int,
    status: int | None,
    error: str | None,
    success: bool,
    duration_us: int | None = None,
) -> None:
    tx.execute(
        "INSERT INTO delivery_attempts (message_id, merchant_id, object_id, attempt, at_us,"
        " status, error, success, duration_us) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            message.id,
            message.merchant_id,
            message.object_id,
            attempt,
            at_us,
            status,
            error,
            int(success),
            duration_us,
        ),
    )


# What a read of attempts takes of each (and of its message): the log's one shape.
ATTEMPT_COLUMNS = (
    "a.id, a.attempt, a.at_us, a.status, a.error, a.success, a.duration_us,"
    " m.id AS message_id, m.merchant_id, m.event_id, m.event_type, m.object_type,"
    " m.object_id, m.kind, m.target_id, m.url, m.headers, m.body, m.replay_of,"
    " m.copy, m.copies, m.cause"
)


def attempts_of_object(
    tx: Tx,
    merchant_id: str,
    object_type: str,
    object_id: str,
    kinds: tuple[str, ...],
    limit: int,
    offset: int,
) -> list[dict[str, Any]]:
    """One object's attempts of the given kinds, oldest first."""
    marks = ", ".join("?" for _ in kinds)
    rows = tx.all(
        f"SELECT {ATTEMPT_COLUMNS} FROM delivery_attempts a"
        " JOIN delivery_messages m ON m.id = a.message_id"
        " WHERE a.object_id = ? AND m.merchant_id = ? AND m.object_type = ?"
        f" AND m.kind IN ({marks})"
        " ORDER BY a.id LIMIT ? OFFSET ?",
        (object_id, merchant_id, object_type, *kinds, limit, offset),
    )
    return [dict(r) for r in rows]


def object_known(tx: Tx, merchant_id: str, object_type: str, object_id: str) -> bool:
    """Whether any event of this merchant names the object (a partial index answers)."""
    row = tx.one(
        "SELECT 1 FROM outbox WHERE object_id = ? AND merchant_id = ?"
        " AND object_type <> 'client' AND object_type = ? LIMIT 1",
        (object_id, merchant_id, object_type),
    )
    return row is not None


def give_up_target(tx: Tx, merchant_id: str, kind: str, target_id: str) -> int:
    """Stop the open messages to a receiver that is gone (a deleted webhook)."""
    cursor = tx.execute(
        f"UPDATE delivery_messages SET state = 'failed' WHERE merchant_id = ? AND kind = ?"
        f" AND target_id = ? AND {OPEN}",
        (merchant_id, kind, target_id),
    )
    return cursor.rowcount


def urls(tx: Tx, message_ids: list[int]) -> dict[int, str]:
    """The URL of each of these messages (those that still exist)."""
    rows = tx.all(
        "SELECT id, url FROM delivery_messages WHERE id IN (SELECT value FROM json_each(?))",
        (msgspec.json.encode(message_ids).decode(),),
    )
    return {row[0]: row[1] for row in rows}
