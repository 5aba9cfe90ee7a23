"""Outcomes per request: the ``X-Emulator-Outcome`` header of a creating call forces that
object's outcome without a scenario.

A value is parsed into the ``then`` of each decision point it decides, checked by the point's
own outcome type. The engine answers from it for the decisions made while the creating request
runs (``REQUESTED``: a collection's outcome is planned then), and the object keeps it as an
object-scoped activation (``source``: a scenario of one rule per point, matching the object's
id, named ``outcome.<object id>``) for the decisions that come later (a purchase's payment,
a payout's execution). The vocabulary is ``fixtures/test_values.yaml``'s ``outcome_header``
(``GET /_emulator/test-values``); a test keeps the two in step.

Pure: no I/O.
"""

from __future__ import annotations

import json
import re
from contextvars import ContextVar
from typing import Any, Literal, get_args

import msgspec

from emulator.domain.cards import DeclineCode
from emulator.scenarios.points import (
    COLLECTION_OUTCOME,
    PAYOUT_EXECUTION,
    PAYOUT_SETTLEMENT,
    PURCHASE_CHARGE,
    PURCHASE_PAYMENT,
    REGISTRY,
    Outcome,
)

HEADER = "X-Emulator-Outcome"
PREFIX = "outcome."  # the name of an object's activation: outcome.<object id>
Kind = Literal["purchase", "payout", "collection"]

# The forms each creating call takes, as the error and the test values name them.
FORMS: dict[Kind, tuple[str, ...]] = {
    "purchase": ("decline:<reason>", "3ds:failed"),
    "payout": ("payout:failed", "payout:failed@+<duration>"),
    "collection": (
        "unpaid:<code>",
        "unpaid:<code>@+<duration>",
        "dispute:<code>",
        "dispute:<code>@+<days>d",
    ),
}
PAYOUT_FAILS_AFTER = 3 * 86_400  # payout:failed without a duration: as a pending card's
REASONS: tuple[str, ...] = get_args(DeclineCode)
_DURATION = re.compile(r"\+(?:(\d{1,3})d)?(?:(\d{1,4})h)?(?:(\d{1,5})m)?(?:(\d{1,6})s)?\Z")
_OBJECT_ID = re.compile(r"[a-z0-9][a-z0-9._-]{0,55}\Z")


class BadOutcome(ValueError):
    """A value that is not one of the vocabulary; ``str()`` names the allowed forms."""


class Forced(msgspec.Struct, frozen=True):
    """A parsed header: the value as given, and the ``then`` of each point it decides."""

    value: str
    kind: str
    thens: dict[str, dict[str, Any]]

    def outcome(self, point: str) -> Outcome | None:
        then = self.thens.get(point)
        return None if then is None else _decode(point, then)


# The header of the creating request being served (a unit of work copies it).
REQUESTED: ContextVar[Forced | None] = ContextVar("outcome_header", default=None)


def requested(point: str) -> Outcome | None:
    """The forced outcome at ``point`` of the creating request being served, if any."""
    forced = REQUESTED.get()
    return None if forced is None else forced.outcome(point)


def allowed(kind: Kind) -> str:
    return ", ".join(FORMS[kind])


def _refuse(value: str, kind: Kind, why: str = "") -> BadOutcome:
    said = f"{HEADER}: {value[:64]!r} {why or 'is not an outcome of this call'}"
    return BadOutcome(f"{said}; allowed here: {allowed(kind)}")


def _seconds(text: str, value: str, kind: Kind) -> int:
    found = _DURATION.match(text)
    if found is None or not any(found.groups()):
        raise _refuse(value, kind, "has no valid '@+' duration (like @+2d, @+3h, @+1d12h)")
    days, hours, minutes, seconds = (int(g or 0) for g in found.groups())
    return ((days * 24 + hours) * 60 + minutes) * 60 + seconds


def parse(value: str, kind: Kind) -> Forced:
    """The header's value for a creating call of ``kind``; BadOutcome naming the allowed
    forms when it is not one of them (or its outcome is not one the point allows)."""
    text = value.strip()
    word, _, rest = text.partition(":")
    what, _, when = rest.partition("@")
    thens: dict[str, dict[str, Any]]
    if kind == "purchase" and word == "decline" and not when:
        if what not in REASONS:
            raise _refuse(value, kind, f"names no decline reason ({', '.join(REASONS)})")
        thens = {
            PURCHASE_PAYMENT.name: {"result": "declined", "reason": what},
            PURCHASE_CHARGE.name: {"result": "declined", "reason": what},
        }
    elif kind == "purchase" and text == "3ds:failed":
        thens = {PURCHASE_PAYMENT.name: {"result": "3ds_failed"}}
    elif kind == "payout" and word == "payout" and what == "failed":
        after = _seconds(when, value, kind) if when else PAYOUT_FAILS_AFTER
        settlement: dict[str, Any] = {"result": "failed", "after_seconds": after}
        thens = {PAYOUT_EXECUTION.name: {"result": "pending"}, PAYOUT_SETTLEMENT.name: settlement}
    elif kind == "collection" and word == "unpaid" and what:
        then: dict[str, Any] = {"status": "UNPAID", "reasonCode": what}
        if when:
            then["after_seconds"] = _seconds(when, value, kind)
        thens = {COLLECTION_OUTCOME.name: then}
    elif kind == "collection" and word == "dispute" and what:
        then = {"status": "DISPUTED", "reasonCode": what}
        if when:
            days = re.fullmatch(r"\+(\d{1,2})d", when)
            if days is None:
                raise _refuse(value, kind, "has no '@+<days>d' (a dispute comes days later)")
            then["dispute_after_days"] = int(days[1])
        thens = {COLLECTION_OUTCOME.name: then}
    else:
        raise _refuse(value, kind)
    forced = Forced(text, kind, thens)
    for point, then in thens.items():
        try:
            _decode(point, then)
        except (msgspec.ValidationError, ValueError) as exc:
            raise _refuse(value, kind, f"is refused: {exc}") from None
    return forced


def _decode(point: str, then: dict[str, Any]) -> Outcome:
    outcome: Outcome = msgspec.convert(then, REGISTRY[point].outcome)
    return outcome


def name_of(object_id: str) -> str | None:
    """The object's activation name, or None when its id cannot be one."""
    return PREFIX + object_id if _OBJECT_ID.match(object_id) else None


def object_of(name: str) -> str | None:
    """The object id of an object's activation name, else None."""
    return name[len(PREFIX) :] if name.startswith(PREFIX) else None


def source(object_id: str, forced: Forced, where: str) -> str:
    """The object's scenario (JSON, which is YAML): one rule per point, matching its id."""
    name = name_of(object_id)
    assert name is not None
    rules = [
        {"when": point, "match": {"object_id": object_id}, "then": then}
        for point, then in forced.thens.items()
    ]
    description = f"{HEADER}: {forced.value} on {where}"
    return json.dumps({"name": name, "description": description, "rules": rules}, indent=1)
