"""The v2 event feeds: the outbox rows of one object type, by ascending seq (the event id)."""

from __future__ import annotations

from typing import Any

from emulator.kernel.outbox import COLUMNS, EVENTS, StoredEvent, stored_event
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
    sql = [f"SELECT seq FROM outbox WHERE merchant_id = ? AND object_type = '{object_type}'"]
    params: list[Any] = [merchant_id]
    for key, clause in (
        ("eventId", "seq = ?"),
        ("fromEventId", "seq >= ?"),
        ("toEventId", "seq <= ?"),
        # The second term lets SQLite use outbox_object (partial: object_type <> 'client').
        ("objectId", "object_id = ? AND object_type <> 'client'"),
        ("fromUs", "created_us >= ?"),
        ("toUs", "created_us <= ?"),
        # The payload is the object as the event left it; its status is the event's state.
        ("state", "json_extract(CAST(payload AS TEXT), '$.status') = ?"),
    ):
        if key in filters:
            if key == "state" and "objectId" in filters:
                clause = f"+{clause}"  # an object's few events: its index, not the state's
            sql.append(f"AND {clause}")
            params.append(filters[key])
    sql.append("ORDER BY seq LIMIT ? OFFSET ?")
    params += [take, skip]
    # The seqs first, then their rows: a deep OFFSET walks the index, not the payloads.
    page = f"SELECT {COLUMNS} FROM {EVENTS} WHERE seq IN ({' '.join(sql)}) ORDER BY seq"
    return [stored_event(r) for r in tx.all(page, params)]
