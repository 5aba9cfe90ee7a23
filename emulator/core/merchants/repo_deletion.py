"""Deleting a merchant and everything of it, in the caller's unit of work."""

from __future__ import annotations

from emulator.core.retention.repo import CURSOR_KEY
from emulator.kernel.storage import Tx

# Rows of a merchant that name it otherwise than by a ``merchant_id`` column.
_SCOPED = (("scenario_activations", "scope"),)


def merchant_tables(tx: Tx) -> list[str]:
    """Every table with a ``merchant_id`` column, as the schema has it now: a table a later
    migration adds is deleted from without a change here."""
    tables = [
        r[0]
        for r in tx.all(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
            " ORDER BY name"
        )
    ]
    return [
        table
        for table in tables
        if any(c[1] == "merchant_id" for c in tx.all(f'PRAGMA table_info("{table}")'))
    ]


def delete(tx: Tx, company_id: str) -> dict[str, int]:
    """Delete the merchant and every row of it; how many rows went, by table (rows removed
    by a cascade, as a delivery's attempts or a subscriber's bills, are not counted)."""
    tx.execute("PRAGMA defer_foreign_keys = ON")  # the order of the deletes does not matter
    removed: dict[str, int] = {}
    columns = [(table, "merchant_id") for table in merchant_tables(tx)] + list(_SCOPED)
    for table, column in columns:
        cursor = tx.execute(f'DELETE FROM "{table}" WHERE "{column}" = ?', (company_id,))
        if cursor.rowcount > 0:
            removed[table] = cursor.rowcount
    cursor = tx.execute("DELETE FROM merchants WHERE id = ?", (company_id,))
    if cursor.rowcount > 0:
        removed["merchants"] = cursor.rowcount
    # The newest events may have been the merchant's: SQLite hands their seqs out again, and
    # the delivery cursor (the last seq dispatched) must not pass the next events as sent.
    row = tx.one("SELECT MAX(seq) FROM outbox")
    top = int(row[0]) if row is not None and row[0] is not None else 0
    tx.execute(
        "UPDATE settings SET value = ? WHERE key = ? AND CAST(value AS INTEGER) > ?",
        (str(top), CURSOR_KEY, top),
    )
    return removed
