"""The v2 event feeds: the outbox rows of one object type, by ascending seq (the event id)."""

from __future__ import annotations

from typing import Any

from emulator.kernel.outbox import COLUMNS, StoredEvent, stored_event
from emulator.kernel.storage import Tx

FEEDS = frozenset({"bank_collection", "bank_mandate", "bank_payment"})


def events(
    tx: Tx, merchant_id: str, object_type: str, filters: dict[str, Any], skip: int, take: int
) -> list[StoredEvent]:
    """Events matching every filter (``eventId``, ``fromEventId``, ``toEventId``, ``objectId``,
    ``fromUs``, ``toUs``, ``state``), oldest first, paged."""
    if object_type not in FEEDS:
        raise ValueError(f"no v2 event feed of {object_type!r}")
    # The type as a literal (one of FEEDS): SQLite uses a partial index only for a term it
    # can see in the query, not a bound parameter.
    sql = [f"SELECT {COLUMNS} FROM outbox WHERE merchant_id = ? AND object_type = '{object_type}'"]
    params: list[Any] = [merchant_id]
    for key, clause in (
        ("eventId", "seq = ?"),
        ("fromEventId", "seq >= ?"),
        ("toEventId", "seq <= ?"),
        ("objectId", "object_id = ?"),
        ("fromUs", "created_us >= ?"),
        ("toUs", "created_us <= ?"),
    ):
        if key in filters:
            sql.append(f"AND {clause}")
            params.append(filters[key])
    sql.append("ORDER BY seq")
    state = filters.get("state")
    if state is None:
        sql.append("LIMIT ? OFFSET ?")
        params += [take, skip]
        return [stored_event(r) for r in tx.all(" ".join(sql), params)]
    found = [stored_event(r) for r in tx.all(" ".join(sql), params)]
    return [e for e in found if e.payload.get("status") == state][skip : skip + take]
