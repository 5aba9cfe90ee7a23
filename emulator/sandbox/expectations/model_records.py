"""What expectations are matched against: a merchant's records as plain structs (journal
entries, delivery attempts, outbox events and the transitions read from them), and the
criteria of one expectation over one record, each met or not with a word on why not. Pure."""

from __future__ import annotations

import fnmatch
import functools
import re
from collections.abc import Callable
from typing import Any, TypeVar
from urllib.parse import parse_qsl

import msgspec

from emulator.domain.delivery_filters import FINAL_ATTEMPT
from emulator.sandbox.expectations.model import (
    DeliverySpec,
    EventSpec,
    RequestSpec,
    TransitionSpec,
    is_matcher,
)
from emulator.sandbox.expectations.rules_patterns import MAX_TEXT, compiled

T = TypeVar("T")


class RequestRecord(msgspec.Struct, frozen=True, gc=False):  # scalars: no cycles to collect
    id: int
    at_us: int
    interface: str
    method: str
    path: str
    status: int
    body: str = ""


class DeliveryRecord(msgspec.Struct, frozen=True, gc=False):
    id: int  # the attempt's
    at_us: int
    message_id: int
    event_type: str
    object_type: str
    object_id: str
    kind: str
    url: str
    attempt: int
    status: int | None
    error: str | None
    success: bool


class EventRecord(msgspec.Struct, frozen=True, dict=True):
    seq: int
    id: str
    at_us: int
    event_type: str
    object_type: str
    object_id: str
    status: str | None  # the payload's status (the object's, as the event shows it)
    raw: bytes = b"{}"  # the payload as stored, decoded when a field subset asks

    @functools.cached_property
    def payload(self) -> Any:
        return msgspec.json.decode(self.raw)


class TransitionRecord(msgspec.Struct, frozen=True):
    """An object's status changing, as its events show: the first event of a new status."""

    event: EventRecord
    previous: str | None


class Records(msgspec.Struct, frozen=True, dict=True):
    """One merchant's records, each list oldest first."""

    requests: list[RequestRecord] = []
    deliveries: list[DeliveryRecord] = []
    events: list[EventRecord] = []

    @functools.cached_property
    def transitions(self) -> list[TransitionRecord]:
        last: dict[str, str | None] = {}
        found: list[TransitionRecord] = []
        for event in self.events:
            status = event.status
            if status is None:
                continue
            previous = last.get(event.object_id)
            if previous is None or (previous != status and previous.lower() != status.lower()):
                found.append(TransitionRecord(event, previous))
            last[event.object_id] = status
        return found

    # Indexes for narrowing a kind's records before matching (``expectation_select``).

    @functools.cached_property
    def requests_by_method(self) -> dict[str, list[RequestRecord]]:
        return _grouped(self.requests, lambda r: r.method)

    @functools.cached_property
    def deliveries_by_object(self) -> dict[str, list[DeliveryRecord]]:
        return _grouped(self.deliveries, lambda d: d.object_id)

    @functools.cached_property
    def events_by_object(self) -> dict[str, list[EventRecord]]:
        return _grouped(self.events, lambda e: e.object_id)

    @functools.cached_property
    def transitions_by_object(self) -> dict[str, list[TransitionRecord]]:
        return _grouped(self.transitions, lambda t: t.event.object_id)


def _grouped(records: list[T], key: Callable[[T], str]) -> dict[str, list[T]]:
    groups: dict[str, list[T]] = {}
    for record in records:
        groups.setdefault(key(record), []).append(record)
    return groups


Record = RequestRecord | DeliveryRecord | EventRecord | TransitionRecord
# One criterion: its name, whether it is met, and (when not) what the record has instead.
Criterion = tuple[str, bool, str]


def at_of(record: Record) -> int:
    return record.event.at_us if isinstance(record, TransitionRecord) else record.at_us


def ref_of(record: Record) -> str:
    if isinstance(record, RequestRecord):
        return f"#{record.id}"
    if isinstance(record, DeliveryRecord):
        return f"delivery #{record.id}"
    event = record.event if isinstance(record, TransitionRecord) else record
    return f"event {event.id}"


def id_of(record: Record) -> int | str:
    return record.event.id if isinstance(record, TransitionRecord) else record.id


# -- patterns --------------------------------------------------------------------------------


@functools.lru_cache(maxsize=256)
def path_pattern(template: str) -> re.Pattern[str]:
    """``{name}`` is one segment, ``*`` any part of one, ``**`` anything; a trailing slash is
    optional on either side."""
    out: list[str] = []
    for token in re.split(r"(\{[^}/]*\}|\*\*|\*)", template.rstrip("/")):
        if token == "**":
            out.append(".*")
        elif token == "*":
            out.append("[^/]*")
        elif token.startswith("{") and token.endswith("}"):
            out.append("[^/]+")
        else:
            out.append(re.escape(token))
    return re.compile("".join(out) + "/?")


def to_sink(url: str, name: str) -> bool:
    """Whether ``url`` is the built-in receiver's under ``name``: its path (without query
    or fragment) ends in ``/_emulator/sink/{name}``, a trailing slash or not."""
    return re.split(r"[?#]", url, maxsplit=1)[0].rstrip("/").endswith(f"/_emulator/sink/{name}")


def glob(pattern: str, value: str) -> bool:
    return fnmatch.fnmatchcase(value, pattern)


def status_ok(expected: int | str, actual: int | None) -> bool:
    if actual is None:
        return False
    if isinstance(expected, str):
        return str(actual)[0] == expected[0]
    return actual == expected


def body_value(text: str) -> Any:
    """A request body as data: JSON, else a form (``a=1&b=2``), else the text."""
    try:
        return msgspec.json.decode(text)
    except msgspec.DecodeError:
        pass
    if "=" in text:
        return dict(parse_qsl(text, keep_blank_values=True))
    return text


_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "number": (int, float),
    "integer": (int,),
    "boolean": (bool,),
    "object": (dict,),
    "array": (list,),
}


def subset_problems(expected: Any, actual: Any, path: str) -> list[str]:
    """What in ``actual`` differs from the subset ``expected`` (empty: it matches)."""
    if is_matcher(expected):
        key, arg = next(iter(expected.items()))
        if key == "regex":
            if isinstance(actual, str) and len(actual) > MAX_TEXT:
                return [f"{path} is {len(actual)} characters long, more than a pattern reads"]
            if isinstance(actual, str) and compiled(arg).fullmatch(actual):
                return []
            return [f"{path} is {_short(actual)}, not matching /{arg}/"]
        if arg == "value" or (arg == "null" and actual is None):
            return []
        types = _TYPES.get(arg, ())
        fits = isinstance(actual, types) and not (arg != "boolean" and isinstance(actual, bool))
        return [] if fits else [f"{path} is {_short(actual)}, not any {arg}"]
    if isinstance(expected, dict):
        if not isinstance(actual, dict):
            return [f"{path} is {_short(actual)}, not an object"]
        problems: list[str] = []
        for key, inner in expected.items():
            if key not in actual:
                problems.append(f"{path}.{key} is missing")
            else:
                problems.extend(subset_problems(inner, actual[key], f"{path}.{key}"))
        return problems
    if isinstance(expected, list):
        if not isinstance(actual, list) or len(actual) != len(expected):
            return [f"{path} is {_short(actual)}, not a list of {len(expected)}"]
        return [
            p for i, e in enumerate(expected) for p in subset_problems(e, actual[i], f"{path}[{i}]")
        ]
    if _same(expected, actual):
        return []
    return [f"{path} is {_short(actual)}, not {_short(expected)}"]


def _same(expected: Any, actual: Any) -> bool:
    if isinstance(expected, bool) or isinstance(actual, bool):
        return expected is actual or (isinstance(actual, str) and actual == str(expected).lower())
    if isinstance(actual, str) and isinstance(expected, int | float):
        return actual == str(expected)  # a form's fields are strings
    return bool(expected == actual)


def _short(value: Any) -> str:
    text = msgspec.json.encode(value).decode() if not isinstance(value, bytes) else repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


# -- criteria of each kind -------------------------------------------------------------------


def request_criteria(spec: RequestSpec, r: RequestRecord) -> list[Criterion]:
    out: list[Criterion] = []
    if spec.interface is not None:
        out.append(("api", r.interface == spec.interface, f"api {r.interface}"))
    if spec.method is not None:
        out.append(("method", r.method == spec.method, f"method {r.method}"))
    if spec.path is not None:
        ok = path_pattern(spec.path).fullmatch(r.path) is not None
        out.append(("path", ok, f"path {r.path}"))
    if spec.status is not None:
        out.append(("status", status_ok(spec.status, r.status), f"status {r.status}"))
    if spec.body is not None:
        problems = subset_problems(spec.body, body_value(r.body), "body")
        out.append(("body", not problems, "; ".join(problems[:2])))
    return out


def delivery_criteria(spec: DeliverySpec, d: DeliveryRecord) -> list[Criterion]:
    out: list[Criterion] = []
    if spec.event is not None:
        out.append(("event", glob(spec.event, d.event_type), f"event {d.event_type}"))
    if spec.kind is not None:
        out.append(("kind", d.kind == spec.kind, f"kind {d.kind}"))
    if spec.url is not None:
        out.append(("url", d.url == spec.url or glob(spec.url, d.url), f"url {d.url}"))
    if spec.sink is not None:
        out.append(("sink", to_sink(d.url, spec.sink), f"url {d.url}"))
    if spec.object_id is not None:
        out.append(("object_id", d.object_id == spec.object_id, f"object {d.object_id}"))
    if spec.attempt is not None:
        out.append(("attempt", d.attempt == spec.attempt, f"attempt {d.attempt}"))
    if spec.outcome != "any":
        ok = outcome_is(spec.outcome, d)
        out.append(("outcome", ok, f"it {answer_of(d)}"))
    return out


def outcome_is(outcome: str, d: DeliveryRecord) -> bool:
    """Whether the attempt's outcome is ``outcome``: ``ok`` (answered 2xx), ``failed``, or
    ``exhausted`` (failed, and the last attempt the retry schedule allows)."""
    if outcome == "exhausted":
        return not d.success and d.attempt >= FINAL_ATTEMPT
    return d.success == (outcome == "ok")


def answer_of(d: DeliveryRecord) -> str:
    if d.success:
        return f"was answered {d.status}"
    return f"failed with {d.status}" if d.status is not None else f"failed: {d.error}"


def object_type_ok(expected: str, actual: str) -> bool:
    return actual == expected or actual == f"bank_{expected}"


def event_criteria(spec: EventSpec, e: EventRecord) -> list[Criterion]:
    out: list[Criterion] = []
    if spec.event is not None:
        out.append(("event", glob(spec.event, e.event_type), f"event {e.event_type}"))
    if spec.object_id is not None:
        out.append(("object_id", e.object_id == spec.object_id, f"object {e.object_id}"))
    if spec.object_type is not None:
        ok = object_type_ok(spec.object_type, e.object_type)
        out.append(("object_type", ok, f"object type {e.object_type}"))
    if spec.fields is not None:
        problems = subset_problems(spec.fields, e.payload, "fields")
        out.append(("fields", not problems, "; ".join(problems[:2])))
    return out


def transition_criteria(spec: TransitionSpec, t: TransitionRecord) -> list[Criterion]:
    e = t.event
    out: list[Criterion] = []
    if spec.object_id is not None:
        out.append(("object_id", e.object_id == spec.object_id, f"object {e.object_id}"))
    if spec.object_type is not None:
        ok = object_type_ok(spec.object_type, e.object_type)
        out.append(("object_type", ok, f"object type {e.object_type}"))
    status = e.status or ""
    out.append(("status", status.lower() == spec.status.lower(), f"status {status}"))
    if spec.fields is not None:
        problems = subset_problems(spec.fields, e.payload, "fields")
        out.append(("fields", not problems, "; ".join(problems[:2])))
    return out
