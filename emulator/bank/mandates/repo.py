"""Mandates in SQLite, and the merchant's DebiCheck authentication windows."""

from __future__ import annotations

import msgspec

from emulator.bank.common import repo as common
from emulator.bank.mandates.rules import AuthenticationWindows, Mandate
from emulator.kernel.storage import Tx

_encode = msgspec.json.Encoder()
_mandate = msgspec.json.Decoder(Mandate)
_windows = msgspec.json.Decoder(AuthenticationWindows)


def insert_mandate(tx: Tx, merchant_id: str, mandate: Mandate) -> None:
    common.insert_unique(
        tx,
        "INSERT INTO bank_mandates (id, merchant_id, kind, external_reference, status, data)"
        " VALUES (?, ?, ?, ?, ?, ?)",
        (
            mandate.id,
            merchant_id,
            mandate.type,
            mandate.externalReference,
            mandate.status,
            _encode.encode(mandate),
        ),
        "mandate with this external reference already exists",
    )


def update_mandate(tx: Tx, mandate: Mandate) -> None:
    tx.execute(
        "UPDATE bank_mandates SET data = ?, status = ? WHERE id = ?",
        (_encode.encode(mandate), mandate.status, mandate.id),
    )


def mandate(tx: Tx, mandate_id: str, merchant_id: str | None = None) -> tuple[str, Mandate] | None:
    """(merchant id, mandate); ``merchant_id`` None only for the control plane."""
    row = common.owned(tx, "bank_mandates", mandate_id, merchant_id)
    return None if row is None else (row[0], _mandate.decode(row[1]))


def windows(tx: Tx, merchant_id: str) -> AuthenticationWindows | None:
    row = tx.one(
        "SELECT data FROM bank_authentication_windows WHERE merchant_id = ?", (merchant_id,)
    )
    return _windows.decode(row[0]) if row is not None else None


def put_windows(tx: Tx, merchant_id: str, value: AuthenticationWindows) -> None:
    tx.execute(
        "INSERT INTO bank_authentication_windows (merchant_id, data) VALUES (?, ?)"
        " ON CONFLICT (merchant_id) DO UPDATE SET data = excluded.data",
        (merchant_id, _encode.encode(value)),
    )
