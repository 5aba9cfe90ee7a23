"""The outbox: every domain event, written in the same transaction as its state change.

Delivery (webhooks, callbacks) reads undispatched rows later; nothing here sends anything.
The same rows are the event log that feeds read (a gateway client's feed, v2 event polls).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec

from emulator.domain.events import Event
from emulator.kernel.ids import Ids
from emulator.kernel.storage import Tx


class StoredEvent(msgspec.Struct, frozen=True):
    seq: int
    id: str
    merchant_id: str
    event_type: str
    object_type: str
    object_id: str
    client_id: str | None
    created_us: int
    payload: dict[str, Any]


_decode_payload = msgspec.json.Decoder(dict[str, Any])


class Outbox:
    def __init__(self, ids: Ids) -> None:
        self._ids = ids
        # Told of every event inside the emitting unit of work (the delivery engine uses it
        # to wake up once that unit has committed).
        self.listener: Callable[[Tx, Event], None] | None = None

    def emit(self, tx: Tx, merchant_id: str, event: Event, created_us: int) -> str:
        """Record ``event``; returns its id (stable across redeliveries)."""
        event_id = self._ids.uuid()
        tx.execute(
            "INSERT INTO outbox (id, merchant_id, event_type, object_type, object_id, client_id,"
            " created_us, payload) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (
                event_id,
                merchant_id,
                event.type,
                event.object_type,
                event.object_id,
                event.client_id,
                created_us,
                msgspec.json.encode(event.payload),
            ),
        )
        if self.listener is not None:
            self.listener(tx, event)
        return event_id


def stored_event(row: Any) -> StoredEvent:
    """A StoredEvent from an outbox row (``SELECT *`` or the columns below)."""
    return StoredEvent(
        seq=row["seq"],
        id=row["id"],
        merchant_id=row["merchant_id"],
        event_type=row["event_type"],
        object_type=row["object_type"],
        object_id=row["object_id"],
        client_id=row["client_id"],
        created_us=row["created_us"],
        payload=_decode_payload.decode(row["payload"]),
    )


COLUMNS = "seq, id, merchant_id, event_type, object_type, object_id, client_id, created_us, payload"


def events_of_client(
    tx: Tx, merchant_id: str, client_id: str, limit: int, offset: int
) -> list[StoredEvent]:
    """A client's events, newest first."""
    rows = tx.all(
        f"SELECT {COLUMNS} FROM outbox WHERE client_id = ? AND merchant_id = ?"
        " ORDER BY seq DESC LIMIT ? OFFSET ?",
        (client_id, merchant_id, limit, offset),
    )
    return [stored_event(row) for row in rows]
