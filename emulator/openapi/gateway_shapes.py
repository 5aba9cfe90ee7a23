"""Bodies of the gateway that the code builds as plain dicts, described as structs (for the
document only: nothing encodes or decodes them)."""

from __future__ import annotations

from typing import Annotated, Generic, TypeVar

import msgspec
from msgspec import Meta

from emulator.gateway.billing.model import Subscriber
from emulator.gateway.purchases.model import Purchase

T = TypeVar("T")


class Page(msgspec.Struct, Generic[T]):
    """A page of a list, newest first; ``next`` and ``previous`` are full URLs (no count)."""

    results: list[T]
    next: str | None
    previous: str | None


class RecurringToken(msgspec.Struct):
    """A saved card of a client: a purchase that is a recurring token (its id is the token)."""

    type: str
    id: str
    created_on: int
    updated_on: int
    payment_method: str
    description: str


class FeedItem(msgspec.Struct):
    """An event that concerned the client (the emulator's own shape: the spec shows none)."""

    id: str
    type: str
    event_type: str
    object_type: str
    object_id: str
    created_on: int


DURATION = "Wall time of the HTTP exchange, in milliseconds; null when nothing was sent"


class WebhookDelivery(msgspec.Struct):
    """One delivery attempt of a webhook or success callback (the emulator's own shape)."""

    id: int
    type: str
    webhook_id: str | None
    kind: str
    event_id: str
    event_type: str
    url: str
    attempt: int
    response_status: int | None
    error: str | None
    successful: bool
    duration_ms: Annotated[float, Meta(description=DURATION)] | None
    created_on: int


class Balance(msgspec.Struct):
    """One currency's balance, in minor units."""

    balance: int
    fee_sell: int
    reserved: int
    gross_balance: int
    pending_outgoing: int
    available_balance: int


class Count(msgspec.Struct):
    all: int


class Turnover(msgspec.Struct):
    turnover: int
    fee_sell: int
    count: Count


class TurnoverPair(msgspec.Struct):
    incoming: Turnover
    outgoing: Turnover


class PaymentMethods(msgspec.Struct):
    available_payment_methods: list[str]
    by_country: dict[str, list[str]]
    country_names: dict[str, str]
    names: dict[str, str]
    logos: dict[str, str]
    card_methods: list[str]


class SubscriberAdded(msgspec.Struct):
    """What add_subscriber answers: the subscriber, and the purchase to pay (or null)."""

    billing_template_client: Subscriber
    purchase: Purchase | None
