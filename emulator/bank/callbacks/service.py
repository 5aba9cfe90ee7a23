"""v2 callbacks: URL registration, and the trigger and test requests.

The messages an outbox event turns into are made by the bank router (``bank.callbacks.router``); a
trigger or test request is an event of its ``REQUEST`` object type.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import msgspec

from emulator.bank.callbacks import repo
from emulator.bank.callbacks import rules as domain
from emulator.bank.callbacks.router import REQUEST
from emulator.bank.callbacks.rules import Registration, RegistrationInput, TriggerInput
from emulator.bank.collections import repo as collections_repo
from emulator.domain.errors import BankBadRequest, NotFound
from emulator.domain.events import Event
from emulator.kernel.storage import Tx

if TYPE_CHECKING:
    from emulator.kernel.context import Context


async def trigger(
    rt: Context, merchant_id: str, collection_id: str, data: TriggerInput, *, test: bool
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


async def register(rt: Context, merchant_id: str, data: RegistrationInput) -> Registration:
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
