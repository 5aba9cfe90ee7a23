"""The scenario engine: which rules are active, and ``decide`` at a decision point.

Active rules are held in memory, indexed by point, newest activation first (and, within one
scenario, in file order): a decision is a scan of a short tuple, no query, unless the rule
that matches is counted (``times: N``). A counted rule's use is taken with one UPDATE in the
caller's unit of work, so it is spent only if that unit commits, and two concurrent requests
cannot both take the last use (the writer runs one unit at a time).

The index is rebuilt from SQLite (``load``) after every activation change, at start and after
a reset or restore, so it always mirrors the stored state.
"""

from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import Iterator, Mapping
from typing import Any, TypeVar

import msgspec

from emulator.kernel.context import DecisionPoint
from emulator.kernel.storage import Database, Tx
from emulator.scenarios import outcomes, repo
from emulator.scenarios.points import Point
from emulator.scenarios.rules import InvalidScenario, Rule, Scenario, parse

log = logging.getLogger(__name__)

T = TypeVar("T")


class ActiveRule(msgspec.Struct, frozen=True):
    activation_id: int
    scenario: str
    merchant_id: str | None  # None: every merchant
    rule: Rule


class Scenarios:
    def __init__(self, db: Database) -> None:
        self._db = db
        self._by_point: dict[str, tuple[ActiveRule, ...]] = {}
        self._exhausted: set[tuple[int, int]] = set()
        self._loading = asyncio.Lock()

    # -- the index --

    async def load(self) -> None:
        """Rebuild the index from the stored activations. Loads run one at a time, each
        reading the state as it is when it runs, so the last one leaves the newest state."""
        async with self._loading:
            rows, left = await self._db.read(lambda tx: (repo.activations(tx), repo.remaining(tx)))
            by_point: dict[str, list[ActiveRule]] = {}
            exhausted: set[tuple[int, int]] = set()
            for row in rows:  # newest first
                try:
                    scenario = _parsed(row.source)
                except InvalidScenario as exc:  # stored by an older version with other rules
                    log.warning("active scenario %r no longer loads: %s", row.name, exc)
                    continue
                merchant = row.scope or None
                for rule in scenario.rules:
                    by_point.setdefault(rule.point, []).append(
                        ActiveRule(row.id, row.name, merchant, rule)
                    )
                    if rule.times is not None and left.get(row.id, {}).get(rule.index, 0) <= 0:
                        exhausted.add((row.id, rule.index))
            for rules in by_point.values():  # an object's own outcome (X-Emulator-Outcome) first
                rules.sort(key=lambda a: not a.scenario.startswith(outcomes.PREFIX))
            self._by_point = {point: tuple(rules) for point, rules in by_point.items()}
            self._exhausted = exhausted

    def has(self, point: Point[Any]) -> bool:
        """Whether any rule is active at ``point`` (the cheap test before building a subject)."""
        return point.name in self._by_point

    def _candidates(
        self, point: DecisionPoint[Any], merchant_id: str | None, subject: Mapping[str, Any]
    ) -> Iterator[ActiveRule]:
        for active in self._by_point.get(point.name, ()):
            if active.merchant_id is not None and active.merchant_id != merchant_id:
                continue
            key = (active.activation_id, active.rule.index)
            if active.rule.times is not None and key in self._exhausted:
                continue
            if active.rule.matcher(subject):
                yield active

    # -- decisions --

    def decide(
        self, tx: Tx, point: DecisionPoint[T], merchant_id: str | None, subject: Mapping[str, Any]
    ) -> T | None:
        """The outcome of the newest active rule at ``point`` that matches ``subject`` for
        ``merchant_id`` (global rules and rules scoped to this merchant), or ``None``.
        Call it inside the unit of work that acts on the answer: a ``times: N`` rule's use is
        counted in ``tx``, so it is spent only if that unit commits. The ``X-Emulator-Outcome``
        of the creating request being served comes first (``scenarios.outcomes``)."""
        forced = outcomes.requested(point.name)
        if forced is not None:
            return forced  # type: ignore[return-value]
        active = self.choose(tx, point, merchant_id, subject)
        return None if active is None else active.rule.outcome  # type: ignore[return-value]

    def decide_why(
        self, tx: Tx, point: DecisionPoint[T], merchant_id: str | None, subject: Mapping[str, Any]
    ) -> tuple[T | None, str | None]:
        """``decide``, with what decided: ``scenario:<name>`` or ``outcome_header:<point>``
        (None when nothing did)."""
        forced = outcomes.requested(point.name)
        if forced is not None:
            return forced, f"outcome_header:{point.name}"  # type: ignore[return-value]
        active = self.choose(tx, point, merchant_id, subject)
        if active is None:
            return None, None
        return active.rule.outcome, f"scenario:{active.scenario}"  # type: ignore[return-value]

    def choose(
        self, tx: Tx, point: DecisionPoint[Any], merchant_id: str | None, subject: Mapping[str, Any]
    ) -> ActiveRule | None:
        """Like ``decide``, returning the rule itself (its scenario and activation)."""
        for active in self._candidates(point, merchant_id, subject):
            if active.rule.times is None:
                return active
            key = (active.activation_id, active.rule.index)
            if repo.take_use(tx, *key):
                return active
            tx.after_commit(functools.partial(self._exhausted.add, key))
        return None

    def peek(
        self, point: Point[Any], merchant_id: str | None, subject: Mapping[str, Any]
    ) -> ActiveRule | None:
        """The first matching rule without taking a use: callers outside a unit of work use
        it when it is uncounted, and ``choose`` in a write when it is counted."""
        return next(self._candidates(point, merchant_id, subject), None)

    async def decide_now(
        self, point: Point[Any], merchant_id: str | None, subject: Mapping[str, Any]
    ) -> ActiveRule | None:
        """``choose`` for callers that have no unit of work (the HTTP middleware): no write
        at all when the rule that applies is uncounted."""
        first = self.peek(point, merchant_id, subject)
        if first is None or first.rule.times is None:
            return first
        return await self._db.write(lambda tx: self.choose(tx, point, merchant_id, subject))


@functools.lru_cache(maxsize=4096)
def _parsed(source: str) -> Scenario:
    """A stored source parsed once: every activation change reloads them all, and each
    object with an outcome header has one of its own."""
    return parse(source)
