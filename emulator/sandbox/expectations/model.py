"""Expectations as data: what should have happened to a merchant, parsed from JSON (or YAML)
into an ``ExpectationSet``; each refusal names the key path (``expect[2].within: "5x" is not a
duration``). Pure: matching is ``rules_match``; gathering the records, a service.

An item is an object with exactly one of the kinds ``request``, ``delivery``, ``transition``,
``event`` (its value holds that kind's fields) and the item keys ``id``, ``count`` /
``at_least`` / ``at_most`` / ``never``, ``within`` and ``after``.
"""

from __future__ import annotations

import re
from typing import Any

import msgspec

from emulator.sandbox.expectations.rules_patterns import check_pattern
from emulator.sandbox.expectations.rules_times import (
    ExpectationError,
    duration_text,
    parse_duration,
    parse_instant,
)

KINDS = ("request", "delivery", "transition", "event")
ITEM_KEYS = frozenset({*KINDS, "id", "count", "at_least", "at_most", "never", "within", "after"})
SET_KEYS = frozenset({"expect", "in_order", "start"})
# The journal's interface of each ``api`` (the control plane is not journaled).
APIS = {"gateway": "gateway", "bank": "bank", "oauth": "auth"}
OUTCOMES = ("ok", "failed", "exhausted", "any")
DELIVERY_KINDS = ("webhook", "success_callback", "callback")
# ``{"any": TYPE}``: a value of this JSON type ("value": anything present).
ANY_TYPES = ("string", "number", "integer", "boolean", "object", "array", "null", "value")
MATCHER_KEYS = frozenset({"any", "regex"})
MAX_ITEMS = 200


class Matcher(msgspec.Struct, frozen=True):
    """``{"any": TYPE}`` or ``{"regex": PATTERN}`` inside a body or field subset."""

    any: str | None = None
    regex: str | None = None


class RequestSpec(msgspec.Struct, frozen=True):
    method: str | None = None
    path: str | None = None  # a template (``/purchases/{id}/``) or a glob (``*``, ``**``)
    body: Any = None  # a subset; values may be matchers
    status: int | str | None = None  # 201, or a class such as "2xx"
    interface: str | None = None  # the journal's name of the ``api``


class DeliverySpec(msgspec.Struct, frozen=True):
    event: str | None = None  # an event type, or a glob of them
    url: str | None = None  # exact or a glob
    sink: str | None = None  # the built-in receiver's name
    object_id: str | None = None
    outcome: str = "ok"
    attempt: int | None = None
    kind: str | None = None


class TransitionSpec(msgspec.Struct, frozen=True):
    status: str
    object_id: str | None = None
    object_type: str | None = None
    fields: Any = None


class EventSpec(msgspec.Struct, frozen=True):
    event: str | None = None
    object_id: str | None = None
    object_type: str | None = None
    fields: Any = None


Spec = RequestSpec | DeliverySpec | TransitionSpec | EventSpec


class Count(msgspec.Struct, frozen=True):
    low: int = 1
    high: int | None = None  # None: no upper bound

    def holds(self, n: int) -> bool:
        return n >= self.low and (self.high is None or n <= self.high)

    def words(self) -> str:
        if self.high == 0:
            return "no"
        if self.high is None:
            return f"at least {self.low}"
        if self.low == self.high:
            return f"exactly {self.low}"
        if self.low == 0:
            return f"at most {self.high}"
        return f"from {self.low} to {self.high}"


class Item(msgspec.Struct, frozen=True):
    index: int
    kind: str
    spec: Spec
    count: Count = Count()
    id: str | None = None
    within_us: int | None = None
    within_text: str | None = None  # as given, for the sentences
    after_us: int | None = None  # an instant
    after_id: str | None = None  # another item's id


class ExpectationSet(msgspec.Struct, frozen=True):
    items: tuple[Item, ...]
    in_order: bool = False
    start_us: int | None = None


# -- parsing ---------------------------------------------------------------------------------


def parse_set(body: Any) -> ExpectationSet:
    """An expectation set from a decoded JSON (or YAML) body: ``{"expect": [...],
    "in_order": bool, "start": ISO}``; ``extra`` keys (a wait's) are the caller's to check."""
    if not isinstance(body, dict):
        raise ExpectationError("body", "must be an object with 'expect': a list of items")
    unknown = sorted(set(body) - SET_KEYS - {"timeout_seconds", "advance"})
    if unknown:
        raise ExpectationError(unknown[0], "is not a key of an expectation set")
    raw = body.get("expect")
    if not isinstance(raw, list) or not raw:
        raise ExpectationError("expect", "must be a non-empty list of expectations")
    if len(raw) > MAX_ITEMS:
        raise ExpectationError("expect", f"holds at most {MAX_ITEMS} expectations")
    in_order = body.get("in_order", False)
    if not isinstance(in_order, bool):
        raise ExpectationError("in_order", "must be true or false")
    start = body.get("start")
    start_us = None if start is None else parse_instant("start", start)
    items = tuple(parse_item(f"expect[{i}]", i, value) for i, value in enumerate(raw))
    ids = [item.id for item in items if item.id is not None]
    seen: set[str] = set()
    for item in items:
        if item.id is not None:
            if item.id in seen:
                raise ExpectationError(f"expect[{item.index}].id", f"{item.id!r} is used twice")
            seen.add(item.id)
    for item in items:
        if item.after_id is not None:
            if item.after_id not in ids:
                raise ExpectationError(
                    f"expect[{item.index}].after",
                    f"{item.after_id!r} is neither an ISO instant nor the id of an expectation",
                )
            if item.after_id == item.id:
                raise ExpectationError(f"expect[{item.index}].after", "names its own item")
    return ExpectationSet(items, in_order, start_us)


def parse_item(path: str, index: int, raw: Any) -> Item:
    if not isinstance(raw, dict):
        raise ExpectationError(path, f"must be an object with one of: {', '.join(KINDS)}")
    unknown = sorted(set(raw) - ITEM_KEYS)
    if unknown:
        raise ExpectationError(f"{path}.{unknown[0]}", "is not a key of an expectation")
    kinds = [kind for kind in KINDS if kind in raw]
    if len(kinds) != 1:
        got = f"; got {', '.join(kinds)}" if kinds else ""
        raise ExpectationError(path, f"needs exactly one of: {', '.join(KINDS)}{got}")
    kind = kinds[0]
    fields = raw[kind]
    where = f"{path}.{kind}"
    if not isinstance(fields, dict):
        raise ExpectationError(where, "must be an object")
    spec: Spec
    if kind == "request":
        spec = _request(where, fields)
    elif kind == "delivery":
        spec = _delivery(where, fields)
    elif kind == "transition":
        spec = _transition(where, fields)
    else:
        spec = _event(where, fields)
    item_id = raw.get("id")
    if item_id is not None and (not isinstance(item_id, str) or not item_id):
        raise ExpectationError(f"{path}.id", "must be a non-empty string")
    within_us = within_text = None
    if raw.get("within") is not None:
        within_us = parse_duration(f"{path}.within", raw["within"])
        within_text = duration_text(raw["within"])
    after_us = after_id = None
    after = raw.get("after")
    if after is not None:
        if not isinstance(after, str) or not after:
            raise ExpectationError(f"{path}.after", "must be an ISO instant or an item's id")
        try:
            after_us = parse_instant(f"{path}.after", after)
        except ExpectationError:
            after_id = after
    return Item(
        index=index,
        kind=kind,
        spec=spec,
        count=_count(path, raw),
        id=item_id,
        within_us=within_us,
        within_text=within_text,
        after_us=after_us,
        after_id=after_id,
    )


def _count(path: str, raw: dict[str, Any]) -> Count:
    given = [key for key in ("count", "at_least", "at_most", "never") if raw.get(key) is not None]
    if "never" in given:
        if raw["never"] is not True:
            raise ExpectationError(f"{path}.never", "must be true (or left out)")
        if len(given) > 1:
            raise ExpectationError(f"{path}.never", f"cannot go with '{given[0]}'")
        return Count(0, 0)
    if "count" in given and len(given) > 1:
        other = next(key for key in given if key != "count")
        raise ExpectationError(f"{path}.count", f"cannot go with '{other}'")
    numbers = {key: _natural(f"{path}.{key}", raw[key]) for key in given}
    if "count" in numbers:
        return Count(numbers["count"], numbers["count"])
    low, high = (
        numbers.get("at_least", 1 if "at_most" not in numbers else 0),
        numbers.get("at_most"),
    )
    if high is not None and low > high:
        raise ExpectationError(f"{path}.at_most", f"is less than at_least ({low})")
    return Count(low, high)


def _natural(path: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 1_000_000:
        raise ExpectationError(path, f"must be an integer from 0 to 1,000,000, not {value!r}")
    return value


def _string(path: str, fields: dict[str, Any], name: str) -> str | None:
    value = fields.get(name)
    if value is not None and (not isinstance(value, str) or not value):
        raise ExpectationError(f"{path}.{name}", "must be a non-empty string")
    return value


def _unknown(path: str, fields: dict[str, Any], known: tuple[str, ...]) -> None:
    unknown = sorted(set(fields) - set(known))
    if unknown:
        raise ExpectationError(f"{path}.{unknown[0]}", f"is not a field; give {', '.join(known)}")


def _request(path: str, fields: dict[str, Any]) -> RequestSpec:
    _unknown(path, fields, ("method", "path", "body", "status", "api"))
    method = _string(path, fields, "method")
    target = _string(path, fields, "path")
    if target is not None and not target.startswith("/"):
        raise ExpectationError(f"{path}.path", f"must start with '/': {target!r}")
    status = fields.get("status")
    if status is not None:
        if isinstance(status, str) and re.fullmatch(r"[1-5]xx", status):
            pass
        elif isinstance(status, bool) or not isinstance(status, int) or not 0 <= status <= 599:
            raise ExpectationError(f"{path}.status", "must be a status such as 201 or '2xx'")
    api = _string(path, fields, "api")
    if api == "control":
        raise ExpectationError(f"{path}.api", "the control plane is not journaled")
    if api is not None and api not in APIS:
        raise ExpectationError(f"{path}.api", f"must be one of: {', '.join(APIS)}")
    if "body" in fields:
        check_subset(f"{path}.body", fields["body"])
    return RequestSpec(
        method=None if method is None else method.upper(),
        path=target,
        body=fields.get("body"),
        status=status,
        interface=None if api is None else APIS[api],
    )


def _delivery(path: str, fields: dict[str, Any]) -> DeliverySpec:
    known = ("event", "url", "sink", "object_id", "outcome", "attempt", "kind")
    _unknown(path, fields, known)
    if fields.get("url") is not None and fields.get("sink") is not None:
        raise ExpectationError(f"{path}.sink", "give 'url' or 'sink', not both")
    outcome = fields.get("outcome", "ok")
    if outcome not in OUTCOMES:
        raise ExpectationError(f"{path}.outcome", f"must be one of: {', '.join(OUTCOMES)}")
    kind = _string(path, fields, "kind")
    if kind is not None and kind not in DELIVERY_KINDS:
        raise ExpectationError(f"{path}.kind", f"must be one of: {', '.join(DELIVERY_KINDS)}")
    attempt = fields.get("attempt")
    if attempt is not None and (
        isinstance(attempt, bool) or not isinstance(attempt, int) or not 1 <= attempt <= 100
    ):
        raise ExpectationError(f"{path}.attempt", "must be an integer from 1 to 100")
    return DeliverySpec(
        event=_string(path, fields, "event"),
        url=_string(path, fields, "url"),
        sink=_string(path, fields, "sink"),
        object_id=_string(path, fields, "object_id"),
        outcome=outcome,
        attempt=attempt,
        kind=kind,
    )


def _transition(path: str, fields: dict[str, Any]) -> TransitionSpec:
    _unknown(path, fields, ("object_id", "object_type", "status", "fields"))
    status = _string(path, fields, "status")
    if status is None:
        raise ExpectationError(f"{path}.status", "is required: the status it reached")
    object_id = _string(path, fields, "object_id")
    object_type = _string(path, fields, "object_type")
    if object_id is None and object_type is None:
        raise ExpectationError(path, "needs 'object_id', or 'object_type' (with 'fields')")
    if "fields" in fields:
        check_subset(f"{path}.fields", fields["fields"], top=True)
    return TransitionSpec(status, object_id, object_type, fields.get("fields"))


def _event(path: str, fields: dict[str, Any]) -> EventSpec:
    _unknown(path, fields, ("event", "object_id", "object_type", "fields"))
    if "fields" in fields:
        check_subset(f"{path}.fields", fields["fields"], top=True)
    return EventSpec(
        event=_string(path, fields, "event"),
        object_id=_string(path, fields, "object_id"),
        object_type=_string(path, fields, "object_type"),
        fields=fields.get("fields"),
    )


def is_matcher(value: Any) -> bool:
    return isinstance(value, dict) and len(value) == 1 and next(iter(value)) in MATCHER_KEYS


def check_subset(path: str, value: Any, *, top: bool = False) -> None:
    """A subset to match: exact values, nested objects and lists, and matchers."""
    if top and not isinstance(value, dict):
        raise ExpectationError(path, "must be an object of the fields to match")
    if is_matcher(value):
        key, arg = next(iter(value.items()))
        if key == "any" and arg not in ANY_TYPES:
            raise ExpectationError(f"{path}.any", f"must be one of: {', '.join(ANY_TYPES)}")
        if key == "regex":
            check_pattern(f"{path}.regex", arg)
        return
    if isinstance(value, dict):
        for key, inner in value.items():
            check_subset(f"{path}.{key}", inner)
    elif isinstance(value, list):
        for i, inner in enumerate(value):
            check_subset(f"{path}[{i}]", inner)
