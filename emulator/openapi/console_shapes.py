"""Bodies of the control plane's object reads and re-send (the QA console uses them), as
structs for the document only."""

from __future__ import annotations

from typing import Any

import msgspec

from emulator.openapi.control_shapes import DeliveryAttempt, Instant, ScheduledJob


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


class Found(msgspec.Struct):
    """The id asked for, and the object that has it (null when nothing has it)."""

    id: str
    object: ObjectDetail | None


class Resent(msgspec.Struct):
    """The new message, and its attempts so far (the first, unless it is still under way)."""

    message_id: int
    deliveries: list[DeliveryAttempt]
