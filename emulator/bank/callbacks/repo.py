"""Registered v2 callback URLs."""

from __future__ import annotations

import msgspec

from emulator.bank.callbacks.rules import Registration
from emulator.domain.errors import InvalidToken
from emulator.kernel import memo
from emulator.kernel.storage import Tx

_encode = msgspec.json.Encoder()
_decode = msgspec.json.Decoder(Registration)


def client_numbers(tx: Tx, merchant_id: str) -> set[int]:
    """The createdByClient values of the merchant's profiles."""
    rows = tx.all(
        "SELECT DISTINCT created_by_client FROM merchant_profiles WHERE merchant_id = ?",
        (merchant_id,),
    )
    return {int(r[0]) for r in rows}


def client_of_profile(tx: Tx, merchant_id: str, profile_code: str) -> int | None:
    """Once per memo scope (a dispatch batch) for each profile."""

    def read() -> int | None:
        row = tx.one(
            "SELECT created_by_client FROM merchant_profiles"
            " WHERE profile_code = ? AND merchant_id = ?",
            (profile_code, merchant_id),
        )
        return int(row[0]) if row is not None else None

    return memo.memoized(("client_of_profile", merchant_id, profile_code), read)


def wanted_events(request_type: str) -> str:
    """An SQL condition on outbox rows: events of ``request_type`` (trigger and test requests)
    or of a merchant that registered any callback URL (``any_registered``)."""
    return (
        f"object_type = '{request_type}'"
        " OR merchant_id IN (SELECT merchant_id FROM bank_callback_urls)"
    )


def any_registered(tx: Tx, merchant_id: str) -> bool:
    """Whether the merchant registered any callback URL; once per memo scope."""

    def read() -> bool:
        sql = "SELECT 1 FROM bank_callback_urls WHERE merchant_id = ? LIMIT 1"
        return tx.one(sql, (merchant_id,)) is not None

    return memo.memoized(("any_registered", merchant_id), read)


def insert(tx: Tx, merchant_id: str, registration: Registration) -> None:
    try:
        tx.execute(
            "INSERT INTO bank_callback_urls (public_id, merchant_id, client_number, callback_type,"
            " data) VALUES (?, ?, ?, ?, ?)",
            (
                registration.id,
                merchant_id,
                registration.clientId,
                registration.callbackType,
                _encode.encode(registration),
            ),
        )
    except Exception as exc:
        if str(exc).startswith("FOREIGN KEY constraint failed"):
            raise InvalidToken() from exc
        raise


def registrations(
    tx: Tx, merchant_id: str, callback_type: str, client_number: int
) -> list[Registration]:
    """Oldest first; once per memo scope (a dispatch batch) for each type and client."""

    def read() -> list[Registration]:
        rows = tx.all(
            "SELECT data FROM bank_callback_urls WHERE merchant_id = ? AND callback_type = ?"
            " AND client_number = ? ORDER BY id",
            (merchant_id, callback_type, client_number),
        )
        return [_decode.decode(r[0]) for r in rows]

    key = ("registrations", merchant_id, callback_type, client_number)
    return memo.memoized(key, read)
