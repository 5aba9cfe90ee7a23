"""The end of an async job's run (``Scheduler._run_async``): the unit of work its handler
returned and the job's removal commit together, with the job's timeline's clock stored only
when that changes what is stored. A run in the background never moves the clock: 1,000
deliveries stored the same clock 1,000 times."""

from __future__ import annotations

from collections.abc import Callable
from weakref import WeakKeyDictionary

from emulator.kernel.clock import ClockState
from emulator.kernel.jobs import Job
from emulator.kernel.steps import SaveClock
from emulator.kernel.storage import Tx
from emulator.kernel.timeline import Timeline


class JobEnd:
    def __init__(self, save_clock: SaveClock | None) -> None:
        self._save_clock = save_clock
        # Each timeline's clock as a job's end last stored it, once committed. Every other
        # store (an advance's batches, a set, a start, reset or restore) writes the clock as it
        # is in memory, and a clock never comes back to a state it left without one of those:
        # while the clock's state is this one, so is the stored value. A clock held by an
        # advance reads as real from the instant it stands at, which differs at every read.
        self._stored: WeakKeyDictionary[Timeline, ClockState] = WeakKeyDictionary()

    def unit(
        self, tx: Tx, job: Job, timeline: Timeline, then: Callable[[Tx], object] | None
    ) -> ClockState | None:
        """On the writer: the job's end; the clock's state it stored, if it stored it."""
        if then is not None:
            then(tx)
        tx.execute("DELETE FROM jobs WHERE id = ?", (job.id,))
        if self._save_clock is None:
            return None
        state = timeline.clock.state()
        if self._stored.get(timeline) == state:
            return None
        self._save_clock(tx, timeline)
        return state

    def committed(self, timeline: Timeline, stored: ClockState | None) -> None:
        if stored is not None:
            self._stored[timeline] = stored
