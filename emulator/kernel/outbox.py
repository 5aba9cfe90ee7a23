"""The outbox: every domain event, written in the same transaction as its state change.

Delivery (webhooks, callbacks) reads undispatched rows later; nothing here sends anything.
The same rows are the event log that feeds read (a gateway client's feed, v2 event polls).

An event whose payload is its purchase exactly as stored refers to the purchase's row instead
of holding a copy (``ref``; migration 0019): a purchase's JSON is 3.4 KB, and a bill's
purchase.paid or a new purchase's purchase.created would write it a second time. Payloads are
read through ``EVENTS`` (the view ``outbox_events``), which resolves the reference; the row's
repository copies the JSON into the events that refer to it before the row changes
(``gateway.purchases.repo``). A collection's collection.completed refers to its collection's
row the same way (migration 0020; ``bank.collections.repo`` copies), its stored payload the
status alone, which the v2 feed's state index reads.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec

from emulator.domain.events import Event
from emulator.kernel.ids import Ids
from emulator.kernel.notices import Notices
from emulator.kernel.storage import Tx


class StoredEvent:
    """An outbox row. Its payload is decoded on first use: dispatch routes most events by
    their merchant and type alone (no webhook or callback wants them), without reading it."""

    __slots__ = (
        "_payload",
        "_raw",
        "client_id",
        "created_us",
        "event_type",
        "id",
        "merchant_id",
        "object_id",
        "object_type",
        "seq",
    )

    def __init__(self, row: Any) -> None:
        self.seq: int = row["seq"]
        self.id: str = row["id"]
        self.merchant_id: str = row["merchant_id"]
        self.event_type: str = row["event_type"]
        self.object_type: str = row["object_type"]
        self.object_id: str = row["object_id"]
        self.client_id: str | None = row["client_id"]
        self.created_us: int = row["created_us"]
        self._raw: bytes = row["payload"]
        self._payload: dict[str, Any] | None = None

    @property
    def payload(self) -> dict[str, Any]:
        if self._payload is None:
            self._payload = _decode_payload.decode(self.raw)
        return self._payload

    @property
    def raw(self) -> bytes:
        """The payload as stored (JSON), for a decoder that wants a field or two of it."""
        return self._raw


_decode_payload = msgspec.json.Decoder(dict[str, Any])


class Outbox:
    def __init__(self, ids: Ids) -> None:
        self._ids = ids
        # Told of every event inside the emitting unit of work (the delivery engine uses it
        # to wake up once that unit has committed).
        # Called with the unit, the event, its merchant and its id.
        self.listener: Callable[[Tx, Event, str, str], None] | None = None
        self.notices: Notices | None = None  # told of each commit that emitted (waits)

    def emit(
        self,
        tx: Tx,
        merchant_id: str,
        event: Event,
        created_us: int,
        *,
        ref: bool = False,
        stand_in: bytes = b"",
        callback: bool = True,
    ) -> str:
        """Record ``event``; returns its id (stable across redeliveries). ``ref``: its payload
        is its object's row as stored now, and is not copied (the module's docstring);
        ``stand_in``: what the row holds instead (a collection's status, for the feed's
        index). ``callback``: False when its payload is known to name no callback URL
        (migration 0022), so a router that looks for one need not read it."""
        event_id = self._ids.uuid()
        tx.execute(
            "INSERT INTO outbox (id, merchant_id, event_type, object_type, object_id, client_id,"
            " created_us, payload, ref, callback) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                event_id,
                merchant_id,
                event.type,
                event.object_type,
                event.object_id,
                event.client_id,
                created_us,
                stand_in if ref else event.raw,
                1 if ref else 0,
                1 if callback else 0,
            ),
        )
        if self.listener is not None:
            self.listener(tx, event, merchant_id, event_id)
        if self.notices is not None:
            self.notices.after_commit(tx, merchant_id, "event")
        return event_id


def stored_event(row: Any) -> StoredEvent:
    """A StoredEvent from an outbox row (``SELECT *`` or the columns below)."""
    return StoredEvent(row)


# An event's columns but its payload (dispatch reads payloads only for the events it routes)
HEAD_COLUMNS = "seq, id, merchant_id, event_type, object_type, object_id, client_id, created_us"
COLUMNS = f"{HEAD_COLUMNS}, payload"
# What reads payloads reads this view of the outbox: the same columns, a reference resolved.
EVENTS = "outbox_events"


def events_of_client(
    tx: Tx, merchant_id: str, client_id: str, limit: int, offset: int
) -> list[StoredEvent]:
    """A client's events, newest first."""
    rows = tx.all(
        f"SELECT {COLUMNS} FROM {EVENTS} WHERE client_id = ? AND merchant_id = ?"
        " ORDER BY seq DESC LIMIT ? OFFSET ?",
        (client_id, merchant_id, limit, offset),
    )
    return [stored_event(row) for row in rows]
