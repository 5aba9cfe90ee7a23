"""Notices: "something was recorded for this merchant (or sink)", for whoever waits on it.

A wait on expectations (``sandbox.expectations.service_wait``) watches its merchant; a commit that
emitted one of its events (``kernel.outbox``: kind ``event``), a journaled request of it
(``kernel.journal``: ``request``) and a recorded delivery attempt of it (``delivery.engine``:
``delivery``) notify that merchant's watchers of those kinds, which then check again. A wait
on a sink (``sandbox.sink.service``) watches the key ``sink_key(name)``, told of each message it
receives (``sink``); a wait on the delivery log of every merchant watches ``ANY``, which
hears every key's notices. Nothing polls; nobody watching costs a dictionary lookup, and a watcher
is not woken by a kind it does not read (a wait for a delivery sleeps through the requests
and events that come before it).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
from collections.abc import Iterator

from emulator.kernel.storage import Tx

KINDS = frozenset({"request", "event", "delivery", "sink"})
ANY = "*"  # the key whose watchers hear every key's notices (of their kinds)


def sink_key(name: str) -> str:
    """The key of a sink's watchers (merchants' keys are UUIDs: never this)."""
    return f"sink/{name}"


class _Watch:
    __slots__ = ("event", "kinds")

    def __init__(self, kinds: frozenset[str]) -> None:
        self.event = asyncio.Event()
        self.kinds = kinds


class Notices:
    def __init__(self) -> None:
        self._watchers: dict[str, set[_Watch]] = {}

    def watched(self, key: str | None) -> bool:
        return key is not None and key in self._watchers

    def watching(self) -> int:
        """How many watches are open (of every merchant and sink)."""
        return sum(len(watches) for watches in self._watchers.values())

    def notify(self, key: str | None, kind: str) -> None:
        """Wake the watchers of ``key`` (and of ``ANY``) that read ``kind`` (on the event
        loop)."""
        for watched in (key, ANY) if key is not None else (ANY,):
            for watch in self._watchers.get(watched, ()):
                if kind in watch.kinds:
                    watch.event.set()

    def after_commit(self, tx: Tx, key: str | None, kind: str) -> None:
        """Inside a unit of work: notify once it has committed (if anyone watches)."""
        if self.watched(key) or ANY in self._watchers:
            tx.after_commit(functools.partial(self.notify, key, kind))

    @contextlib.contextmanager
    def watch(self, key: str, kinds: frozenset[str] = KINDS) -> Iterator[asyncio.Event]:
        """An event set by each notice of ``key`` of one of ``kinds`` while the block runs:
        clear it before looking, so a notice during the look is never lost."""
        watch = _Watch(kinds)
        self._watchers.setdefault(key, set()).add(watch)
        try:
            yield watch.event
        finally:
            watches = self._watchers.get(key)
            if watches is not None:
                watches.discard(watch)
                if not watches:
                    del self._watchers[key]
