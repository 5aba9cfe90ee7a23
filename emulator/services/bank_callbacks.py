"""v2 callbacks: URL registration, and the messages an outbox event turns into.

Sending is not here: ``messages_for`` is the router a delivery engine plugs in. Given one
stored outbox event of the bank interface, it returns one ``BankCallback`` per URL registered
for the event's callback type by the client that created the object's merchant profile (the
profile's ``createdByClient``), with the body of the spec's table for that type, as bytes.
Events that no callback type covers (EFT mandates, gateway events) give no message.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import msgspec

from emulator.domain import callbacks as domain
from emulator.domain.bank_calendar import iso_us
from emulator.domain.callbacks import Registration, RegistrationInput
from emulator.domain.errors import BankBadRequest
from emulator.kernel.outbox import StoredEvent
from emulator.kernel.storage import Tx
from emulator.repos import bank_callbacks as repo

if TYPE_CHECKING:
    from emulator.runtime import Runtime

_encode = msgspec.json.Encoder()


class BankCallback(msgspec.Struct, frozen=True):
    """One callback to send: where, the exact JSON body, and what it is about."""

    url: str
    body: bytes
    callback_type: str
    object_id: str
    status: str


def messages_for(tx: Tx, event: StoredEvent) -> list[BankCallback]:
    """The callbacks ``event`` causes: one per registered URL of its type for its merchant and
    the client that created its profile, oldest registration first."""
    kind = domain.callback_type(event.object_type, event.payload)
    profile_code = event.payload.get("profileCode")
    if kind is None or not isinstance(profile_code, str):
        return []
    client = repo.client_of_profile(tx, event.merchant_id, profile_code)
    if client is None:
        return []
    body = _encode.encode(domain.body(kind, event.payload, iso_us(event.created_us)))
    status = str(event.payload.get("status"))
    return [
        BankCallback(
            url=r.url, body=body, callback_type=kind, object_id=event.object_id, status=status
        )
        for r in repo.registrations(tx, event.merchant_id, kind, client)
    ]


async def register(rt: Runtime, merchant_id: str, data: RegistrationInput) -> Registration:
    """POST /v2/clientcallbackurl/: clientId must be the createdByClient of one of the
    merchant's profiles; any number of URLs per type."""
    client_id, url, kind, version = domain.check_registration(data)
    registration = Registration(
        id=rt.ids.uuid(), clientId=client_id, url=url, callbackType=kind, callbackVersion=version
    )

    def unit(tx: Tx) -> Registration:
        if client_id not in repo.client_numbers(tx, merchant_id):
            raise BankBadRequest("clientId does not match the profile's createdByClient")
        repo.insert(tx, merchant_id, registration)
        return registration

    return await rt.db.write(unit)
