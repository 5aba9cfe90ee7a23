"""The bank's short ledger insert (``record_eft``) writes the row ``record`` writes of the same
settled EFT entry: the columns it does not name take the values the entry's defaults give."""

from __future__ import annotations

from typing import Any

from emulator.core.ledger import repo as ledger
from emulator.core.ledger.model import LedgerEntry
from emulator.runtime.runtime import Runtime


async def test_record_eft_writes_the_row_record_writes(runtime: Runtime) -> None:
    merchant = runtime.default_merchant.company_id

    def fill(tx: Any) -> list[tuple[Any, ...]]:
        entry = LedgerEntry(
            kind="dispute",
            state="settled",
            currency="ZAR",
            amount=-12345,
            object_type="collection",
            object_id="c-1",
            payment_method="eft",
        )
        first = ledger.record(tx, merchant, entry, 1_000)
        ledger.record_eft(tx, merchant, "dispute", "collection", "c-1", -12345, 1_000)
        rows = tx.all("SELECT * FROM ledger WHERE id >= ? ORDER BY id", (first,))
        return [tuple(row)[1:] for row in rows]  # all but the id

    made, short = await runtime.db.write(fill)
    assert made == short
    assert made[:3] == (merchant, 1_000, 1_000)
