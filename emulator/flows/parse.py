"""A flow file read and checked: refused with the line, column and key path of the first error
(``line 7, column 11: steps[2].call.path: ...``), as scenario files are read (the same safe
YAML loader, ``emulator.scenarios.yamlfile``).

Checked without running: every key and type, one kind per step, the act verbs and their
options, durations, expectation sets, repeats (at most 10,000, and 100,000 steps in all), a
reference to a name no earlier step saves, and, given the routes of each API, a call to a path
that API does not serve.

Pure: no I/O (the routes are given).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

import msgspec

from emulator.domain.validation import split_located
from emulator.flows.model import ACT_VERBS, KINDS, MAX_REPEAT, Act, Flow, FlowSpec, Step
from emulator.flows.references import BUILT_IN, NAME, REF, heads
from emulator.sandbox.expectations.model import parse_set
from emulator.sandbox.expectations.rules_times import (
    ExpectationError,
    parse_duration,
    parse_instant,
)
from emulator.scenarios import yamlfile
from emulator.scenarios.rules import NAME as FLOW_NAME

MAX_BYTES = 512 * 1024
MAX_STEPS = 100_000  # steps a run may take, repeats expanded
Routes = Mapping[str, Iterable[tuple[str, str]]]  # api -> (method, path template)
ACT_OPTIONS: dict[str, tuple[str, ...]] = {
    "pay": ("card", "expires", "cvc", "cardholder_name", "remember_card"),
    "execute_payout": ("card", "cardholder_name"),
    "settle_payout": ("status",),
    "authorise_mandate": (),
    "reject_mandate": (),
    "settle_collection": ("status", "reason_code"),
    "settle_payment": ("status", "reason_code"),
    "dispute_collection": ("reason_code",),
}
_SEGMENT = re.compile(r"\.?([^.\[\]]+)|\[(\d+)\]")


class FlowError(ValueError):
    """A flow refused; ``str()`` is ``line L, column C: path: message`` (the place when known)."""

    def __init__(
        self, message: str, path: str = "", text: str | None = None, key: bool = False
    ) -> None:
        self.path, self.message = path, message
        self.line: int | None = None
        self.column: int | None = None
        if text is not None and path:
            found = yamlfile.position(text, segments(path), key=key)
            if found is not None:
                self.line, self.column = found
        where = f"line {self.line}, column {self.column}: " if self.line else ""
        super().__init__(f"{where}{path}: {message}" if path else f"{where}{message}")


def _yaml_message(text: str) -> str:
    """PyYAML's message (context, marks, a snippet, a caret) as one line: its last mark, what
    it was parsing, the problem."""
    marks = re.findall(r"line (\d+), column (\d+)", text)
    said = [
        line.strip().rstrip(":")
        for line in text.splitlines()
        if line.strip() and line.strip() != "^" and not line.strip().startswith('in "')
    ]
    if not marks:
        return "; ".join(said)
    return f"line {marks[-1][0]}, column {marks[-1][1]}: " + ": ".join(said)


def segments(path: str) -> list[str | int]:
    """``steps[2].call.path`` as ``["steps", 2, "call", "path"]``."""
    return [int(m[2]) if m[2] is not None else m[1] for m in _SEGMENT.finditer(path)]


def parse(raw: str | bytes, routes: Routes | None = None, source: str = "<text>") -> Flow:
    """Decode and check one flow file; ``routes`` (each API's served routes) check paths."""
    try:
        document, text = yamlfile.load(raw, MAX_BYTES, "a flow")
    except yamlfile.YamlRefused as exc:
        raise FlowError(_yaml_message(str(exc))) from None
    if not isinstance(document, dict):
        raise FlowError("a flow is a mapping with 'name' and 'steps'")
    try:
        spec = msgspec.convert(document, FlowSpec)
    except msgspec.ValidationError as exc:
        message, where, _ = split_located(str(exc))
        path = (where or "").lstrip(".")
        unknown = re.search(r"unknown field `([^`]*)`", message)
        if unknown:
            path = f"{path}.{unknown[1]}".lstrip(".")
        raise FlowError(message.strip(), path, text, key=bool(unknown)) from None
    try:
        check(spec, routes)
    except FlowError as exc:
        raise FlowError(exc.message, exc.path, text) from None
    return Flow(spec=spec, text=text, source=source)


def check(spec: FlowSpec, routes: Routes | None = None) -> None:
    if not FLOW_NAME.match(spec.name):
        raise FlowError("must be 1-64 characters of a-z, 0-9, '.', '_' or '-'", "name")
    merchant = spec.merchant
    if merchant is not None:
        if merchant.use is not None and (merchant.clock or merchant.start):
            raise FlowError("'use' takes an existing merchant: give no clock or start", "merchant")
        now = merchant.clock.now if merchant.clock is not None else None
        for where, instant in (("merchant.start", merchant.start), ("merchant.clock.now", now)):
            if instant is not None:
                _expectation(parse_instant, where, instant)
    for index, scenario in enumerate(spec.scenarios):
        if not FLOW_NAME.match(scenario):
            raise FlowError(f"{scenario!r} cannot be a scenario's name", f"scenarios[{index}]")
    compiled = {api: [(m, _pattern(p)) for m, p in found] for api, found in (routes or {}).items()}
    _Checker(compiled).block(spec.steps, "steps", set(BUILT_IN) - {"i", "item"}, 1)


def _pattern(template: str) -> re.Pattern[str]:
    """``/api/v1/purchases/{id}/`` as a pattern: each ``{name}`` one path segment."""
    parts = re.split(r"\{[^/{}]+\}", template)
    return re.compile("[^/]+".join(re.escape(p) for p in parts))


def _expectation(parse: Any, where: str, value: Any) -> Any:
    """``parse(where, value)``; its ExpectationError as a FlowError at the same path."""
    try:
        return parse(where, value)
    except ExpectationError as exc:
        raise FlowError(str(exc).removeprefix(f"{exc.path}: "), exc.path) from None


def _items(where: str, items: list[Any]) -> Any:
    """An expectation set's items, checked as the control plane checks them; errors at
    ``where[n]...`` (the control plane says ``expect[n]...``)."""
    try:
        return parse_set({"expect": items})
    except ExpectationError as exc:
        path = where + exc.path.removeprefix("expect")
        raise FlowError(str(exc).removeprefix(f"{exc.path}: "), path) from None


class _Checker:
    def __init__(self, routes: dict[str, list[tuple[str, re.Pattern[str]]]]) -> None:
        self.routes = routes

    def block(self, steps: list[Step], where: str, known: set[str], runs: int) -> int:
        if not steps:
            raise FlowError("at least one step is needed", where)
        total = 0
        for index, step in enumerate(steps):
            total += self.step(step, f"{where}[{index}]", known, runs)
        return total

    def step(self, step: Step, where: str, known: set[str], runs: int) -> int:
        kinds = [k for k in KINDS if getattr(step, k) is not None]
        if len(kinds) != 1:
            given = ", ".join(kinds) or "none"
            raise FlowError(f"give exactly one of {', '.join(KINDS)} (given: {given})", where)
        kind = kinds[0]
        if step.steps is not None and kind not in ("repeat", "for_each"):
            raise FlowError("only a repeat or a for_each takes steps", f"{where}.steps")
        if kind in ("repeat", "for_each"):
            return self.loop(step, kind, where, known, runs)
        self.references(getattr(step, kind), f"{where}.{kind}", known)
        if step.call is not None:
            self.path(step.call.api, step.call.method, step.call.path, f"{where}.call.path")
            if step.call.save is not None:
                known.add(self.name(step.call.save, f"{where}.call.save"))
        elif step.act is not None:
            self.act(step.act, f"{where}.act")
            if step.act.save is not None:
                known.add(self.name(step.act.save, f"{where}.act.save"))
        elif step.advance is not None:
            self.advance(step.advance, f"{where}.advance")
        elif step.expect is not None:
            self.expect(step.expect, f"{where}.expect")
        if runs > MAX_STEPS:
            raise FlowError(f"the flow would run more than {MAX_STEPS:,} steps", where)
        return runs

    def loop(self, step: Step, kind: str, where: str, known: set[str], runs: int) -> int:
        if step.steps is None:
            raise FlowError(f"a {kind} needs its steps", where)
        inner = set(known)
        if kind == "repeat":
            count = step.repeat
            if not isinstance(count, int) or isinstance(count, bool) or not 0 <= count:
                raise FlowError("must be a whole number from 0", f"{where}.repeat")
            if count > MAX_REPEAT:
                raise FlowError(f"{count:,} is more than {MAX_REPEAT:,} repeats", f"{where}.repeat")
            inner.add("i")
        else:
            items = step.for_each
            if isinstance(items, str) and not REF.fullmatch(items):
                raise FlowError("must be a list or one ${reference} to a list", f"{where}.for_each")
            self.references(items, f"{where}.for_each", known)
            count = len(items) if isinstance(items, list) else 1
            if count > MAX_REPEAT:
                raise FlowError(f"more than {MAX_REPEAT:,} items", f"{where}.for_each")
            inner.update(("i", "item"))
        total = self.block(step.steps, f"{where}.steps", inner, runs * max(count, 1))
        known.update(inner - {"i", "item"})
        return total

    def references(self, value: Any, where: str, known: set[str]) -> None:
        for expression, head in heads(msgspec.to_builtins(value)):
            if head not in known:
                hint = (
                    f"'{head}' is only known inside a repeat or for_each"
                    if head in ("i", "item")
                    else f"no earlier step saves {head!r}"
                )
                raise FlowError(f"${{{expression}}}: {hint}", where)

    def name(self, name: str, where: str) -> str:
        if not NAME.match(name) or name in BUILT_IN:
            raise FlowError(
                f"{name!r} cannot be a name: letters, digits, '_' or '-', not one of "
                + ", ".join(BUILT_IN),
                where,
            )
        return name

    def path(self, api: str, method: str, path: str, where: str) -> None:
        if not path.startswith("/"):
            raise FlowError("a path starts with '/' (such as /api/v1/purchases/)", where)
        if api not in self.routes:
            return
        concrete = REF.sub("x", path.split("?", 1)[0])
        served = [(m, p) for m, p in self.routes[api] if p.fullmatch(concrete)]
        if not served:
            raise FlowError(f"{path} is not a path of the {api} API", where)
        if not any(m == method for m, _ in served):
            methods = ", ".join(sorted({m for m, _ in served}))
            raise FlowError(f"{path} takes {methods}, not {method}", where)

    def act(self, act: Act, where: str) -> None:
        verbs = [v for v in ACT_VERBS if getattr(act, v) is not None]
        if len(verbs) != 1:
            given = ", ".join(verbs) or "none"
            raise FlowError(f"give exactly one of {', '.join(ACT_VERBS)} (given: {given})", where)
        allowed = ACT_OPTIONS[verbs[0]]
        for option in ("card", "expires", "cvc", "cardholder_name", "remember_card", "status",
                       "reason_code"):  # fmt: skip
            if getattr(act, option) is not None and option not in allowed:
                key = "reasonCode" if option == "reason_code" else option
                takes = ", ".join(allowed) or "nothing more"
                raise FlowError(f"{verbs[0]} takes {takes}", f"{where}.{key}")

    def advance(self, advance: Any, where: str) -> None:
        if not isinstance(advance, dict):
            _expectation(parse_duration, where, advance)
            return
        keys = set(advance)
        if keys == {"to"}:
            if advance["to"] != "next":
                _expectation(parse_instant, f"{where}.to", advance["to"])
            return
        if "until" in keys and keys <= {"until", "up_to", "timeout"}:
            self.expect({"wait": advance["until"]}, f"{where}.until", inner=True)
            for key in ("up_to", "timeout"):
                if key in advance:
                    _expectation(parse_duration, f"{where}.{key}", advance[key])
            return
        raise FlowError("give a duration (3d), {to: next}, {to: instant} or {until: [...]}", where)

    def expect(self, expect: Any, where: str, inner: bool = False) -> None:
        items = expect
        if isinstance(expect, dict):
            unknown = sorted(set(expect) - {"wait", "timeout"})
            if unknown or "wait" not in expect:
                raise FlowError("give a list of expectations, or {wait: [...], timeout: 5s}", where)
            items = expect["wait"]
            if "timeout" in expect:
                _expectation(parse_duration, f"{where}.timeout", expect["timeout"])
            where = where if inner else f"{where}.wait"
        if not isinstance(items, list) or not items:
            raise FlowError("a non-empty list of expectations", where)
        _items(where, items)
