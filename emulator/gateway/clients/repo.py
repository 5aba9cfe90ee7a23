"""Gateway clients in SQLite."""

from __future__ import annotations

import sqlite3

import msgspec

from emulator.domain.errors import DuplicateClient, InvalidToken
from emulator.gateway.clients.rules import Client
from emulator.kernel.storage import Tx

_decode = msgspec.json.Decoder(Client)
_encode = msgspec.json.Encoder()


def insert(tx: Tx, merchant_id: str, client: Client) -> None:
    try:
        tx.execute(
            "INSERT INTO clients (id, merchant_id, email_key, data) VALUES (?, ?, ?, ?)",
            (client.id, merchant_id, client.email_key, _encode.encode(client)),
        )
    except sqlite3.IntegrityError as exc:
        _raise_duplicate_email(exc)
        raise


def update(tx: Tx, merchant_id: str, client: Client) -> None:
    try:
        tx.execute(
            "UPDATE clients SET email_key = ?, data = ? WHERE id = ? AND merchant_id = ?",
            (client.email_key, _encode.encode(client), client.id, merchant_id),
        )
    except sqlite3.IntegrityError as exc:
        _raise_duplicate_email(exc)
        raise


def _raise_duplicate_email(exc: sqlite3.IntegrityError) -> None:
    """The (merchant, email) index means duplicate_client; the merchant's foreign key means the
    merchant was wiped (a reset) after the request authenticated: its key is no longer valid.
    Anything else (an id collision) is a bug and must surface as one."""
    text = str(exc)
    if "clients.merchant_id, clients.email_key" in text:
        raise DuplicateClient(field="email") from exc
    if text.startswith("FOREIGN KEY constraint failed"):
        raise InvalidToken() from exc


def delete(tx: Tx, merchant_id: str, client_id: str) -> None:
    tx.execute("DELETE FROM clients WHERE id = ? AND merchant_id = ?", (client_id, merchant_id))


def get(tx: Tx, merchant_id: str, client_id: str) -> Client | None:
    row = tx.one(
        "SELECT data FROM clients WHERE id = ? AND merchant_id = ?", (client_id, merchant_id)
    )
    return _decode.decode(row[0]) if row is not None else None


def get_raw(tx: Tx, merchant_id: str, client_id: str) -> bytes | None:
    """The stored JSON as is: a read that returns it needs no decode and re-encode."""
    row = tx.one(
        "SELECT data FROM clients WHERE id = ? AND merchant_id = ?", (client_id, merchant_id)
    )
    return bytes(row[0]) if row is not None else None


def page_raw(tx: Tx, merchant_id: str, email: str | None, limit: int, offset: int) -> list[bytes]:
    """Newest first."""
    if email is None:
        rows = tx.all(
            "SELECT data FROM clients WHERE merchant_id = ? ORDER BY seq DESC LIMIT ? OFFSET ?",
            (merchant_id, limit, offset),
        )
    else:
        rows = tx.all(
            "SELECT data FROM clients WHERE merchant_id = ? AND email_key = ?"
            " ORDER BY seq DESC LIMIT ? OFFSET ?",
            (merchant_id, email.lower(), limit, offset),
        )
    return [bytes(row[0]) for row in rows]


def get_by_email(tx: Tx, merchant_id: str, email: str) -> Client | None:
    """The merchant's client with this email (any case), through the unique index."""
    row = tx.one(
        "SELECT data FROM clients WHERE merchant_id = ? AND email_key = ?",
        (merchant_id, email.lower()),
    )
    return _decode.decode(row[0]) if row is not None else None
