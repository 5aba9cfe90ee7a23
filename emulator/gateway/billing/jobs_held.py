"""The bill a ``billing.bill`` job is storing, as the purchase event hooks see it.

While a bill's purchase is stored (its events emitted, their hooks run in the same unit of
work), the job holds it here with its subscriber, schedule and template: the payment's hook
(``billing_engine.on_paid``) is handed them instead of reading the link, the subscriber and
the template again, and reads the purchase's fields from the bill that made it instead of
decoding its event's JSON."""

from __future__ import annotations

from contextvars import ContextVar

import msgspec

from emulator.domain.events import Event
from emulator.gateway.billing.model import BillingTemplate, Schedule, Subscriber


class Billed(msgspec.Struct):
    """What the hooks read of a purchase event's payload, decoded alone (the rest of the
    purchase's JSON is skipped, not built)."""

    id: str
    product: str = ""
    is_recurring_token: bool = False
    recurring_token: str | None = None


_decode_billed = msgspec.json.Decoder(Billed)


class Held(msgspec.Struct):
    """The purchase a bill job is storing (its fields as the hooks read them), with its
    subscriber and schedule as the job holds them (``stored``: written to the database
    since) and its template."""

    purchase: Billed
    s: Subscriber
    plan: Schedule
    t: BillingTemplate
    stored: bool = False


held_bill: ContextVar[Held | None] = ContextVar("billing", default=None)


def purchase_of(event: Event) -> Billed:
    """What the hooks read of a purchase event: the fields of the bill being stored when it
    is that bill's (the job made the purchase, and the payment the event tells of), else
    decoded from the event's JSON."""
    held = held_bill.get()
    if held is not None and held.purchase.id == event.object_id:
        return held.purchase
    return _decode_billed.decode(event.raw)
