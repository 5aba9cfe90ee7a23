"""The ledger in SQLite: record movements in the unit of work that causes them."""

from __future__ import annotations

from emulator.core.ledger.model import EntryState, LedgerEntry
from emulator.kernel.storage import Tx


def record(tx: Tx, merchant_id: str, entry: LedgerEntry, at_us: int) -> int:
    """Add ``entry``; a settled one settles at ``at_us``. Returns its row id."""
    cursor = tx.execute(
        "INSERT INTO ledger (merchant_id, at_us, settled_us, kind, state, currency, amount, fee,"
        " object_type, object_id, brand_id, terminal_uid, payment_method, product, flow,"
        " country, tokenized) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            merchant_id,
            at_us,
            at_us if entry.state == "settled" else None,
            entry.kind,
            entry.state,
            entry.currency,
            entry.amount,
            entry.fee,
            entry.object_type,
            entry.object_id,
            entry.brand_id,
            entry.terminal_uid,
            entry.payment_method,
            entry.product,
            entry.flow,
            entry.country,
            int(entry.tokenized),
        ),
    )
    assert cursor.lastrowid is not None
    return cursor.lastrowid


def record_eft(
    tx: Tx, merchant_id: str, kind: str, object_type: str, object_id: str, amount: int, at_us: int
) -> None:
    """A settled ZAR EFT movement of the bank (``record`` of its ``LedgerEntry``, the columns
    it leaves at their defaults not named: the same row, fewer values bound: a day's
    thousands of collection outcomes)."""
    tx.execute(
        "INSERT INTO ledger (merchant_id, at_us, settled_us, kind, state, currency, amount,"
        " object_type, object_id, payment_method) VALUES (?, ?, ?, ?, 'settled', 'ZAR', ?, ?,"
        " ?, 'eft')",
        (merchant_id, at_us, at_us, kind, amount, object_type, object_id),
    )


def set_state(
    tx: Tx, merchant_id: str, object_id: str, kind: str, state: EntryState, at_us: int
) -> int:
    """Move the object's pending entries of ``kind`` to ``state`` (settled at ``at_us``, or
    void). Returns how many rows changed."""
    cursor = tx.execute(
        "UPDATE ledger SET state = ?, settled_us = ? WHERE merchant_id = ? AND object_id = ?"
        " AND kind = ? AND state = 'pending'",
        (state, at_us if state == "settled" else None, merchant_id, object_id, kind),
    )
    return cursor.rowcount
