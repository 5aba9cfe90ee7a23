"""The v2 event feeds (GET /v2/event/mandate, /collection, /payment): every status change of
the merchant's objects, as polled events with ascending integer ids."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from emulator.bank.calendar.rules import iso_us
from emulator.bank.common.service_events import ObjectType
from emulator.bank.events import repo

if TYPE_CHECKING:
    from emulator.kernel.context import Context

ID_FIELD = {
    "bank_mandate": "mandateId",
    "bank_collection": "collectionId",
    "bank_payment": "paymentId",
}


async def feed(
    rt: Context,
    merchant_id: str,
    object_type: ObjectType,
    filters: dict[str, Any],
    skip: int,
    take: int,
) -> list[dict[str, Any]]:
    found = await rt.db.read(
        lambda tx: repo.events(tx, merchant_id, object_type, filters, skip, take)
    )
    return [
        {
            "eventId": e.seq,
            "eventType": e.event_type,
            ID_FIELD[object_type]: e.object_id,
            "state": e.payload.get("status"),
            "timestamp": iso_us(e.created_us),
            "data": e.payload,
        }
        for e in found
    ]
