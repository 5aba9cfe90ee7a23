"""Company statements in SQLite, and the purchases a statement reads."""

from __future__ import annotations

import msgspec

from emulator.gateway.purchases.model import Internal, Purchase
from emulator.gateway.statements.model import CompanyStatement
from emulator.gateway.statements.rules_filters import Filters
from emulator.kernel.storage import Tx

_decode = msgspec.json.Decoder(CompanyStatement)
_decode_filters = msgspec.json.Decoder(Filters)
_decode_purchase = msgspec.json.Decoder(Purchase)
_decode_internal = msgspec.json.Decoder(Internal)
_encode = msgspec.json.Encoder()


class StatementRow(msgspec.Struct, frozen=True, kw_only=True):
    """A statement with what the API does not show: its filters, download URL and token."""

    merchant_id: str
    statement: CompanyStatement
    filters: Filters
    download_url: str
    token: str


def insert(
    tx: Tx,
    merchant_id: str,
    statement: CompanyStatement,
    filters: Filters,
    download_url: str,
    token: str,
) -> None:
    tx.execute(
        "INSERT INTO company_statements (id, merchant_id, token, download_url, filters, data)"
        " VALUES (?, ?, ?, ?, ?, ?)",
        (
            statement.id,
            merchant_id,
            token,
            download_url,
            _encode.encode(filters),
            _encode.encode(statement),
        ),
    )


def update(
    tx: Tx, merchant_id: str, statement: CompanyStatement, file: bytes | None = None
) -> None:
    """Store the statement's new state (and its file, once generated)."""
    tx.execute(
        "UPDATE company_statements SET data = ?, file = COALESCE(?, file)"
        " WHERE id = ? AND merchant_id = ?",
        (_encode.encode(statement), file, statement.id, merchant_id),
    )


def get(tx: Tx, merchant_id: str | None, statement_id: str) -> StatementRow | None:
    """A statement of the merchant (of any merchant when ``merchant_id`` is None)."""
    row = tx.one(
        "SELECT merchant_id, data, filters, download_url, token FROM company_statements"
        " WHERE id = ? AND (? IS NULL OR merchant_id = ?)",
        (statement_id, merchant_id, merchant_id),
    )
    if row is None:
        return None
    return StatementRow(
        merchant_id=row[0],
        statement=_decode.decode(row[1]),
        filters=_decode_filters.decode(row[2]),
        download_url=row[3],
        token=row[4],
    )


def get_raw(tx: Tx, merchant_id: str, statement_id: str) -> bytes | None:
    row = tx.one(
        "SELECT data FROM company_statements WHERE id = ? AND merchant_id = ?",
        (statement_id, merchant_id),
    )
    return bytes(row[0]) if row is not None else None


def page_raw(tx: Tx, merchant_id: str, limit: int, offset: int) -> list[bytes]:
    """Newest first."""
    rows = tx.all(
        "SELECT data FROM company_statements WHERE merchant_id = ?"
        " ORDER BY seq DESC LIMIT ? OFFSET ?",
        (merchant_id, limit, offset),
    )
    return [bytes(r[0]) for r in rows]


def file(tx: Tx, statement_id: str, token: str) -> tuple[CompanyStatement, bytes] | None:
    """The statement and its generated file, by the capability of its download URL."""
    row = tx.one(
        "SELECT data, file FROM company_statements WHERE id = ? AND token = ? AND file IS NOT NULL",
        (statement_id, token),
    )
    return (_decode.decode(row[0]), bytes(row[1])) if row is not None else None


def purchases(tx: Tx, merchant_id: str) -> list[tuple[Purchase, Internal]]:
    """Every purchase of the merchant, oldest first (a statement filters them)."""
    rows = tx.all(
        "SELECT data, internal FROM purchases WHERE merchant_id = ? ORDER BY seq",
        (merchant_id,),
    )
    return [(_decode_purchase.decode(r[0]), _decode_internal.decode(r[1])) for r in rows]
