"""The scenario file format: decode, check against the registry, compile matchers.

A file that does not parse, or names an unknown decision point, match field, operator or
outcome, is refused with an :class:`InvalidScenario` whose message says where
(``rules[1].then.status: expected one of ...``). Unknown keys are errors everywhere.

Pure: no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Annotated, Any

import msgspec

from emulator.scenarios.points import REGISTRY, FieldKind, Outcome, Point

NAME = re.compile(r"^[a-z0-9][a-z0-9._-]{0,63}$")
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


def _located(message: str, prefix: str = "") -> str:
    """msgspec says ``... - at `$.rules[1].then```; we say ``rules[1].then: ...``."""
    text, sep, where = message.rpartition(" - at `")
    if not sep:
        return f"{prefix}: {message}" if prefix else message
    path = where.rstrip("`").removeprefix("$").lstrip(".")
    path = f"{prefix}.{path}" if prefix and path else (prefix or path)
    return f"{path}: {text}" if path else text


def parse(text: str | bytes) -> Scenario:
    """Decode and check one scenario file."""
    source = text.decode("utf-8", "replace") if isinstance(text, bytes) else text
    try:
        spec = msgspec.yaml.decode(source.encode("utf-8"), type=ScenarioSpec)
    except msgspec.ValidationError as exc:
        raise InvalidScenario(_located(str(exc))) from None
    except msgspec.DecodeError as exc:
        raise InvalidScenario(f"not valid YAML: {exc}") from None
    if not NAME.match(spec.name):
        raise InvalidScenario(
            "name: must be 1-64 characters of a-z, 0-9, '.', '_' or '-', starting with a letter"
            " or digit"
        )
    if not spec.rules:
        raise InvalidScenario("rules: at least one rule is needed")
    if len(spec.rules) > MAX_RULES:
        raise InvalidScenario(f"rules: at most {MAX_RULES} rules")
    rules = tuple(_rule(i, r) for i, r in enumerate(spec.rules))
    return Scenario(name=spec.name, description=spec.description, rules=rules, source=source)


def _rule(index: int, spec: RuleSpec) -> Rule:
    where = f"rules[{index}]"
    point = REGISTRY.get(spec.when)
    if point is None:
        raise InvalidScenario(
            f"{where}.when: unknown decision point {spec.when!r}; expected one of "
            + ", ".join(REGISTRY)
        )
    matcher = compile_match(point, spec.match, f"{where}.match")
    outcome = decode_outcome(point, spec.then, f"{where}.then")
    return Rule(index=index, point=point.name, matcher=matcher, outcome=outcome, times=spec.times)


def decode_outcome(point: Point[Outcome], then: dict[str, Any], where: str) -> Outcome:
    try:
        return msgspec.convert(then, point.outcome)
    except msgspec.ValidationError as exc:
        message = _located(str(exc), where)
        field = message.partition(":")[0].removeprefix(where).lstrip(".").split(".")[0]
        choices = _literal_choices(point.outcome, field)
        if choices and "Invalid enum value" in message:
            message += "; expected one of " + ", ".join(str(c) for c in choices)
        elif "unknown field" in message:
            message += "; expected one of " + ", ".join(point.outcome.__struct_fields__)
        raise InvalidScenario(message) from None


def _literal_choices(struct: type[Outcome], field: str) -> tuple[object, ...]:
    info = msgspec.inspect.type_info(struct)
    assert isinstance(info, msgspec.inspect.StructType)
    for f in info.fields:
        if f.name == field:
            kinds = f.type.types if isinstance(f.type, msgspec.inspect.UnionType) else (f.type,)
            for kind in kinds:
                if isinstance(kind, msgspec.inspect.LiteralType):
                    return tuple(kind.values)
    return ()


# -- matching --


def _kind_ok(kind: FieldKind, value: object) -> bool:
    if kind == "boolean":
        return isinstance(value, bool)
    if kind == "number":
        return isinstance(value, int | float) and not isinstance(value, bool)
    return isinstance(value, str)


def _test(op: str, expected: Any) -> Callable[[Any], bool]:
    if op == "eq":
        return lambda v: bool(v == expected)
    if op == "in":
        options = list(expected)
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
            for value in values:
                if not _kind_ok(kind, value):
                    raise InvalidScenario(f"{at}: expected a {kind}, got {value!r}")
            tests.append((field, kind, _test(op, expected)))

    def matches(subject: Mapping[str, Any]) -> bool:
        for field, kind, test in tests:
            value = subject.get(field)
            if value is None or not _kind_ok(kind, value) or not test(value):
                return False
        return True

    return matches
