"""The v2 event feeds: the outbox rows of one object type, by ascending seq (the event id)."""

from __future__ import annotations

from typing import Any

import msgspec

from emulator.kernel.outbox import StoredEvent
from emulator.kernel.storage import Tx

_payload = msgspec.json.Decoder(dict[str, Any])


def _row(row: Any) -> StoredEvent:
    return StoredEvent(
        seq=row["seq"],
        id=row["id"],
        merchant_id=row["merchant_id"],
        event_type=row["event_type"],
        object_type=row["object_type"],
        object_id=row["object_id"],
        client_id=row["client_id"],
        created_us=row["created_us"],
        payload=_payload.decode(row["payload"]),
    )


_COLUMNS = (
    "seq, id, merchant_id, event_type, object_type, object_id, client_id, created_us, payload"
)


def events(
    tx: Tx, merchant_id: str, object_type: str, filters: dict[str, Any], skip: int, take: int
) -> list[StoredEvent]:
    """Events matching every filter (``eventId``, ``fromEventId``, ``toEventId``, ``objectId``,
    ``fromUs``, ``toUs``, ``state``), oldest first, paged."""
    sql = [f"SELECT {_COLUMNS} FROM outbox WHERE merchant_id = ? AND object_type = ?"]
    params: list[Any] = [merchant_id, object_type]
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
        return [_row(r) for r in tx.all(" ".join(sql), params)]
    found = [_row(r) for r in tx.all(" ".join(sql), params)]
    return [e for e in found if e.payload.get("status") == state][skip : skip + take]
