"""Bulk EFT payments from CSV: every row is its own payment; a row in error is recorded with
its message and does not sink the others."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import msgspec

from emulator.bank.payments import repo as payments_repo
from emulator.bank.payments import rules_bulk as bulk
from emulator.bank.payments.service import new_payment
from emulator.domain.errors import BankBadRequest, NotFound
from emulator.kernel.storage import Tx

if TYPE_CHECKING:
    from emulator.kernel.context import Context

_encode = msgspec.json.Encoder()
_decode = msgspec.json.Decoder(dict[str, Any])


async def upload(rt: Context, merchant_id: str, text: str) -> dict[str, Any]:
    rows = bulk.parse(text)
    bulk_id = rt.ids.uuid()

    def unit(tx: Tx) -> dict[str, Any]:
        accepted = 0
        for line, values in enumerate(rows, start=2):  # line 1 is the header
            result: dict[str, Any] = {"line": line, **values}
            tx.execute("SAVEPOINT bulk_row")
            try:
                payment = new_payment(rt, tx, merchant_id, bulk.to_input(values), bulk_id)
            except BankBadRequest as exc:
                tx.execute("ROLLBACK TO bulk_row")
                result.update(outcome="ERROR", error=exc.detail)
            else:
                accepted += 1
                result.update(outcome="ACCEPTED", paymentId=payment.id)
            tx.execute("RELEASE bulk_row")
            tx.execute(
                "INSERT INTO bank_bulk_rows (bulk_id, line, merchant_id, is_error, data)"
                " VALUES (?, ?, ?, ?, ?)",
                (bulk_id, line, merchant_id, int("error" in result), _encode.encode(result)),
            )
        return {
            "bulkUploadId": bulk_id,
            "rows": len(rows),
            "accepted": accepted,
            "errors": len(rows) - accepted,
        }

    return await rt.db.write(unit)


async def download(rt: Context, merchant_id: str, bulk_id: str, errors: bool | None) -> str:
    """The upload's rows with their outcome (a payment's current status): all of them, only
    the rows in error (``errors`` true) or only the others (false)."""

    def unit(tx: Tx) -> list[dict[str, Any]]:
        sql = "SELECT data FROM bank_bulk_rows WHERE bulk_id = ? AND merchant_id = ?"
        params: tuple[Any, ...] = (bulk_id, merchant_id)
        if errors is not None:
            sql += " AND is_error = ?"
            params += (int(errors),)
        rows = [_decode.decode(r[0]) for r in tx.all(sql + " ORDER BY line", params)]
        for row in rows:
            if row.get("paymentId"):
                found = payments_repo.payment(tx, row["paymentId"], merchant_id)
                row["status"] = found[1].status if found is not None else None
        return rows

    rows = await rt.db.read(unit)
    if not rows:
        exists = await rt.db.read(
            lambda tx: tx.one(
                "SELECT 1 FROM bank_bulk_rows WHERE bulk_id = ? AND merchant_id = ?",
                (bulk_id, merchant_id),
            )
        )
        if exists is None:
            raise NotFound()
    return bulk.render(rows)
