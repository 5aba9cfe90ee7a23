"""``KnownNone``: what units of work looked for and found none of, kept once they commit.

A cache of absences for a question asked on every message (has this merchant an armed
hold of this kind?) whose answer is nearly always no; owned by the runtime.
"""

from __future__ import annotations

import threading

from emulator.kernel.storage import Tx


class KnownNone:
    """Pairs a unit of work looked for and found nothing of (the delivery holds': (merchant,
    kind) with no armed hold). A pair found without one is known for the rest of that unit of
    work, and for good once the unit has committed (what a rolled-back unit saw is not
    known); ``forget`` (a hold made, a whole state replaced) forgets them all, and an answer
    found before that is not kept (``generation``)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()  # the writer adds and empties, hooks add on the loop
        self._pairs: set[tuple[str, str]] = set()
        self._conn: object = None  # the writer's connection they were seen on
        self._unit: tuple[Tx | None, int, set[tuple[str, str]]] = (None, -1, set())
        self.generation = 0

    def knows(self, tx: Tx, pair: tuple[str, str]) -> bool:
        """Whether ``pair`` is known to have none; a swapped database (a restore or a reset
        reopens the writer's connection) forgets them all."""
        if tx.conn is not self._conn:
            self.forget()
            self._conn = tx.conn
        if pair in self._pairs:
            return True
        unit, generation, pairs = self._unit
        return unit is tx and generation == self.generation and pair in pairs

    def found_none(self, tx: Tx, pair: tuple[str, str]) -> None:
        """The unit ``tx`` found no armed hold of ``pair``."""
        generation = self.generation
        unit, seen, pairs = self._unit
        if unit is not tx or seen != generation:
            self._unit = (tx, generation, pairs := set())
        pairs.add(pair)
        tx.after_commit(lambda: self._add(pair, generation))

    def _add(self, pair: tuple[str, str], generation: int) -> None:
        with self._lock:
            if generation == self.generation:
                self._pairs.add(pair)

    def forget(self) -> None:
        with self._lock:
            self.generation += 1
            self._pairs.clear()
