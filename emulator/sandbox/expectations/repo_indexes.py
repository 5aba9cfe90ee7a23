"""The expectations' own indexes (``sandbox.expectations.repo`` reads through them), created by a
server's first verify or wait rather than by a migration."""

from __future__ import annotations

from emulator.kernel.storage import Tx

# Indexes that hold every column an item reads but a body, so that a count or a narrowed read
# never touches the rows (which hold the bodies). Their upkeep costs each journaled request
# and each delivery message a B-tree write (about as much as the row's own), so they are
# created by a server's first verify or wait, not by a migration: a server that never
# verifies never pays for them.
LAZY_INDEXES = {
    "requests_merchant_method": "CREATE INDEX IF NOT EXISTS requests_merchant_method"
    " ON requests(merchant_id, method, path, status, interface, at_us)",
    "delivery_messages_merchant": "CREATE INDEX IF NOT EXISTS delivery_messages_merchant"
    " ON delivery_messages(merchant_id, event_type, url, kind, object_type, object_id)",
    # a merchant's events by type, or all in order, without naming an object: without it such
    # a read scans every merchant's outbox; its upkeep cost a year of billing (three events a
    # bill) about 15 % when it was made by a migration
    "outbox_merchant": "CREATE INDEX IF NOT EXISTS outbox_merchant"
    " ON outbox(merchant_id, event_type, seq)",
}


def missing_indexes(tx: Tx) -> list[str]:
    """Which of ``LAZY_INDEXES`` the database lacks."""
    names = {
        str(row[0])
        for row in tx.conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'index' AND name IN"
            f" ({', '.join('?' for _ in LAZY_INDEXES)})",
            list(LAZY_INDEXES),
        )
    }
    return [name for name in LAZY_INDEXES if name not in names]


def create_indexes(tx: Tx, names: list[str]) -> None:
    for name in names:
        tx.conn.execute(LAZY_INDEXES[name])
