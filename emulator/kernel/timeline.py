"""Timelines: a clock and the jobs on it. The server clock has one; so does every merchant
that owns its clock (``kernel.clock.Clocks``). Each has its own lock, so advancing one never
waits for, nor moves, another."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

from emulator.kernel.clock import Clock, Clocks
from emulator.kernel.foreign import Foreign
from emulator.kernel.storage import Tx

SERVER = ""  # the server clock's timeline key; a merchant's own is its id


class ClockBackwards(ValueError):
    """An advance to an instant before now: the clock only moves forward."""


class ClockOutOfRange(ValueError):
    """An advance past the clock's range (``kernel.clock.in_clock_range``)."""


class NothingScheduled(LookupError):
    """An advance to the next job of a clock that has none."""


class TimelineReplaced(RuntimeError):
    """A reset or restore replaced the timeline while a call waited for it."""


class Timeline:
    """One clock and the jobs on it: the server's (key ``SERVER``) or a merchant's own."""

    def __init__(self, key: str, clock: Clock) -> None:
        self.key = key
        self.clock = clock
        self.lock = asyncio.Lock()  # one advance, run or pause of this timeline at a time
        self.next_due_us: int | None = None
        self.noted = 0  # jobs noted as scheduled, so a stale re-read cannot hide one
        self._advancing = False
        self.skipped = False  # a run of due jobs found it held: its holder starts one after
        # Where the advance under way stops, and why (a hold took something at that instant:
        # ``emulator/delivery/holds.py``); cleared when the next advance starts.
        self.stopped: tuple[int, str] | None = None
        self.foreign = Foreign()  # others' jobs while it advances (``kernel.foreign``)
        # A run of due jobs holding the lock (``run_hold``): done when it lets go.
        self.running: tuple[asyncio.Future[None], asyncio.Task[object] | None] | None = None

    @contextlib.asynccontextmanager
    async def run_hold(self) -> AsyncIterator[None]:
        """Hold the lock for a run of what is due now (``Scheduler.run_due``), which starts
        sends in the background before it lets go: ``Timelines.runs`` finds it to wait for."""
        async with self.lock:
            done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            self.running = (done, asyncio.current_task())
            try:
                yield
            finally:
                self.running = None
                done.set_result(None)

    @property
    def advancing(self) -> bool:
        return self._advancing

    @advancing.setter
    def advancing(self, value: bool) -> None:
        if value:
            self.stopped = None
        self._advancing = value

    def stop(self, at_us: int, why: str) -> None:
        """The advance under way goes no further than ``at_us`` (the first stop counts)."""
        if self._advancing and self.stopped is None:
            self.stopped = (at_us, why)

    def limit(self, target_us: int) -> int:
        """How far the advance under way goes: ``target_us``, or its stop (never back)."""
        if not self._advancing or self.stopped is None:
            return target_us
        return min(target_us, max(self.stopped[0], self.clock.now_us()))

    def note(self, due_us: int) -> None:
        """A job was scheduled (its unit has committed)."""
        self.noted += 1
        if self.next_due_us is None or due_us < self.next_due_us:
            self.next_due_us = due_us

    def reread(self, noted: int, earliest: int | None) -> None:
        """The earliest due time as read. A job noted while the read was out (``noted`` then)
        is kept: background jobs schedule while others run, and the read may have missed it."""
        if self.noted != noted and self.next_due_us is not None:
            earliest = self.next_due_us if earliest is None else min(earliest, self.next_due_us)
        self.next_due_us = earliest

    def has_due(self) -> bool:
        """Whether a job is due now that ``run_due`` would run: while it advances, only
        others' (``kernel.foreign``); its advance runs the rest."""
        if self._advancing:
            return bool(self.foreign) and self.foreign.any_due(self.clock.now_us())
        return self.next_due_us is not None and self.next_due_us <= self.clock.now_us()


class Timelines(dict[str, Timeline]):
    """Every timeline by key; kept in step with the merchants' own clocks in ``Clocks``."""

    def __init__(self, clocks: Clocks) -> None:
        super().__init__()
        self._clocks = clocks
        self.server = Timeline(SERVER, clocks.server)
        self[SERVER] = self.server

    def runs(self, merchant_id: str | None = None) -> list[asyncio.Future[None]]:
        """The runs of due jobs holding a timeline now (a request's, the ticker's, a kick's):
        every timeline's, or only the one ``merchant_id``'s jobs run on. Each is done when it
        lets go, when what it started is under way. Not the caller's own run, nor an advance
        or a pause."""
        me = asyncio.current_task()
        held = list(self.values()) if merchant_id is None else [self.of(merchant_id)]
        return [t.running[0] for t in held if t.running and t.running[1] is not me]

    def busy(self) -> list[Timeline]:
        """The timelines that may have something to run: a job noted, or an advance under way.
        ``has_due`` is False on every other, and the ticker has nothing to wait for there: a
        run of due jobs everywhere (each request's kick, the ticker) looks at these only, one
        attribute read for each of a long suite's finished merchants instead of a call."""
        return [t for t in self.values() if t.next_due_us is not None or t._advancing]

    def of(self, merchant_id: str | None) -> Timeline:
        """The timeline a merchant's jobs run on: its own, or the server's."""
        if merchant_id is None:
            return self.server
        return self.get(merchant_id, self.server)

    def give_own_clock(self, tx: Tx, merchant_id: str, clock: Clock) -> Timeline:
        """Inside a unit of work: ``merchant_id`` owns ``clock`` from now on, and its jobs
        move to that clock's timeline. Registered on the writer, inside the unit, so no unit
        after it schedules a job of this merchant on the server's timeline."""
        tx.execute(
            "UPDATE jobs SET timeline = ? WHERE merchant_id = ? AND state = 'pending'",
            (merchant_id, merchant_id),
        )
        return self.adopt(merchant_id, clock)

    def adopt(self, merchant_id: str, clock: Clock) -> Timeline:
        """Register a merchant's own clock whose jobs are already on its timeline (a start or
        a restore reading the stored clocks)."""
        timeline = Timeline(merchant_id, clock)
        self._clocks.own[merchant_id] = clock
        self[merchant_id] = timeline
        return timeline

    def forget_own_clocks(self) -> None:
        """Every merchant follows the server clock again (a reset; a restore then adopts the
        restored ones). Only while every timeline is paused."""
        self._clocks.own.clear()
        for key in [key for key in self if key != SERVER]:
            del self[key]
