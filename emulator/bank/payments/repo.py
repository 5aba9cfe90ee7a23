"""EFT payments in SQLite."""

from __future__ import annotations

import msgspec

from emulator.bank.common import repo as common
from emulator.bank.payments.rules import Payment
from emulator.kernel.storage import Tx

_encode = msgspec.json.Encoder()
_payment = msgspec.json.Decoder(Payment)


def insert_payment(tx: Tx, merchant_id: str, payment: Payment) -> None:
    common.insert_unique(
        tx,
        "INSERT INTO bank_payments (id, merchant_id, bulk_id, data) VALUES (?, ?, ?, ?)",
        (payment.id, merchant_id, payment.bulkUploadId, _encode.encode(payment)),
        "payment with this external reference already exists",
    )


def update_payment(tx: Tx, payment: Payment) -> None:
    tx.execute(
        "UPDATE bank_payments SET data = ? WHERE id = ?", (_encode.encode(payment), payment.id)
    )


def payment(tx: Tx, payment_id: str, merchant_id: str | None = None) -> tuple[str, Payment] | None:
    row = common.owned(tx, "bank_payments", payment_id, merchant_id)
    return None if row is None else (row[0], _payment.decode(row[1]))
