"""Bodies of a merchant's holds (``/_emulator/merchants/{company_id}/holds``), described as
structs for the document (``emulator/sandbox/holds/service.py`` makes and reads them)."""

from __future__ import annotations

from typing import Any, Literal

import msgspec
from msgspec import UNSET, UnsetType

Instant = str  # ISO-8601


class HoldRequest(msgspec.Struct):
    """``kind``: ``delivery`` or a decision point (``purchase.payment``,
    ``collection.outcome``, ``mandate.authorisation``); ``match``: the fields to match, as in
    a scenario's ``match``; ``count``: how many things it takes (default 1);
    ``timeout_seconds``: on the merchant's clock, from when it took a thing, then
    ``on_timeout`` (default ``release``)."""

    kind: str
    match: dict[str, Any] | UnsetType | None = UNSET
    count: int | UnsetType | None = UNSET
    timeout_seconds: int | UnsetType | None = UNSET
    on_timeout: Literal["release", "drop"] | UnsetType | None = UNSET


class HeldMessage(msgspec.Struct):
    """A held delivery as it would be sent now (its headers and body)."""

    id: int
    kind: str
    target_id: str
    url: str
    event_id: str
    event_type: str
    object_type: str
    object_id: str
    headers: dict[str, str]
    body: str


class HeldItem(msgspec.Struct):
    """One thing a hold took: a delivery (``message``) or a decision (``point``,
    ``default_outcome``: what happens when released as is); ``done``: what was done with it,
    ``by`` a call or the timeout."""

    id: int
    state: Literal["held", "released", "dropped", "duplicated", "delayed"]
    held_at: Instant
    subject: dict[str, Any]
    message: HeldMessage | UnsetType | None = UNSET
    point: str | UnsetType | None = UNSET
    default_outcome: dict[str, Any] | UnsetType | None = UNSET
    done: dict[str, Any] | UnsetType = UNSET


class Hold(msgspec.Struct):
    """A hold: ``armed`` (may take something), ``holding`` (something waits) or ``done``."""

    id: str
    merchant: str
    kind: str
    match: dict[str, Any]
    count: int
    remaining: int
    timeout_seconds: int | None
    on_timeout: Literal["release", "drop"]
    created: Instant
    state: Literal["armed", "holding", "done"]
    items: list[HeldItem]


class Holds(msgspec.Struct):
    """A merchant's holds, newest first."""

    holds: list[Hold]


class ReleaseRequest(msgspec.Struct):
    """A delivery: ``body`` (an object or text), ``headers`` (merged over its own),
    ``resign`` (default true: an edited body is signed again; false: the original signature
    goes with it). A decision: the point's outcome, as a scenario's ``then`` (``status``,
    ``reasonCode`` for a collection; ``status`` for a mandate; ``result``, ``reason`` for a
    card payment)."""

    body: dict[str, Any] | str | UnsetType = UNSET
    headers: dict[str, str] | UnsetType = UNSET
    resign: bool | UnsetType = UNSET
    status: str | UnsetType = UNSET
    reasonCode: str | UnsetType = UNSET
    reason: str | UnsetType = UNSET
    result: str | UnsetType = UNSET


class DuplicateRequest(msgspec.Struct):
    """How many times the held delivery goes out in all (2 to 10, default 2)."""

    times: int | UnsetType = UNSET


class DelayRequest(msgspec.Struct):
    """A duration on the merchant's clock, as an advance takes it (they add up)."""

    seconds: float | UnsetType = UNSET
    minutes: float | UnsetType = UNSET
    hours: float | UnsetType = UNSET
    days: float | UnsetType = UNSET
