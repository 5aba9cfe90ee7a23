"""Matching an expectation set against a merchant's records (``model_records``):
one result per item, ``ok`` and its matches, and when it failed, why, in a sentence with the
closest candidates. Pure: the records and the set's start are handed in.

Time is the merchant's clock. An item's window ends ``within`` after its anchor: ``after`` (an
instant, or the first match of the item it names) or else the set's start; with ``after``, a
match must also come at or after the anchor. ``in_order`` takes each item's earliest match no
earlier than the one chosen for the item before it (ties are in order: a frozen clock gives
many records one instant).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import msgspec

from emulator.sandbox.expectations.model import (
    DeliverySpec,
    EventSpec,
    ExpectationSet,
    Item,
    RequestSpec,
    TransitionSpec,
)
from emulator.sandbox.expectations.model_records import (
    Criterion,
    DeliveryRecord,
    Record,
    Records,
    answer_of,
    at_of,
    delivery_criteria,
    event_criteria,
    id_of,
    ref_of,
    request_criteria,
    transition_criteria,
)
from emulator.sandbox.expectations.rules_select import pool_of, select
from emulator.sandbox.expectations.rules_times import iso_us, span_text

SHOWN = 5  # matches named in a sentence
LISTED = 50  # matches listed in a result (``matched`` counts them all)
CLOSEST = 3  # near misses offered when nothing matched
NEAR_SCAN = 2_000  # the latest records of a kind looked at for near misses


class Match(msgspec.Struct, frozen=True):
    ref: str
    id: int | str
    at: str


class Candidate(msgspec.Struct, frozen=True):
    """A record that met some of an item's criteria: which ones it missed, and how."""

    ref: str
    id: int | str
    at: str
    differs: list[str]


class ItemResult(msgspec.Struct, frozen=True):
    index: int
    kind: str
    ok: bool
    description: str
    expected: str
    matched: int  # how many records matched (in the window); ``matches`` lists the first
    matches: list[Match]
    id: str | None = None
    message: str | None = None
    candidates: list[Candidate] = []


class Report(msgspec.Struct, frozen=True):
    ok: bool
    results: list[ItemResult]

    def text(self) -> str:
        """The report for a person: one line per item, the failures' sentences."""
        lines = []
        for r in self.results:
            name = f"{r.index}" + (f" ({r.id})" if r.id else "")
            lines.append(f"[{'ok' if r.ok else 'FAILED'}] {name}: {r.message or r.description}")
        return "\n".join(lines)


# -- describing ------------------------------------------------------------------------------


def describe(item: Item) -> str:
    spec = item.spec
    if isinstance(spec, RequestSpec):
        path = spec.path or "(any path)"
        words = f"{spec.method} {path}" if spec.method else f"request to {path}"
        if spec.status is not None:
            words += f" answered {spec.status}"
        if spec.body is not None:
            words += f" with body {msgspec.json.encode(spec.body).decode()}"
        return words
    if isinstance(spec, DeliverySpec):
        what = spec.event or "any event"
        verb = {"ok": "delivered", "failed": "failing to be delivered",
                "exhausted": "failing its last attempt", "any": "sent"}  # fmt: skip
        words = f"{what} {verb[spec.outcome]}"
        if spec.sink is not None:
            words += f" to sink {spec.sink!r}"
        elif spec.url is not None:
            words += f" to {spec.url}"
        if spec.object_id is not None:
            words += f" for {spec.object_id}"
        if spec.attempt is not None:
            words += f" at attempt {spec.attempt}"
        return words
    if isinstance(spec, TransitionSpec):
        who = " ".join(x for x in (spec.object_type or "object", spec.object_id) if x)
        return f"{who} reaching status {spec.status}"
    assert isinstance(spec, EventSpec)
    words = f"event {spec.event or '(any)'}"
    if spec.object_id is not None:
        words += f" of {spec.object_id}"
    elif spec.object_type is not None:
        words += f" of a {spec.object_type}"
    return words


# -- evaluating ------------------------------------------------------------------------------


def _criteria(item: Item) -> Callable[[Any], list[Criterion]]:
    spec = item.spec
    if isinstance(spec, RequestSpec):
        return lambda r: request_criteria(spec, r)
    if isinstance(spec, DeliverySpec):
        return lambda r: delivery_criteria(spec, r)
    if isinstance(spec, TransitionSpec):
        return lambda r: transition_criteria(spec, r)
    assert isinstance(spec, EventSpec)
    return lambda r: event_criteria(spec, r)


class _Found(msgspec.Struct):
    item: Item
    matches: list[Record]  # every record meeting the criteria, oldest first


def _find(item: Item, records: Records) -> _Found:
    matches = select(item, records)
    matches.sort(key=at_of)  # nearly sorted already: a clock can be set back
    return _Found(item, matches)


def _near(item: Item, records: Records) -> list[tuple[int, Record, list[str]]]:
    """(criteria met, record, what differs) of the latest records of the item's kind that
    meet some of its criteria."""
    criteria = _criteria(item)
    near: list[tuple[int, Record, list[str]]] = []
    for record in pool_of(item.spec, records)[-NEAR_SCAN:]:
        checks = criteria(record)
        missed = [detail for _, ok, detail in checks if not ok]
        if missed and len(missed) < len(checks):
            near.append((len(checks) - len(missed), record, missed))
    return near


def evaluate(
    expectations: ExpectationSet,
    records: Records | Mapping[int, Records],
    start_us: int,
    near: Records | None = None,
    counted: Mapping[int, int] | None = None,
) -> Report:
    """Each item against ``records`` (the same for every item, or one per item's index);
    ``start_us``: the set's start on the merchant's clock; ``near``: where a failed item's
    closest candidates are looked for (else its records); ``counted``: items whose records
    are only their first matches, and how many matched in all (an item with no window, in a
    set not in order)."""

    def of(item: Item) -> Records:
        return records if isinstance(records, Records) else records[item.index]

    totals = counted or {}
    found = {item.index: _find(item, of(item)) for item in expectations.items}
    by_id = {item.id: item for item in expectations.items if item.id is not None}
    anchors: dict[int, int | None] = {}
    windows: dict[int, list[Record]] = {}
    unresolved: dict[int, str] = {}

    def resolve(item: Item, visiting: frozenset[int]) -> None:
        if item.index in windows or item.index in unresolved:
            return
        anchor: int | None = item.after_us
        if item.after_id is not None:
            other = by_id[item.after_id]
            if other.index in visiting:
                unresolved[item.index] = f"its 'after' ({item.after_id!r}) goes round in a circle"
                windows[item.index] = []
                return
            resolve(other, visiting | {item.index})
            firsts = windows.get(other.index) or []
            if not firsts:
                unresolved[item.index] = f"it comes after {item.after_id!r}, which has not happened"
                windows[item.index] = []
                return
            anchor = at_of(firsts[0])
        anchors[item.index] = anchor
        low = anchor
        base = anchor if anchor is not None else start_us
        high = None if item.within_us is None else base + item.within_us
        windows[item.index] = [
            m
            for m in found[item.index].matches
            if (low is None or at_of(m) >= low) and (high is None or at_of(m) <= high)
        ]

    for item in expectations.items:
        resolve(item, frozenset())
    results = [
        _result(item, found[item.index], windows[item.index], anchors.get(item.index), start_us,
                unresolved.get(item.index), of(item), of(item) if near is None else near,
                totals.get(item.index, len(windows[item.index])))
        for item in expectations.items
    ]  # fmt: skip
    if expectations.in_order:
        results = _in_order(expectations, results, windows)
    return Report(all(r.ok for r in results), results)


def _match(record: Record) -> Match:
    return Match(ref_of(record), id_of(record), iso_us(at_of(record)))


def _listed(records: list[Record], base: int | None = None, total: int | None = None) -> str:
    def one(r: Record) -> str:
        when = iso_us(at_of(r)) if base is None else span_text(at_of(r) - base)
        return f"{ref_of(r)} at {when}"

    total = len(records) if total is None else total
    shown = ", ".join(one(r) for r in records[:SHOWN])
    more = f" and {total - SHOWN} more" if total > SHOWN else ""
    return shown + more


def _result(
    item: Item,
    found: _Found,
    window: list[Record],
    anchor: int | None,
    start_us: int,
    unresolved: str | None,
    records: Records,
    near_pool: Records,
    total: int,
) -> ItemResult:
    description = describe(item)
    expected = item.count.words()
    timing = ""
    if item.within_us is not None:
        timing = f" within {item.within_text}"
        if item.after_id is not None:
            timing += f" after {item.after_id!r}"
        elif item.after_us is not None:
            timing += f" after {iso_us(item.after_us)}"
    elif item.after_id is not None:
        timing = f" after {item.after_id!r}"
    elif item.after_us is not None:
        timing = f" after {iso_us(item.after_us)}"
    ok = unresolved is None and item.count.holds(total)
    result = ItemResult(
        index=item.index,
        kind=item.kind,
        ok=ok,
        description=description,
        expected=expected,
        matched=total,
        matches=[_match(r) for r in window[:LISTED]],
        id=item.id,
    )
    if ok:
        return result
    head = f"expected {expected} {description}{timing}"
    if unresolved is not None:
        return msgspec.structs.replace(result, message=f"{head}, but {unresolved}")
    base = anchor if anchor is not None else start_us
    if window:
        message = f"{head}, saw {total}: {_listed(window, total=total)}"
    elif found.matches:  # outside the window
        outside = found.matches
        message = f"{head}, saw none in time{_late(outside, base, records)}"
    else:
        message = f"{head}, saw none"
    candidates: list[Candidate] = []
    near = _near(item, near_pool) if not found.matches else []
    if near:
        best = sorted(near, key=lambda n: (-n[0], -at_of(n[1])))[:CLOSEST]
        candidates = [
            Candidate(ref_of(r), id_of(r), iso_us(at_of(r)), missed) for _, r, missed in best
        ]
        closest = "; ".join(f"{c.ref} at {c.at} ({', '.join(c.differs)})" for c in candidates)
        message += f"; closest: {closest}"
    return msgspec.structs.replace(result, message=message, candidates=candidates)


def _late(outside: list[Record], base: int, records: Records) -> str:
    """Where the matches outside the window were: "it was delivered at +7m (attempt 3;
    attempts 1-2 failed with 503)"."""
    first = outside[0]
    when = span_text(at_of(first) - base)
    if isinstance(first, DeliveryRecord):
        earlier = [
            d
            for d in records.deliveries
            if d.message_id == first.message_id and d.attempt < first.attempt
        ]
        verb = "delivered" if first.success else "sent"
        words = f"; it was {verb} at {when} ({ref_of(first)}, attempt {first.attempt}"
        if earlier:
            span = (
                f"{earlier[0].attempt}-{earlier[-1].attempt}"
                if len(earlier) > 1
                else f"{earlier[0].attempt}"
            )
            answers = sorted({answer_of(d).removeprefix("failed ") for d in earlier})
            words += (
                f"; attempt{'s' if len(earlier) > 1 else ''} {span} failed {', '.join(answers)}"
            )
        return words + ")"
    return f", only {_listed(outside, base)}"


def _in_order(
    expectations: ExpectationSet, results: list[ItemResult], windows: dict[int, list[Record]]
) -> list[ItemResult]:
    """Each item's earliest match no earlier than the previous item's chosen one."""
    out = list(results)
    previous: tuple[int, int] | None = None  # (instant, index of the item) of the last choice
    for item in expectations.items:
        if item.count.high == 0 or not out[item.index].ok:
            continue
        window = windows[item.index]
        chosen = next((m for m in window if previous is None or at_of(m) >= previous[0]), None)
        if chosen is None:
            assert previous is not None
            before = expectations.items[previous[1]]
            name = repr(before.id) if before.id else f"expect[{before.index}]"
            message = (
                f"expected {describe(item)} after {name} (in_order), but its matches came"
                f" before {iso_us(previous[0])}: {_listed(window)}"
            )
            out[item.index] = msgspec.structs.replace(out[item.index], ok=False, message=message)
            continue
        previous = (at_of(chosen), item.index)
    return out
