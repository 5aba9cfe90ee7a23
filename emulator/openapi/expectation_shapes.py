"""Bodies of a merchant's expectations (``/_emulator/merchants/{company_id}/verify`` and
``/wait``), described as structs for the document; the results are the domain's own."""

from __future__ import annotations

from typing import Any

import msgspec
from msgspec import UNSET, UnsetType

from emulator.openapi.control_shapes import SinkMessage
from emulator.openapi.delivery_shapes import DeliveryAttempt
from emulator.sandbox.expectations.rules_match import ItemResult

Instant = str  # ISO-8601
Duration = str | float | dict[str, float]  # "5m", "1h30m", seconds, or {"days": 3}


class VerifyRequest(msgspec.Struct):
    """``expect``: the items, each with exactly one of ``request``, ``delivery``,
    ``transition``, ``event`` and the item keys ``id``, ``count``, ``at_least``, ``at_most``,
    ``never``, ``within``, ``after``; ``start``: the set's start (``within`` counts from it)."""

    expect: list[dict[str, Any]]
    in_order: bool | UnsetType = UNSET
    start: Instant | UnsetType = UNSET


class AdvanceUpTo(msgspec.Struct):
    up_to: Duration


class WaitRequest(msgspec.Struct):
    """A verify body, with how long to wait (real seconds, default 10) and how far the
    merchant's own clock may be stepped from one due job to the next."""

    expect: list[dict[str, Any]]
    in_order: bool | UnsetType = UNSET
    start: Instant | UnsetType = UNSET
    timeout_seconds: float | UnsetType = UNSET
    advance: AdvanceUpTo | UnsetType = UNSET


class Verified(msgspec.Struct):
    """``ok`` when every item holds; one result per item, in order."""

    ok: bool
    now: Instant
    results: list[ItemResult]


class WaitAdvanced(msgspec.Struct):
    """Where the merchant's clock was when the wait began, and how many jobs it ran."""

    jobs_run: int
    from_: Instant = msgspec.field(name="from")


class Waited(msgspec.Struct):
    """``at``: the instant every item held (absent when the wait timed out)."""

    ok: bool
    timed_out: bool
    now: Instant
    results: list[ItemResult]
    at: Instant | UnsetType = UNSET
    advanced: WaitAdvanced | UnsetType = UNSET


class WaitsOpen(msgspec.Struct):
    """How many waits are open now, of every merchant and sink."""

    open: int


class SinkWaited(msgspec.Struct):
    """What the sink holds: at least ``count`` messages, or fewer and ``timed_out``."""

    name: str
    messages: list[SinkMessage]
    timed_out: bool


class DeliveriesWaited(msgspec.Struct):
    """The attempts after ``after``, oldest first; none, and ``timed_out``, when none came."""

    deliveries: list[DeliveryAttempt]
    timed_out: bool
