"""The bank interface's router: unsigned JSON callbacks to the URLs registered per type.

Every status change of a collection, DebiCheck mandate or payment goes, as the spec's body for
its callback type, to each URL the profile's creating client registered for that type (and a
trigger or test request to those, or to its ``overrideUrl``). Callbacks are unsigned (the
spec); ``X-Event-Id`` (an emulator addition, as on webhooks) is the same for every copy and
retry of one event, so a receiver can deduplicate. The decision point is
``callback.delivery``.

``messages_for`` turns one stored outbox event of the bank interface into one ``BankCallback``
per URL registered for the event's callback type by the client that created the object's
merchant profile (the profile's ``createdByClient``), with the body of the spec's table for
that type, as bytes. Events that no callback type covers (EFT mandates, gateway events) give
no message.
"""

from __future__ import annotations

from typing import Any

import msgspec

from emulator.bank.calendar.rules import iso_us
from emulator.bank.callbacks import repo
from emulator.bank.callbacks import rules as domain
from emulator.delivery.outgoing import Outgoing
from emulator.kernel.outbox import StoredEvent
from emulator.kernel.storage import Tx
from emulator.scenarios import points

_encode = msgspec.json.Encoder()


class BankCallback(msgspec.Struct, frozen=True):
    """One callback to send: where (and to which registration: ``target_id``), the exact
    JSON body, and what it is about."""

    url: str
    body: bytes
    callback_type: str
    object_id: str
    status: str
    target_id: str = ""


# Events of trigger and test requests: not status changes (the v2 event feeds, which read
# the collection, mandate and payment object types, never show them).
REQUEST = "bank_callback_request"


def messages_for(tx: Tx, event: StoredEvent) -> list[BankCallback]:
    """The callbacks ``event`` causes: one per registered URL of its type for its merchant and
    the client that created its profile, oldest registration first."""
    if event.object_type == REQUEST:
        return _requested(tx, event)
    if not repo.any_registered(tx, event.merchant_id):  # its payload need not even be read
        return []
    return _callbacks(tx, event, event.object_type, event.payload, None)


def _callbacks(
    tx: Tx, event: StoredEvent, object_type: str, obj: dict[str, Any], override_url: str | None
) -> list[BankCallback]:
    kind = domain.callback_type(object_type, obj)
    profile_code = obj.get("profileCode")
    if kind is None or not isinstance(profile_code, str):
        return []
    if override_url is not None:
        targets = [(override_url, f"override:{override_url}")]
    else:
        client = repo.client_of_profile(tx, event.merchant_id, profile_code)
        if client is None:
            return []
        found = repo.registrations(tx, event.merchant_id, kind, client)
        targets = [(r.url, r.id) for r in found]
    if not targets:  # the body only for someone: most events of a busy day have no URL
        return []
    body = _encode.encode(domain.body(kind, obj, iso_us(event.created_us)))
    status = str(obj.get("status"))
    return [BankCallback(url, body, kind, event.object_id, status, t) for url, t in targets]


def _requested(tx: Tx, event: StoredEvent) -> list[BankCallback]:
    """A trigger or test request: the object as it is (or with the status to simulate)."""
    obj = event.payload.get("object")
    object_type = event.payload.get("object_type")
    override = event.payload.get("override_url")
    if not isinstance(obj, dict) or not isinstance(object_type, str):
        return []
    return _callbacks(tx, event, object_type, obj, override if isinstance(override, str) else None)


OBJECT_TYPES = ("bank_collection", "bank_mandate", "bank_payment", REQUEST)
# The events ``bank_router`` may make callbacks of, as SQL on the outbox's columns: trigger and
# test requests, and changes of merchants with a callback URL (``messages_for``). Dispatch
# passes over the others unread (a busy day's outcomes of a merchant without callbacks).
WANTED = repo.wanted_events(REQUEST)


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
        for c in messages_for(tx, event)
    ]
