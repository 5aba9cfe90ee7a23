"""The filter of the delivery operations: which deliveries a replay, a recover or a read of
the delivery log is about (``docs/webhooks.md``, "Replay, recover, switch off").

A filter is a JSON object (a body) or a query string, with the keys ``merchant``,
``event_type``, ``outcome`` (``ok``, ``failed``, ``exhausted``), ``object_id``, ``url``,
``since`` and ``until`` (ISO-8601 instants on the merchant's clock), and ``kind`` for the log.
A message is ``exhausted`` when its last attempt failed and it was the last the retry schedule
allows (``FINAL_ATTEMPT``): it will not be tried again.
"""

from __future__ import annotations

from typing import Any

import msgspec

from emulator.sandbox.expectations.rules_times import ExpectationError, parse_instant

OUTCOMES = ("ok", "failed", "exhausted")
KINDS = ("webhook", "success_callback", "callback")
KEYS = ("merchant", "event_type", "outcome", "object_id", "url", "since", "until")
# The first attempt and 8 retries (``emulator/delivery/outgoing.py``'s ``MAX_ATTEMPTS``;
# tests/delivery/test_delivery_ops.py keeps the two equal).
FINAL_ATTEMPT = 9
MAX_TEXT = 2048  # a filter's text values, at most (URLs included)


class FilterError(ValueError):
    """Bad input: ``key`` names the offending key."""

    def __init__(self, key: str, message: str) -> None:
        super().__init__(f"'{key}' {message}")
        self.key = key


class DeliveryFilter(msgspec.Struct, frozen=True, kw_only=True):
    merchant: str | None = None
    event_type: str | None = None
    outcome: str | None = None
    object_id: str | None = None
    url: str | None = None
    since_us: int | None = None
    until_us: int | None = None
    kind: str | None = None

    @property
    def empty(self) -> bool:
        return self == DeliveryFilter()


def parse_filter(fields: dict[str, Any], extra: tuple[str, ...] = ()) -> DeliveryFilter:
    """The filter of these fields (a body's or a query's); ``extra``: other keys allowed
    (and ignored here). FilterError names the first bad key."""
    allowed = (*KEYS, "kind", *extra)
    for key in fields:
        if key not in allowed:
            raise FilterError(str(key)[:64], f"is not a filter key; give {', '.join(KEYS)}")
    texts: dict[str, str | None] = {}
    for key in ("merchant", "event_type", "outcome", "object_id", "url", "kind"):
        value = fields.get(key)
        if value is not None and (not isinstance(value, str) or not 0 < len(value) <= MAX_TEXT):
            raise FilterError(key, f"must be a non-empty string of at most {MAX_TEXT} characters")
        texts[key] = value
    if texts["outcome"] is not None and texts["outcome"] not in OUTCOMES:
        raise FilterError("outcome", f"must be one of: {', '.join(OUTCOMES)}")
    if texts["kind"] is not None and texts["kind"] not in KINDS:
        raise FilterError("kind", f"must be one of: {', '.join(KINDS)}")
    instants: dict[str, int | None] = {}
    for key in ("since", "until"):
        value = fields.get(key)
        try:
            instants[key] = None if value is None else parse_instant(key, value)
        except ExpectationError:
            raise FilterError(key, f"is not an ISO-8601 instant: {str(value)[:64]!r}") from None
    since, until = instants["since"], instants["until"]
    if since is not None and until is not None and since > until:
        raise FilterError("until", "is before 'since'")
    return DeliveryFilter(
        merchant=texts["merchant"],
        event_type=texts["event_type"],
        outcome=texts["outcome"],
        object_id=texts["object_id"],
        url=texts["url"],
        since_us=since,
        until_us=until,
        kind=texts["kind"],
    )
