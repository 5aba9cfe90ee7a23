"""GET /v2/collection/debicheck in SQL: each filter a WHERE term or, for the South African
dates, a test over rows streamed in seq order (``bank/common/repo_lists.py``)."""

from __future__ import annotations

from typing import Any

import msgspec

from emulator.bank.collections.rules import Collection
from emulator.bank.collections.rules_filters import DATE_FILTERS, matches
from emulator.bank.common.repo_lists import json_path, page_sql
from emulator.kernel.storage import Tx

_collection = msgspec.json.Decoder(Collection)

# None: a field the emulator never sets, so a value of it matches nothing.
COLLECTION_TEXT: dict[str, str | None] = {
    "mandateReferenceNumber": json_path("$.mandateReferenceNumber"),
    "profileCode": json_path("$.profileCode"),
    "externalReference": "external_reference",
    "bank": json_path("$.debtor.bank"),
    "collectionReference": "id",
    "creditorAccountNumber": json_path("$.creditor.accountNumber"),
    "ultimateCreditorAccountNumber": json_path("$.ultimateCreditor.accountNumber"),
    "settlementId": None,
    "reconReference": None,
    "disputeReconReference": None,
    "creditorAbbreviatedName": json_path("$.creditor.abbreviatedName"),
    "state": "status",
    "debitSequence": json_path("$.debitSequence"),
    "sequenceNumber": json_path("$.sequenceNumber"),
    "bulkId": json_path("$.bulkId"),
    "recourseSettlementId": None,
}

# A condition that is true (1) or false (0) for each collection; the filter wants it equal.
COLLECTION_FLAGS: dict[str, str] = {
    "isStatementIdNull": "statement_id IS NULL",
    "isSettlementIdNull": "1",
    "markedAsSettled": "status = 'COMPLETED'",
    "isUltimateCreditorAccountNumberNull": (
        f"{json_path('$.ultimateCreditor.accountNumber')} IS NULL"
    ),
}


def collections(
    tx: Tx, merchant_id: str, kind: str, filters: dict[str, Any], skip: int, take: int
) -> list[Collection]:
    """A page of the merchant's collections of ``kind`` matching every filter, oldest first."""
    where = ["merchant_id = ?", "kind = ?"]
    params: list[Any] = [merchant_id, kind]
    by_date: dict[str, Any] = {}
    for name, wanted in filters.items():
        if name in COLLECTION_TEXT:
            column = COLLECTION_TEXT[name]
            if column is None:
                return []
            where.append(f"{column} = ?")
        elif name in COLLECTION_FLAGS:
            where.append(f"({COLLECTION_FLAGS[name]}) = ?")
        elif name in DATE_FILTERS:
            by_date[name] = wanted
            continue
        else:
            raise ValueError(f"no collection filter {name!r}")
        params.append(wanted)
    if not by_date:
        rows = tx.all(page_sql("bank_collections", " AND ".join(where)), [*params, take, skip])
        return [_collection.decode(r[0]) for r in rows]
    sql = f"SELECT data FROM bank_collections WHERE {' AND '.join(where)} ORDER BY seq"
    page: list[Collection] = []
    seen = 0
    for row in tx.execute(sql, params):
        found = _collection.decode(row[0])
        if not matches(found, by_date):
            continue
        seen += 1
        if seen > skip:
            page.append(found)
            if len(page) == take:
                break
    return page
