"""Notices: "something was recorded for this merchant", for whoever waits on it.

A wait on expectations (``services.expectation_wait``) watches its merchant; a commit that
emitted one of its events (``kernel.outbox``), a journaled request of it (``kernel.journal``)
and a recorded delivery attempt of it (``delivery.engine``) notify that merchant's watchers,
which then check again. Nothing polls; nobody watching costs a dictionary lookup.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
from collections.abc import Iterator

from emulator.kernel.storage import Tx


class Notices:
    def __init__(self) -> None:
        self._watchers: dict[str, set[asyncio.Event]] = {}

    def watched(self, merchant_id: str | None) -> bool:
        return merchant_id is not None and merchant_id in self._watchers

    def watching(self) -> int:
        """How many watches are open (of every merchant)."""
        return sum(len(events) for events in self._watchers.values())

    def notify(self, merchant_id: str | None) -> None:
        """Wake the merchant's watchers (on the event loop)."""
        if merchant_id is None:
            return
        for event in self._watchers.get(merchant_id, ()):
            event.set()

    def after_commit(self, tx: Tx, merchant_id: str | None) -> None:
        """Inside a unit of work: notify once it has committed (if anyone watches)."""
        if self.watched(merchant_id):
            tx.after_commit(functools.partial(self.notify, merchant_id))

    @contextlib.contextmanager
    def watch(self, merchant_id: str) -> Iterator[asyncio.Event]:
        """An event set by each notice of ``merchant_id`` while the block runs: clear it
        before looking, so a notice during the look is never lost."""
        event = asyncio.Event()
        self._watchers.setdefault(merchant_id, set()).add(event)
        try:
            yield event
        finally:
            events = self._watchers.get(merchant_id)
            if events is not None:
                events.discard(event)
                if not events:
                    del self._watchers[merchant_id]
