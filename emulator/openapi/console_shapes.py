"""Bodies of the control plane's object reads and re-send (the QA console uses them), as
structs for the document only."""

from __future__ import annotations

from typing import Any, Literal

import msgspec

from emulator.openapi.control_shapes import Instant, ScheduledJob
from emulator.openapi.delivery_shapes import DeliveryAttempt


class ObjectList(msgspec.Struct):
    """A page of the merchant's objects of the kind that match (newest first unless
    sorted), as stored (the API's JSON); ``count``: how many match in all."""

    kind: str
    count: int
    offset: int
    objects: list[dict[str, Any]]


class StatusChange(msgspec.Struct):
    """The object took ``status`` at ``at`` (on its merchant's clock), with event ``event``."""

    at: Instant
    status: str
    event: str


class ObjectEvent(msgspec.Struct):
    id: str
    event_type: str
    at: Instant
    status: str | None
    payload: dict[str, Any]


class HeldOfObject(msgspec.Struct):
    """A thing a hold took of the object (oldest first): a delivery of it (``message_id``)
    or a decision about it (``point``), its state (``held``, ``released``, ``dropped``,
    ``duplicated``, ``delayed``) and what was done (``done``: ``by`` a call or the timeout,
    with the edits, ``times`` or ``until``)."""

    hold: str
    item: int
    state: Literal["held", "released", "dropped", "duplicated", "delayed"]
    message_id: int | None
    point: str | None
    held_at: Instant
    done: dict[str, Any] | None
    done_at: Instant | None


class ObjectDetail(msgspec.Struct):
    """One object: its JSON, status history, events (oldest first), deliveries (newest
    first) and pending jobs (soonest first)."""

    kind: str
    id: str
    merchant: str
    status: str | None
    object: dict[str, Any]
    history: list[StatusChange]
    events: list[ObjectEvent]
    deliveries: list[DeliveryAttempt]
    jobs: list[ScheduledJob]
    holds: list[HeldOfObject]


class Found(msgspec.Struct):
    """The id asked for, and the object that has it (null when nothing has it)."""

    id: str
    object: ObjectDetail | None


class Resent(msgspec.Struct):
    """The new message, and its attempts so far (the first, unless it is still under way)."""

    message_id: int
    deliveries: list[DeliveryAttempt]
