"""The v2 lists (GET /v2/mandate/eft, GET /v2/collection/debicheck) in SQL: filtered, in seq
order and paged by the database, so a page costs the same with 100 or 100,000 objects.

Every filter that SQL can state exactly is a WHERE term: the object's own columns (status,
external reference, statement) or ``json_extract`` of its stored JSON, which holds the same
values the Python objects do. The date filters (a collection's dates as South African dates)
stay in Python (``collection_filters.matches``) over rows streamed in seq order, stopping at
the page's end.
"""

from __future__ import annotations

from typing import Any

import msgspec

from emulator.bank.collections.rules import Collection
from emulator.bank.collections.rules_filters import DATE_FILTERS, matches
from emulator.bank.mandates.rules import Mandate
from emulator.kernel.storage import Tx

_mandate = msgspec.json.Decoder(Mandate)
_collection = msgspec.json.Decoder(Collection)


def _json(path: str) -> str:
    return f"json_extract(CAST(data AS TEXT), '{path}')"


MANDATE_TEXT: dict[str, str] = {
    "externalReference": "external_reference",
    "bank": _json("$.debtor.bank"),
    "profileCode": _json("$.profileCode"),
    "state": "status",
    "bulkId": _json("$.bulkId"),
}

# None: a field the emulator never sets, so a value of it matches nothing.
COLLECTION_TEXT: dict[str, str | None] = {
    "mandateReferenceNumber": _json("$.mandateReferenceNumber"),
    "profileCode": _json("$.profileCode"),
    "externalReference": "external_reference",
    "bank": _json("$.debtor.bank"),
    "collectionReference": "id",
    "creditorAccountNumber": _json("$.creditor.accountNumber"),
    "ultimateCreditorAccountNumber": _json("$.ultimateCreditor.accountNumber"),
    "settlementId": None,
    "reconReference": None,
    "disputeReconReference": None,
    "creditorAbbreviatedName": _json("$.creditor.abbreviatedName"),
    "state": "status",
    "debitSequence": _json("$.debitSequence"),
    "sequenceNumber": _json("$.sequenceNumber"),
    "bulkId": _json("$.bulkId"),
    "recourseSettlementId": None,
}

# A condition that is true (1) or false (0) for each collection; the filter wants it equal.
COLLECTION_FLAGS: dict[str, str] = {
    "isStatementIdNull": "statement_id IS NULL",
    "isSettlementIdNull": "1",
    "markedAsSettled": "status = 'COMPLETED'",
    "isUltimateCreditorAccountNumberNull": f"{_json('$.ultimateCreditor.accountNumber')} IS NULL",
}


def mandates(
    tx: Tx, merchant_id: str, kind: str, filters: dict[str, Any], skip: int, take: int
) -> list[Mandate]:
    """A page of the merchant's mandates of ``kind`` matching every filter, oldest first."""
    where = ["merchant_id = ?", "kind = ?"]
    params: list[Any] = [merchant_id, kind]
    for name, wanted in filters.items():
        where.append(f"{MANDATE_TEXT[name]} = ?")
        params.append(wanted)
    rows = tx.all(_page("bank_mandates", " AND ".join(where)), [*params, take, skip])
    return [_mandate.decode(r[0]) for r in rows]


def _page(table: str, where: str) -> str:
    """A page's rows: the seqs picked first (a deep OFFSET walks an index that covers the
    filters, not the rows), then those rows read."""
    return (
        f"SELECT data FROM {table} WHERE seq IN (SELECT seq FROM {table} WHERE {where}"
        " ORDER BY seq LIMIT ? OFFSET ?) ORDER BY seq"
    )


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
        rows = tx.all(_page("bank_collections", " AND ".join(where)), [*params, take, skip])
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
