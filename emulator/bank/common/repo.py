"""What the v2 tables share: inserts that answer a duplicate external reference, rows owned by
a merchant; and the rows no slice owns alone: profiles by code, statements."""

from __future__ import annotations

import sqlite3
from typing import Any

import msgspec

from emulator.core.merchants.model import MerchantProfile
from emulator.domain.errors import BankBadRequest, InvalidToken
from emulator.kernel.storage import Tx

_profile = msgspec.json.Decoder(MerchantProfile)


def insert_unique(tx: Tx, sql: str, params: tuple[Any, ...], duplicate: str) -> None:
    """An INSERT whose UNIQUE external reference answers ``duplicate`` (the v2 rules 2 and 3)."""
    try:
        tx.execute(sql, params)
    except sqlite3.IntegrityError as exc:
        text = str(exc)
        if "external_reference" in text:
            raise BankBadRequest(duplicate) from exc
        if text.startswith("FOREIGN KEY constraint failed"):  # merchant wiped after auth
            raise InvalidToken() from exc
        raise


def owned(tx: Tx, table: str, object_id: str, merchant_id: str | None) -> tuple[str, str] | None:
    """(merchant id, stored JSON) of a row; None when it is another merchant's
    (``merchant_id`` None only for the control plane, which sees every merchant's)."""
    row = tx.one(f"SELECT merchant_id, data FROM {table} WHERE id = ?", (object_id,))
    if row is None or (merchant_id is not None and row[0] != merchant_id):
        return None
    return row[0], row[1]


# -- profiles ------------------------------------------------------------------------------


def profile_by_code(tx: Tx, merchant_id: str, code: str) -> MerchantProfile | None:
    row = tx.one(
        "SELECT data FROM merchant_profiles WHERE profile_code = ? AND merchant_id = ?",
        (code, merchant_id),
    )
    return _profile.decode(row[0]) if row is not None else None


def profile_by_id(tx: Tx, merchant_id: str, profile_id: int) -> MerchantProfile | None:
    row = tx.one(
        "SELECT data FROM merchant_profiles WHERE id = ? AND merchant_id = ?",
        (profile_id, merchant_id),
    )
    return _profile.decode(row[0]) if row is not None else None


# -- statements ----------------------------------------------------------------------------


def statement_id(tx: Tx, merchant_id: str, account: str, day: str, new_id: str) -> str:
    """The statement of ``account`` for ``day``, made with ``new_id`` if there is none yet
    (one statement when it exists: the common case, a day's collections share it)."""
    found = existing_statement(tx, merchant_id, account, day)
    if found is not None:
        return found
    tx.execute(  # the one writer: nothing made it since the read
        "INSERT INTO bank_statements (id, merchant_id, account_number, statement_date)"
        " VALUES (?, ?, ?, ?)",
        (new_id, merchant_id, account, day),
    )
    return new_id


def existing_statement(tx: Tx, merchant_id: str, account: str, day: str) -> str | None:
    row = tx.one(
        "SELECT id FROM bank_statements WHERE merchant_id = ? AND account_number = ?"
        " AND statement_date = ?",
        (merchant_id, account, day),
    )
    return None if row is None else str(row[0])


def statement(tx: Tx, merchant_id: str, account: str, sid: str) -> dict[str, Any] | None:
    row = tx.one(
        "SELECT id, account_number, statement_date FROM bank_statements"
        " WHERE id = ? AND merchant_id = ? AND account_number = ?",
        (sid, merchant_id, account),
    )
    if row is None:
        return None
    return {"id": row[0], "accountNumber": row[1], "statementDate": row[2]}
