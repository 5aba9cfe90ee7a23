"""Reading the ledger for balance and turnover, with the spec's filters (several values per
filter: a row matching any of them counts)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from emulator.core.ledger.rules import Row
from emulator.kernel.storage import Tx

# Filter name (query) -> ledger column.
COLUMNS = {
    "brand": "brand_id",
    "terminal_uid": "terminal_uid",
    "currency": "currency",
    "payment_method": "payment_method",
    "product": "product",
    "flow": "flow",
    "country": "country",
    "tokenized": "tokenized",
}


def rows(tx: Tx, merchant_id: str, filters: Mapping[str, Sequence[Any]]) -> list[Row]:
    where = ["merchant_id = ?"]
    params: list[Any] = [merchant_id]
    for name, values in filters.items():
        if values:
            where.append(f"{COLUMNS[name]} IN ({', '.join('?' for _ in values)})")
            params.extend(values)
    found = tx.all(
        "SELECT currency, amount, fee, state, at_us, settled_us FROM ledger"
        f" WHERE {' AND '.join(where)} ORDER BY id",
        tuple(params),
    )
    return [Row(r[0], r[1], r[2], r[3], r[4], r[5]) for r in found]
