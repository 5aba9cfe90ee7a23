"""The delivery log's shapes in the control plane's document: an attempt, its copy and cause,
a page of them. Published under ``control_shapes``, where they were first."""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec
from msgspec import UNSET, Meta, UnsetType

from emulator.openapi.control_shapes import Instant

OPENAPI_NAMESPACE = "control_shapes"  # the components keep their published names


DURATION = (
    "Wall time of the HTTP exchange, in milliseconds; null when nothing was sent (a scenario's"
    " fail_attempts) and for attempts recorded before it was measured"
)


REPLAY_OF = "A replay's attempts only: the message it replays (its `message_id`)"


HEADERS = (
    "Every header that went on the wire, in order: Host, the HTTP client's own, the"
    " message's, X-Emulator-Time, Content-Length"
)


COPIES = "Copies only: how many sends of its event to its target there are"


COPY = "Copies only (one of several sends of its event to its target): its place, from 1"


class CopyCause(msgspec.Struct):
    """What made a message a copy: a scenario's `copies` (its name), an outcome header (the
    decision point), a hold's `duplicate` (the hold's id), a replay (the message replayed)."""

    kind: Literal["scenario", "outcome_header", "hold", "replay"]
    id: str


class DeliveryAttempt(msgspec.Struct):
    id: int
    message_id: int
    merchant: str | None
    kind: Literal["webhook", "success_callback", "callback"]
    target_id: str
    event_id: str
    event_type: str
    object_type: str
    object_id: str
    url: str
    headers: Annotated[dict[str, str], Meta(description=HEADERS)]
    body: str
    attempt: int
    at: Instant
    status: int | None
    error: str | None
    success: bool
    duration_ms: Annotated[float, Meta(description=DURATION)] | None
    replay_of: Annotated[int, Meta(description=REPLAY_OF)] | UnsetType = UNSET
    copy: Annotated[int, Meta(description=COPY)] | UnsetType = UNSET
    copies: Annotated[int, Meta(description=COPIES)] | UnsetType = UNSET
    cause: CopyCause | UnsetType | None = UNSET


class Deliveries(msgspec.Struct):
    deliveries: list[DeliveryAttempt]
