"""The scenario file format: decode, check against the registry, compile matchers.

A file that does not parse, or names an unknown decision point, match field, operator or
outcome, is refused with an :class:`InvalidScenario` whose message says where
(``rules[1].then.status: expected one of ...``). Unknown keys are errors everywhere.

Pure: no I/O.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from typing import Annotated, Any

import msgspec

from emulator.domain.validation import split_located
from emulator.scenarios import yamlfile
from emulator.scenarios.points import REGISTRY, FieldKind, Outcome, Point

NAME = re.compile(r"^[a-z0-9][a-z0-9._-]{0,63}\Z")
MAX_RULES = 100
MAX_TIMES = 1_000_000

OPERATORS: dict[FieldKind, tuple[str, ...]] = {
    "number": ("eq", "in", "gt", "gte", "lt", "lte"),
    "string": ("eq", "in", "prefix"),
    "boolean": ("eq",),
}


class InvalidScenario(ValueError):
    """A scenario refused; ``str()`` is the located message."""


class RuleSpec(msgspec.Struct, forbid_unknown_fields=True, frozen=True):
    when: str
    then: dict[str, Any]
    match: dict[str, Any] = {}
    times: Annotated[int, msgspec.Meta(ge=1, le=MAX_TIMES)] | None = None


class ScenarioSpec(msgspec.Struct, forbid_unknown_fields=True, frozen=True):
    name: str
    rules: list[RuleSpec]
    description: str = ""


Matcher = Callable[[Mapping[str, Any]], bool]


class Rule(msgspec.Struct, frozen=True):
    """One checked rule: its point, a compiled matcher, the decoded outcome."""

    index: int
    point: str
    matcher: Matcher
    outcome: Outcome
    times: int | None


class Scenario(msgspec.Struct, frozen=True):
    name: str
    description: str
    rules: tuple[Rule, ...]
    source: str  # the YAML text it was read from, stored with activations
    # Older forms it used, each loaded as its current form (``rules[0].then.reason: ...``).
    notes: tuple[str, ...] = ()


def _located(message: str, prefix: str = "") -> str:
    """msgspec says ``... - at `$.rules[1].then``` (or ``at `key` in `$...```); we say
    ``rules[1].then: ...``."""
    text, where, about_key = split_located(message)
    if where is None:
        return f"{prefix}: {message}" if prefix else message
    if about_key:
        text = f"a key: {text}"
    path = where.lstrip(".")
    path = f"{prefix}.{path}" if prefix and path else (prefix or path)
    return f"{path}: {text}" if path else text


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def parse(text: str | bytes) -> Scenario:
    """Decode and check one scenario file."""
    try:
        document, source = yamlfile.load(text)
        spec = msgspec.convert(document, ScenarioSpec)
    except yamlfile.YamlRefused as exc:
        raise InvalidScenario(str(exc)) from None
    except msgspec.ValidationError as exc:
        raise InvalidScenario(_located(str(exc))) from None
    if not NAME.match(spec.name):
        raise InvalidScenario(
            "name: must be 1-64 characters of a-z, 0-9, '.', '_' or '-', starting with a letter"
            " or digit"
        )
    if not spec.rules:
        raise InvalidScenario("rules: at least one rule is needed")
    if len(spec.rules) > MAX_RULES:
        raise InvalidScenario(f"rules: at most {MAX_RULES} rules")
    notes: list[str] = []
    rules = tuple(_rule(i, r, notes) for i, r in enumerate(spec.rules))
    return Scenario(
        name=spec.name,
        description=spec.description,
        rules=rules,
        source=source,
        notes=tuple(notes),
    )


def _rule(index: int, spec: RuleSpec, notes: list[str]) -> Rule:
    """One rule checked; an older form of its ``then`` is loaded as the current one, and
    ``notes`` says so."""
    where = f"rules[{index}]"
    point = REGISTRY.get(spec.when)
    if point is None:
        raise InvalidScenario(
            f"{where}.when: unknown decision point {spec.when!r}; expected one of "
            + ", ".join(REGISTRY)
        )
    matcher = compile_match(point, spec.match, f"{where}.match")
    then, older = point.upgrade(spec.then)
    outcome = decode_outcome(point, then, f"{where}.then")
    notes.extend(f"{where}.then.{note}" for note in older)
    return Rule(index=index, point=point.name, matcher=matcher, outcome=outcome, times=spec.times)


def decode_outcome(point: Point[Outcome], then: dict[str, Any], where: str) -> Outcome:
    try:
        return msgspec.convert(then, point.outcome)
    except msgspec.ValidationError as exc:
        message = _located(str(exc), where)
        path = message.partition(": ")[0].removeprefix(where).lstrip(".")
        segments = [p for p in path.split(".") if p]
        if "unknown field" in message:
            struct = _type_at(msgspec.inspect.type_info(point.outcome), segments)
            if isinstance(struct, msgspec.inspect.StructType):
                message += "; expected one of " + ", ".join(f.name for f in struct.fields)
        else:
            kind = _type_at(msgspec.inspect.type_info(point.outcome), segments)
            if isinstance(kind, msgspec.inspect.LiteralType):
                message += "; expected one of " + ", ".join(str(c) for c in kind.values)
        raise InvalidScenario(message) from None


def _type_at(kind: msgspec.inspect.Type, segments: list[str]) -> msgspec.inspect.Type | None:
    """The type at a path of field names inside a struct (unions of one struct or literal
    and None are seen through)."""
    for segment in segments:
        kind = _unwrap(kind)
        if not isinstance(kind, msgspec.inspect.StructType):
            return None
        found = next((f.type for f in kind.fields if f.name == segment), None)
        if found is None:
            return None
        kind = found
    return _unwrap(kind)


def _unwrap(kind: msgspec.inspect.Type) -> msgspec.inspect.Type:
    if isinstance(kind, msgspec.inspect.UnionType):
        useful = [t for t in kind.types if not isinstance(t, msgspec.inspect.NoneType)]
        if len(useful) == 1:
            return useful[0]
    return kind


# -- matching --


def _kind_ok(kind: FieldKind, value: object) -> bool:
    if kind == "boolean":
        return isinstance(value, bool)
    if kind == "number":
        return (
            isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)
        )
    return isinstance(value, str)


def _test(op: str, expected: Any) -> Callable[[Any], bool]:
    if op == "eq":
        return lambda v: bool(v == expected)
    if op == "in":
        options = frozenset(expected)  # scalars: a set lookup however long the list
        return lambda v: v in options
    if op == "prefix":
        return lambda v: isinstance(v, str) and v.startswith(expected)
    if op == "gt":
        return lambda v: bool(v > expected)
    if op == "gte":
        return lambda v: bool(v >= expected)
    if op == "lt":
        return lambda v: bool(v < expected)
    return lambda v: bool(v <= expected)


def compile_match(point: Point[Outcome], match: Mapping[str, Any], where: str) -> Matcher:
    """``{field: value}`` is equality; ``{field: {op: value, ...}}`` applies every op."""
    tests: list[tuple[str, FieldKind, Callable[[Any], bool]]] = []
    for field, condition in match.items():
        kind = point.fields.get(field)
        if kind is None:
            raise InvalidScenario(
                f"{where}.{field}: unknown match field for {point.name}; expected one of "
                + ", ".join(point.fields)
            )
        ops = condition if isinstance(condition, dict) else {"eq": condition}
        if not ops:
            raise InvalidScenario(f"{where}.{field}: an empty condition matches nothing")
        for op, expected in ops.items():
            at = (
                f"{where}.{field}"
                if op == "eq" and not isinstance(condition, dict)
                else (f"{where}.{field}.{op}")
            )
            allowed = OPERATORS[kind]
            if op not in allowed:
                raise InvalidScenario(
                    f"{at}: unknown operator {op!r} for a {kind} field; expected one of "
                    + ", ".join(allowed)
                )
            values = expected if op == "in" else [expected]
            if op == "in" and not isinstance(expected, list):
                raise InvalidScenario(f"{at}: expected a list of {kind} values")
            if op == "in" and not expected:
                raise InvalidScenario(f"{at}: an empty list matches nothing")
            for value in values:
                if not _kind_ok(kind, value):
                    wanted = "finite number" if kind == "number" else kind
                    raise InvalidScenario(f"{at}: expected a {wanted}, got {_short(value)}")
            tests.append((field, kind, _test(op, expected)))

    def matches(subject: Mapping[str, Any]) -> bool:
        for field, kind, test in tests:
            value = subject.get(field)
            if value is None or not _kind_ok(kind, value) or not test(value):
                return False
        return True

    return matches
