"""Others' jobs during an advance: what an advance runs, and what it leaves to go out as it
would without one (``Scheduler``).

An advance's work is the jobs due on its way when it starts, what they cause, and what its own
merchants' receivers cause while it sends them a delivery. Requests of other clients meanwhile
are served at the instant the advance stands at (``Runtime.enter``), and the jobs they schedule
on its timeline at that instant (the first attempts of the deliveries their events cause
above all) are *foreign*: kept here, left out of the advance's reads, and run in the background
at once (``ForeignRunner``), as ``run_due`` runs due jobs when no advance holds the clock. An
advance under load therefore ends when its own work does, not when the load stops.
A job scheduled for later than that instant is met on the advance's way and run there in
order, like any job of its timeline. Sends already due when the advance starts are not on its
way either (``adopt_overdue``). Before the advance moves its clock on, the foreign jobs due at
its instant run and their sends end (``settle``; a run of its steps stops for new ones once an
instant), so they are stamped with it. Foreign jobs still pending when the advance ends are
ordinary jobs again.

Whose work a unit is: the advance's task (and the units it writes, and an in-process receiver
called by its sends) carries ``WORKING_FOR`` = its timeline's key; on a merchant's own clock, a
job of that merchant while the advance awaits a send to it (``UnderWay.sending_for``: its
receiver calling back) is the advance's too; so is a delivery of an event emitted by the
advance's work (the dispatcher says which, ``own``), whichever unit dispatches it. The server
clock is shared by every merchant that follows it: there, requests over HTTP are others'.
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

from emulator.kernel.clock import Clocks
from emulator.kernel.jobs import Job, pending_due, run_careful
from emulator.kernel.storage import Database, Tx
from emulator.kernel.underway import UnderWay

if TYPE_CHECKING:
    from emulator.kernel.timeline import Timeline

# The key of the timeline whose advance the current task works for (None: no advance's).
WORKING_FOR: contextvars.ContextVar[str | None] = contextvars.ContextVar(
    "working_for", default=None
)
ATOMIC_AT_ONCE = 256  # foreign atomic jobs run in one unit of work


class Foreign:
    """One timeline's foreign jobs (its advance leaves them out): added on the writer's
    thread, read on both, hence the lock."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._unready: dict[int, Job] = {}  # its unit has not committed yet: left out only
        self._pending: dict[int, Job] = {}
        self._taken: set[int] = set()  # run or started, not yet done: still left out
        self.added = 0  # how many were added (a run of the advance notices new ones)
        self.waited_at: int | None = None  # the instant the advance last stopped for them
        # ``added`` when the advance last ran them (``ForeignRunner.settle``): those added since,
        # by its own dispatch or a unit of others' that committed meanwhile, are run before
        # its clock moves on
        self.settled = 0

    def __bool__(self) -> bool:
        return bool(self._unready or self._pending or self._taken)

    def add(self, job: Job) -> None:
        """Left out of the advance from now on; run once its unit has committed (``ready``)."""
        with self._lock:
            self._unready[job.id] = job
            self.added += 1

    def ready(self, job_id: int) -> None:
        with self._lock:
            job = self._unready.pop(job_id, None)
            if job is not None:
                self._pending[job_id] = job

    def ids(self) -> tuple[int, ...]:
        if not self:
            return ()
        with self._lock:
            return (*self._unready, *self._pending, *self._taken)

    def any_due(self, now_us: int) -> bool:
        with self._lock:
            return any(job.due_us <= now_us for job in self._pending.values())

    def take_due(self, now_us: int, is_atomic: Callable[[str], bool], slots: int) -> list[Job]:
        """The jobs due by ``now_us``, soonest first: atomic ones (up to ``ATOMIC_AT_ONCE``)
        and async ones for up to ``slots`` free background slots."""
        with self._lock:
            due = sorted(
                (job for job in self._pending.values() if job.due_us <= now_us),
                key=lambda job: (job.due_us, job.id),
            )
            taken: list[Job] = []
            atomic = 0
            for job in due:
                if is_atomic(job.kind):
                    if atomic >= ATOMIC_AT_ONCE:
                        continue
                    atomic += 1
                elif slots <= 0:
                    continue
                else:
                    slots -= 1
                taken.append(job)
                del self._pending[job.id]
                self._taken.add(job.id)
            return taken

    def taken(self) -> set[int]:
        with self._lock:
            return set(self._taken)

    def done(self, job_id: int) -> None:
        with self._lock:
            self._taken.discard(job_id)

    def clear(self) -> bool:
        """Forget them all (an advance starts or ends); whether any was still pending."""
        with self._lock:
            left = bool(self._pending)
            self._unready.clear()
            self._pending.clear()
            self._taken.clear()
            return left


def note(
    tx: Tx, timeline: Timeline | None, job: Job, own: bool | None, under_way: UnderWay
) -> None:
    """On the writer, as ``job`` is scheduled on ``timeline``: keep it as foreign when the
    timeline is advancing, the job is due at the instant it stands at (a job for later is met
    on the advance's way, and run in order there) and is not that advance's work (runnable
    once committed: a send started before would not find its message)."""
    if timeline is None or not timeline.advancing or job.due_us > timeline.clock.now_us():
        return
    if not (own if own is not None else is_own(timeline, job.merchant_id, under_way)):
        timeline.foreign.add(job)
        tx.after_commit(functools.partial(timeline.foreign.ready, job.id))


def is_own(timeline: Timeline | None, merchant_id: str | None, under_way: UnderWay) -> bool:
    """Whether what the current unit does for ``merchant_id`` is the work of the advance of
    its ``timeline`` (True when that timeline is not advancing: nobody's to leave out): the
    advance's task's, or, on a merchant's own clock, its receiver's while the advance awaits
    a send to it. The server clock is shared: there, a request over HTTP is never its work."""
    if timeline is None or not timeline.advancing or WORKING_FOR.get() == timeline.key:
        return True
    return timeline.key == merchant_id and under_way.sending_for(merchant_id)


def overdue(
    tx: Tx, key: str, now_us: int, kinds: tuple[str, ...], exclude: tuple[int, ...]
) -> list[Job]:
    return [job for job in pending_due(tx, key, now_us, exclude) if job.kind in kinds]


class ForeignRunner:
    """Runs the foreign jobs due at the instant an advance stands at, in the background."""

    def __init__(
        self,
        db: Database,
        clocks: Clocks,
        atomic: dict[str, Callable[[Tx, Job], None]],
        under_way: UnderWay,
        start: Callable[[Job, Timeline], None],
    ) -> None:
        self._db, self._clocks, self._atomic = db, clocks, atomic
        self._under_way, self._start = under_way, start
        self._tasks: dict[str, asyncio.Task[None]] = {}
        self._again: set[str] = set()

    def kick(self, timeline: Timeline) -> None:
        """Run what is due of them now (again, when a run is under way)."""
        if not timeline.advancing or not timeline.foreign.any_due(timeline.clock.now_us()):
            return
        task = self._tasks.get(timeline.key)
        if task is not None and not task.done():
            self._again.add(timeline.key)
            return
        context = contextvars.copy_context()
        context.run(WORKING_FOR.set, None)  # what they cause is foreign too
        self._tasks[timeline.key] = asyncio.get_running_loop().create_task(
            self._loop(timeline), name=f"foreign-{timeline.key}", context=context
        )

    async def _loop(self, timeline: Timeline) -> None:
        while True:
            self._again.discard(timeline.key)
            await self.run(timeline)
            if timeline.key not in self._again:
                return

    async def adopt_overdue(self, timeline: Timeline, kinds: tuple[str, ...]) -> None:
        """As an advance starts: its timeline's async jobs (sends) already due are not on its
        way; they go out in the background as without it (a backlog of them under load would
        otherwise be sent one by one by the advance)."""
        due = timeline.next_due_us  # its earliest due time, those under way left out
        if due is None or due > timeline.clock.now_us():
            return  # none is due yet
        find = functools.partial(
            overdue, key=timeline.key, now_us=timeline.clock.now_us(), kinds=kinds,
            exclude=self._under_way.ids(),
        )  # fmt: skip
        for job in await self._db.read(find):
            timeline.foreign.add(job)
            timeline.foreign.ready(job.id)

    async def settle(self, timeline: Timeline) -> None:
        """Before the advance moves its clock on: others' jobs due at this instant run, and
        their sends end, first (their receivers see the instant of their events). Only those
        there now: the advance never waits for more."""
        timeline.foreign.settled = timeline.foreign.added
        if not timeline.foreign:
            return
        token = WORKING_FOR.set(None)  # what they cause is others' too
        try:
            await self.run(timeline, once=True)
        finally:
            WORKING_FOR.reset(token)
        await self._under_way.wait_for(timeline.foreign.taken())

    async def run(self, timeline: Timeline, *, once: bool = False) -> int:
        count = 0
        while timeline.advancing:
            jobs = timeline.foreign.take_due(
                timeline.clock.now_us(), self._atomic.__contains__, self._under_way.free()
            )
            if not jobs:
                break
            atomic = [job for job in jobs if job.kind in self._atomic]
            for job in jobs:
                if job.kind not in self._atomic:
                    self._start(job, timeline)  # done() when it ends
            if atomic:
                run = functools.partial(self._run, timeline=timeline, jobs=atomic)
                try:
                    await self._db.write(run)
                finally:
                    for job in atomic:
                        timeline.foreign.done(job.id)
            count += len(jobs)
            if once:
                break
        return count

    def _run(self, tx: Tx, timeline: Timeline, jobs: list[Job]) -> None:
        with self._clocks.using(timeline.clock):
            for job in jobs:
                found = tx.one("SELECT 1 FROM jobs WHERE id = ? AND state = 'pending'", (job.id,))
                if found is not None:  # else it ran meanwhile (its advance ended) or went
                    run_careful(tx, job, self._atomic[job.kind])
