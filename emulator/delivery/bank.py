"""The bank interface's router: unsigned JSON callbacks to the URLs registered per type.

Every status change of a collection, DebiCheck mandate or payment goes, as the spec's body for
its callback type, to each URL the profile's creating client registered for that type (and a
trigger or test request to those, or to its ``overrideUrl``). Callbacks are unsigned (the
spec); ``X-Event-Id`` (an emulator addition, as on webhooks) is the same for every copy and
retry of one event, so a receiver can deduplicate. The decision point is
``callback.delivery``.
"""

from __future__ import annotations

from emulator.delivery.outgoing import Outgoing
from emulator.kernel.outbox import StoredEvent
from emulator.kernel.storage import Tx
from emulator.scenarios import points
from emulator.services import bank_callbacks

OBJECT_TYPES = ("bank_collection", "bank_mandate", "bank_payment", bank_callbacks.REQUEST)


def bank_router(tx: Tx, event: StoredEvent) -> list[Outgoing]:
    return [
        Outgoing(
            url=c.url,
            body=c.body,
            headers={"Content-Type": "application/json", "X-Event-Id": event.id},
            kind="callback",
            target_id=c.target_id,
            point=points.CALLBACK_DELIVERY,
            subject={
                "callbackType": c.callback_type,
                "status": c.status,
                "url": c.url,
                "id": c.object_id,
            },
        )
        for c in bank_callbacks.messages_for(tx, event)
    ]
