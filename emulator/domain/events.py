"""Domain events: what a state change tells the world."""

from __future__ import annotations

from typing import Any

import msgspec


class Event(msgspec.Struct, frozen=True):
    type: str  # e.g. "client.created", "purchase.paid"
    object_type: str  # e.g. "client", "purchase"
    object_id: str
    payload: dict[str, Any]  # the object as the event shows it
    client_id: str | None = None  # the gateway client concerned, for its feed
