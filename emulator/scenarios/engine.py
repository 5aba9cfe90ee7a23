"""The scenario engine: which rules are active, and ``decide`` at a decision point."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from emulator.kernel.storage import Tx
from emulator.scenarios.points import Outcome, Point

T = TypeVar("T", bound=Outcome)


class Scenarios:
    def decide(
        self, tx: Tx, point: Point[T], merchant_id: str | None, subject: Mapping[str, Any]
    ) -> T | None:
        """The outcome of the newest active rule at ``point`` that matches ``subject`` for
        ``merchant_id`` (global rules and rules scoped to this merchant), or ``None``.
        Call it inside the unit of work that acts on the answer: a ``times: N`` rule's use is
        counted in ``tx``, so it is spent only if that unit commits."""
        return None
