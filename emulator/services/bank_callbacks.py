"""v2 callbacks: URL registration, and the messages an outbox event turns into.

Sending is not here: ``messages_for`` is the router a delivery engine plugs in. Given one
stored outbox event of the bank interface, it returns one ``BankCallback`` per URL registered
for the event's callback type by the client that created the object's merchant profile (the
profile's ``createdByClient``), with the body of the spec's table for that type, as bytes.
Events that no callback type covers (EFT mandates, gateway events) give no message.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import msgspec

from emulator.domain import callbacks as domain
from emulator.domain.bank_calendar import iso_us
from emulator.domain.callbacks import Registration, RegistrationInput, TriggerInput
from emulator.domain.errors import BankBadRequest, NotFound
from emulator.domain.events import Event
from emulator.kernel.outbox import StoredEvent
from emulator.kernel.storage import Tx
from emulator.repos import bank as collections_repo
from emulator.repos import bank_callbacks as repo

if TYPE_CHECKING:
    from emulator.serving.runtime import Runtime

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


async def trigger(
    rt: Runtime, merchant_id: str, collection_id: str, data: TriggerInput, *, test: bool
) -> dict[str, Any]:
    """``POST /v2/callback/collection/eft/{id}/``: send the EFT collection's current status
    again to its registered URLs. ``test`` (``/v2/callback/test/...``): send a callback as if
    it had ``collectionStatus``, to the registered URLs or ``overrideUrl``, changing nothing."""
    status = domain.check_trigger(data, rt.url_rule)
    if data.overrideUrl is not None and not test:
        raise BankBadRequest("overrideUrl is for the test endpoint only")

    def unit(tx: Tx) -> dict[str, Any]:
        found = collections_repo.collection(tx, collection_id, merchant_id)
        if found is None or found[1].type != "EFT":
            raise NotFound()
        obj = msgspec.to_builtins(found[1])
        if test:
            obj["status"] = status
        payload = {
            "object_type": "bank_collection",
            "object": obj,
            "override_url": data.overrideUrl,
        }
        kind = "test" if test else "trigger"
        event = Event(f"collection.callback_{kind}", REQUEST, collection_id, payload)
        rt.outbox.emit(tx, merchant_id, event, rt.clock.now_us())
        client = repo.client_of_profile(tx, merchant_id, str(obj.get("profileCode")))
        registered = (
            [] if client is None else repo.registrations(tx, merchant_id, "EFT_COLLECTION", client)
        )
        return {
            "collectionId": collection_id,
            "collectionStatus": obj["status"],
            "callbackVersion": data.callbackVersion,
            "callbacks": 1 if data.overrideUrl is not None else len(registered),
        }

    return await rt.db.write(unit)


async def register(rt: Runtime, merchant_id: str, data: RegistrationInput) -> Registration:
    """POST /v2/clientcallbackurl/: clientId must be the createdByClient of one of the
    merchant's profiles; any number of URLs per type."""
    client_id, url, kind, version = domain.check_registration(data, rt.url_rule)
    registration = Registration(
        id=rt.ids.uuid(), clientId=client_id, url=url, callbackType=kind, callbackVersion=version
    )

    def unit(tx: Tx) -> Registration:
        if client_id not in repo.client_numbers(tx, merchant_id):
            raise BankBadRequest("clientId does not match the profile's createdByClient")
        repo.insert(tx, merchant_id, registration)
        return registration

    return await rt.db.write(unit)
