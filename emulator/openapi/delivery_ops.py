"""The control plane's delivery operations: the log's filters, replay and recover, endpoints
switched off and on, a merchant's auto-disable (``emulator/sandbox/deliveries/routes.py``)."""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec
from msgspec import UNSET, Meta, UnsetType

from emulator.openapi.control import AFTER, BEFORE, LIMIT, MERCHANT, NO_MERCHANT, op
from emulator.openapi.delivery_shapes import Deliveries
from emulator.openapi.model import Operation, Param

Instant = str  # ISO-8601
Outcome = Literal["ok", "failed", "exhausted"]
Kind = Literal["webhook", "success_callback", "callback"]
Switchable = Literal["webhook", "callback"]


class DeliveryFilter(msgspec.Struct):
    """Which deliveries: every key narrows (none: all); instants on the merchant's clock."""

    merchant: str | UnsetType = UNSET
    event_type: str | UnsetType = UNSET
    outcome: Outcome | UnsetType = UNSET
    object_id: str | UnsetType = UNSET
    url: str | UnsetType = UNSET
    since: Instant | UnsetType = UNSET
    until: Instant | UnsetType = UNSET


class Replayed(msgspec.Struct):
    message_id: int
    replay_of: int
    merchant: str | None
    kind: Kind
    target_id: str
    event_id: str
    event_type: str
    object_id: str
    url: str


class ReplayDone(msgspec.Struct):
    """How many messages were sent again (at most 1,000; ``truncated``: more matched)."""

    count: int
    truncated: bool
    replayed: list[Replayed]


class EndpointStateRequest(msgspec.Struct):
    enabled: bool
    drop: bool | UnsetType = UNSET


class EndpointSwitched(msgspec.Struct):
    """``released``: the held messages sent again (switched on)."""

    id: str
    kind: Switchable
    merchant: str
    enabled: bool
    drop: bool
    at: Instant
    released: int


class EndpointState(msgspec.Struct):
    kind: Switchable
    id: str
    merchant: str
    enabled: bool
    drop: bool
    changed_at: Instant
    reason: Literal["auto_disabled"] | None


class KeptMessage(msgspec.Struct):
    message_id: int
    merchant: str | None
    kind: Switchable
    target_id: str
    outcome: Literal["held", "dropped"]
    at: Instant
    event_id: str
    event_type: str
    object_id: str
    url: str


class EndpointEvent(msgspec.Struct):
    id: int
    merchant: str | None
    kind: Switchable
    target_id: str
    at: Instant
    action: Literal["switched_off", "switched_on", "auto_disabled", "held", "dropped"]
    message_id: int | None
    detail: str | None


class Endpoints(msgspec.Struct):
    endpoints: list[EndpointState]
    kept: list[KeptMessage]
    events: list[EndpointEvent]


class DeliverySettings(msgspec.Struct):
    auto_disable_after_days: Annotated[int, Meta(ge=1, le=365)] | None


class DeliverySettingsView(msgspec.Struct):
    company_id: str
    auto_disable_after_days: int | None


FILTER_QUERY = (
    MERCHANT,
    Param("event_type", str, "Only attempts of this event or callback type"),
    Param("outcome", Outcome, "ok, failed, or exhausted (a failed last attempt: no retry left)"),
    Param("object_id", str),
    Param("url", str, "Only attempts to this URL"),
    Param("since", Instant, "Only attempts at or after this instant (the merchant's clock)"),
    Param("until", Instant, "Only attempts at or before this instant"),
    Param("kind", Kind, "webhook, success_callback or callback"),
)
BAD_FILTER = {400: "A bad filter key or value, named (`invalid`)."}
NO_ENDPOINT = {404: "No such webhook or callback registration (`not_found`)."}

OPERATIONS: list[Operation] = [
    op("deliveries", "GET", "/deliveries", "Every delivery attempt, newest first",
       "Deliveries", Deliveries,
       errors={400: "A bad `limit`, `before`, `after` or filter (`invalid`)."},
       query=(*FILTER_QUERY, LIMIT, BEFORE, AFTER)),
    op("deliveries_replay", "POST", "/deliveries/replay",
       "Send the messages the filter picks again: same event, fresh signature", "Deliveries",
       ReplayDone, body=DeliveryFilter, errors={**BAD_FILTER, **NO_MERCHANT},
       description="Each is a new message of the same event (same `X-Event-Id` and body),"
       " signed again with its receiver's key of now, attempted now and retried as any;"
       " its attempts carry `replay_of` in the log. The outcome is the message's: `ok`"
       " delivered, `failed` its last attempt failed, `exhausted` failed with no retry left;"
       " `since` and `until` bound its event's instant."),
    op("deliveries_recover", "POST", "/deliveries/recover",
       "Send again every message whose last attempt failed since `since`", "Deliveries",
       ReplayDone, body=DeliveryFilter, errors={**BAD_FILTER, **NO_MERCHANT},
       description="For a `merchant` or an endpoint's `url` (one of them, and `since`, are"
       " required); a message already recovered (its replay delivered or under way) is"
       " not sent again."),
    op("endpoints", "GET", "/endpoints",
       "Endpoints switched off, the messages they keep, and what happened to them",
       "Deliveries", Endpoints, query=(MERCHANT, LIMIT),
       errors={400: "A bad `limit` or key (`invalid`).", **NO_MERCHANT}),
    op("webhook_state", "PUT", "/webhooks/{id}/state", "Switch a webhook off or on",
       "Deliveries", EndpointSwitched, body=EndpointStateRequest,
       errors={**NO_ENDPOINT},
       description="While off, its messages are kept, not attempted (`drop`: dropped);"
       " switched on, the kept ones are sent, in order."),
    op("callback_state", "PUT", "/callbacks/{id}/state",
       "Switch a v2 callback registration off or on", "Deliveries", EndpointSwitched,
       body=EndpointStateRequest, errors={**NO_ENDPOINT}),
    op("delivery_settings_set", "PUT", "/merchants/{company_id}/delivery-settings",
       "Set a merchant's auto-disable (null: never, the default)", "Deliveries",
       DeliverySettingsView, body=DeliverySettings, errors=NO_MERCHANT,
       description="An endpoint whose attempts have only failed for"
       " `auto_disable_after_days` days on the merchant's clock is switched off at its next"
       " attempt: an `auto_disabled` event, journaled."),
    op("delivery_settings_read", "GET", "/merchants/{company_id}/delivery-settings",
       "A merchant's delivery settings", "Deliveries", DeliverySettingsView,
       errors=NO_MERCHANT),
]  # fmt: skip
