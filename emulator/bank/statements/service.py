"""v2 bank statements: one per creditor account and action date; its lines are the
collections that completed into it (each carries the statement's id as ``statementId``);
``totalCents`` counts the lines still COMPLETED (a DISPUTED one was reversed)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from emulator.bank.collections import repo as collections_repo
from emulator.bank.common import repo
from emulator.domain.errors import NotFound
from emulator.kernel.storage import Tx

if TYPE_CHECKING:
    from emulator.kernel.context import Context


async def get(rt: Context, merchant_id: str, account: str, statement_id: str) -> dict[str, Any]:
    def unit(tx: Tx) -> dict[str, Any] | None:
        head = repo.statement(tx, merchant_id, account, statement_id)
        if head is None:
            return None
        found = collections_repo.collections_of_statement(tx, statement_id)
        lines = [
            {
                "collectionId": c.id,
                "collectionType": c.type,
                "mandateId": c.mandateId,
                "externalReference": c.externalReference,
                "contractReference": c.contractReference,
                "debtorAccountNumber": c.debtor.accountNumber,
                "amountCents": c.amountCents,
                "actionDate": c.actionDate,
                "status": c.status,
                "reasonCode": c.reasonCode,
            }
            for c in found
        ]
        # A disputed debit order is reversed: its line stays (status DISPUTED), uncounted.
        total = sum(c.amountCents for c in found if c.status == "COMPLETED")
        return {**head, "currency": "ZAR", "totalCents": total, "lines": lines}

    found = await rt.db.read(unit)
    if found is None:
        raise NotFound()
    return found
