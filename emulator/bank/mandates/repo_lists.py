"""GET /v2/mandate/eft in SQL: each filter a WHERE term, paged by the database
(``bank/common/repo_lists.py``)."""

from __future__ import annotations

from typing import Any

import msgspec

from emulator.bank.common.repo_lists import json_path, page_sql
from emulator.bank.mandates.rules import Mandate
from emulator.kernel.storage import Tx

_mandate = msgspec.json.Decoder(Mandate)

MANDATE_TEXT: dict[str, str] = {
    "externalReference": "external_reference",
    "bank": json_path("$.debtor.bank"),
    "profileCode": json_path("$.profileCode"),
    "state": "status",
    "bulkId": json_path("$.bulkId"),
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
    rows = tx.all(page_sql("bank_mandates", " AND ".join(where)), [*params, take, skip])
    return [_mandate.decode(r[0]) for r in rows]
