"""Gateway purchases in SQLite."""

from __future__ import annotations

import sqlite3

import msgspec

from emulator.core.merchants.model import Merchant
from emulator.domain.errors import InvalidToken
from emulator.gateway.purchases.model import Internal, Purchase, TokenView
from emulator.kernel.storage import Tx

_decode = msgspec.json.Decoder(Purchase)
_decode_merchant = msgspec.json.Decoder(Merchant)
_decode_internal = msgspec.json.Decoder(Internal)
_encode = msgspec.json.Encoder()


def _token_client(p: Purchase) -> str | None:
    return p.client_id if p.is_recurring_token else None


# The number of the next purchase, as SQL: a read that needs it with other rows selects it too.
NEXT_NUMBER = "SELECT COALESCE(MAX(seq), 0) + 1 FROM purchases"


def next_number(tx: Tx) -> int:
    """A number for reference_generated (grows with every purchase)."""
    row = tx.one(NEXT_NUMBER)
    assert row is not None
    return int(row[0])


def creation_context(tx: Tx, merchant_id: str, brand_id: str) -> tuple[Merchant, int] | None:
    """What a new purchase of the merchant's brand needs, in one read: the merchant (its
    issuer details) and the purchase's number (``next_number``); None when the merchant has
    no such brand (or is gone)."""
    row = tx.one(
        f"SELECT m.data, ({NEXT_NUMBER}) FROM merchants m"
        " WHERE m.id = ?"
        " AND EXISTS (SELECT 1 FROM brands b WHERE b.id = ? AND b.merchant_id = m.id)",
        (merchant_id, brand_id),
    )
    if row is None:
        return None
    return _decode_merchant.decode(row[0]), int(row[1])


def insert(
    tx: Tx, merchant_id: str, p: Purchase, internal: Internal, data: bytes | None = None
) -> bytes:
    """Store a new purchase; returns its JSON as stored (what a read of it answers). ``data``:
    the purchase's JSON as the caller encoded it already (an event's payload)."""
    if data is None:
        data = _encode.encode(p)
    try:
        tx.execute(
            "INSERT INTO purchases (id, merchant_id, token_client_id, data, internal)"
            " VALUES (?, ?, ?, ?, ?)",
            (p.id, merchant_id, _token_client(p), data, _encode.encode(internal)),
        )
    except sqlite3.IntegrityError as exc:
        if str(exc).startswith("FOREIGN KEY constraint failed"):  # merchant wiped by a reset
            raise InvalidToken() from exc
        raise
    return data


def update(tx: Tx, merchant_id: str, p: Purchase, internal: Internal) -> bytes:
    """Store the purchase's new state; returns its JSON as stored. The events that referred
    to the row (``kernel.outbox``: ``ref``) get a copy of its JSON first, as it was."""
    tx.execute(_KEEP_EVENTS, (p.id, merchant_id, p.id, merchant_id))
    data = _encode.encode(p)
    tx.execute(
        "UPDATE purchases SET token_client_id = ?, data = ?, internal = ?"
        " WHERE id = ? AND merchant_id = ?",
        (_token_client(p), data, _encode.encode(internal), p.id, merchant_id),
    )
    return data


# The row's JSON into the events that refer to it. The condition on object_type lets SQLite
# use the outbox's object index (partial: object_type <> 'client').
_KEEP_EVENTS = (
    "UPDATE outbox SET payload = (SELECT data FROM purchases WHERE id = ? AND merchant_id = ?),"
    " ref = 0 WHERE object_id = ? AND merchant_id = ? AND object_type <> 'client' AND ref = 1"
)


def get(tx: Tx, merchant_id: str, purchase_id: str) -> tuple[Purchase, Internal] | None:
    row = tx.one(
        "SELECT data, internal FROM purchases WHERE id = ? AND merchant_id = ?",
        (purchase_id, merchant_id),
    )
    if row is None:
        return None
    return _decode.decode(row[0]), _decode_internal.decode(row[1])


# What a charge reads of a recurring token (``get_token``).
Token = tuple[TokenView, Internal]


def get_token(tx: Tx, merchant_id: str, purchase_id: str) -> Token | None:
    """What a charge needs of a purchase used as a recurring token (not the whole purchase):
    read from the ``token_client_id`` column, which says both (``insert``/``update`` keep it),
    instead of its JSON."""
    row = tx.one(
        "SELECT token_client_id, internal FROM purchases WHERE id = ? AND merchant_id = ?",
        (purchase_id, merchant_id),
    )
    if row is None:
        return None
    return token_of(row[0], row[1])


def token_of(token_client_id: str | None, internal: bytes) -> Token:
    """``get_token``'s answer from the two columns it reads (a read that joins the token)."""
    return TokenView(token_client_id, token_client_id is not None), _decode_internal.decode(
        internal
    )


def get_any(tx: Tx, purchase_id: str) -> tuple[str, Purchase, Internal] | None:
    """A purchase by id alone (the payer's pages carry no credentials: the URL is the key)."""
    row = tx.one("SELECT merchant_id, data, internal FROM purchases WHERE id = ?", (purchase_id,))
    if row is None:
        return None
    return row[0], _decode.decode(row[1]), _decode_internal.decode(row[2])


def get_raw(tx: Tx, merchant_id: str, purchase_id: str) -> bytes | None:
    row = tx.one(
        "SELECT data FROM purchases WHERE id = ? AND merchant_id = ?", (purchase_id, merchant_id)
    )
    return bytes(row[0]) if row is not None else None


def tokens_of_client(
    tx: Tx, merchant_id: str, client_id: str, limit: int, offset: int
) -> list[tuple[Purchase, Internal]]:
    """The client's recurring tokens, newest first."""
    rows = tx.all(
        "SELECT data, internal FROM purchases WHERE token_client_id = ? AND merchant_id = ?"
        " ORDER BY seq DESC LIMIT ? OFFSET ?",
        (client_id, merchant_id, limit, offset),
    )
    return [(_decode.decode(r[0]), _decode_internal.decode(r[1])) for r in rows]
