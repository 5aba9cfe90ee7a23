"""Domain events: what a state change tells the world."""

from __future__ import annotations

from typing import Any

import msgspec

_encode = msgspec.json.Encoder()
_decode = msgspec.json.Decoder(dict[str, Any])


class Event:
    """An event: its type (e.g. "client.created", "purchase.paid"), its object's type and id,
    the object as the event shows it (``payload``) and the gateway client concerned (for its
    feed). ``encoded`` makes one from the object's JSON instead: the outbox stores those bytes
    as they are, and the payload is decoded from them only when something in the unit of work
    asks for it (most events are stored and never read before their commit)."""

    __slots__ = ("_payload", "_raw", "client_id", "object_id", "object_type", "type")

    def __init__(
        self,
        type: str,
        object_type: str,
        object_id: str,
        payload: dict[str, Any],
        client_id: str | None = None,
    ) -> None:
        self.type = type
        self.object_type = object_type
        self.object_id = object_id
        self.client_id = client_id
        self._payload: dict[str, Any] | None = payload
        self._raw: bytes | None = None

    @classmethod
    def encoded(
        cls, type: str, object_type: str, object_id: str, obj: Any, client_id: str | None = None
    ) -> Event:
        """The event of ``obj`` as it is now (its JSON, the bytes ``to_builtins`` and an
        encode of it would make: a later change of ``obj`` does not show)."""
        event = cls(type, object_type, object_id, {}, client_id)
        event._payload, event._raw = None, _encode.encode(obj)
        return event

    @classmethod
    def of_json(
        cls, type: str, object_type: str, object_id: str, raw: bytes, client_id: str | None = None
    ) -> Event:
        """The event of an object already encoded: ``raw`` is its JSON as just stored (the
        bytes ``encoded`` would make of it), kept as it is instead of encoding it again."""
        event = cls(type, object_type, object_id, {}, client_id)
        event._payload, event._raw = None, raw
        return event

    @property
    def payload(self) -> dict[str, Any]:
        if self._payload is None:
            assert self._raw is not None
            self._payload = _decode.decode(self._raw)
        return self._payload

    @property
    def raw(self) -> bytes:
        """The payload as JSON (what the outbox stores)."""
        if self._raw is None:
            self._raw = _encode.encode(self._payload)
        return self._raw

    def __repr__(self) -> str:
        return f"Event({self.type!r}, {self.object_type!r}, {self.object_id!r})"
