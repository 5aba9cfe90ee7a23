"""Durable jobs on the emulator's clocks (rows: ``kernel.jobs``), scheduled inside their
domain's unit of work. Every job runs on a ``Timeline`` (``kernel.timeline``): the server
clock's or its merchant's own, each with its own lock, so advancing one never waits for, nor
moves, another. Every job is served on its timeline's clock (``Clocks.using``).

**An advance is a simulated timeline.** ``advance`` moves a timeline's clock from one due job
to the next in (due time, id) order, holding it still at each job's due time while it runs.
Before the clock moves on, what that instant emitted is dispatched (``before_step``), so
deliveries go out at their event's instant. While a delivery is out, requests are served at
that instant; jobs others schedule meanwhile are left to run as without an advance
(``kernel.foreign``). Consecutive atomic jobs share one unit of work (``kernel.steps``).
``run_due`` does the same up to "now" without moving the clock (the ticker in real mode, every
request for its merchant's). *Atomic* handlers ``fn(tx, job)`` commit with the job's removal;
*async* ones ``await fn(job)`` (deliveries): an advance awaits them at their instants,
``run_due`` starts them in the background (``kernel.underway``). A failed job is kept.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import msgspec

from emulator.kernel import foreign
from emulator.kernel.clock import CLOCK_RANGE, Clocks, from_us, in_clock_range, iso
from emulator.kernel.foreign import WORKING_FOR, ForeignRunner
from emulator.kernel.job_end import JobEnd
from emulator.kernel.jobs import Job, earliest_due, mark_failed, next_job
from emulator.kernel.steps import AtomicHandler, Batch, RunCarefully, SaveClock, Steps
from emulator.kernel.storage import Database, Tx
from emulator.kernel.timeline import (
    SERVER,
    ClockBackwards,
    ClockOutOfRange,
    NothingScheduled,
    Timeline,
    TimelineReplaced,
    Timelines,
)
from emulator.kernel.underway import UnderWay

log = logging.getLogger(__name__)

# An async handler may return a unit of work: it commits with the job's removal.
AsyncHandler = Callable[[Job], Awaitable[Callable[[Tx], object] | None]]


class Scheduler:
    # periodic housekeeping kinds: an advance to the next job passes them by, and an advance
    # runs them at its end, once however long (not once per period passed: retention.prune)
    housekeeping: tuple[str, ...] = ()

    def __init__(self, db: Database, clocks: Clocks, save_clock: SaveClock | None = None) -> None:
        self._db = db
        self._clocks = clocks
        # Each batch of an advance stores the clock with the jobs it ran (a crash never leaves
        # jobs run ahead of a stored clock).
        self._save_clock = save_clock
        self._end = JobEnd(save_clock)
        self._atomic: dict[str, AtomicHandler] = {}
        self._async: dict[str, AsyncHandler] = {}
        self.timelines = Timelines(clocks)
        self.server = self.timelines.server
        self.changed = asyncio.Event()  # a job was scheduled or finished (the ticker waits)
        self.under_way = UnderWay()
        self._kicking: asyncio.Task[None] | None = None
        self.foreign = ForeignRunner(db, clocks, self._atomic, self.under_way, self._start)
        # Called on the writer before each step of a run (the delivery engine dispatches the
        # events of the step before: their first attempts are due at their instant).
        self.before_step: Callable[[Tx], bool] | None = None
        self._inserted_low: int | None = None  # earliest due scheduled since the last look

    def _inserted_since(self) -> int | None:
        """On the writer: the earliest due time of the jobs scheduled since the last call."""
        low, self._inserted_low = self._inserted_low, None
        return low

    def handle(self, kind: str, handler: AtomicHandler) -> None:
        self._atomic[kind] = handler

    def handle_async(self, kind: str, handler: AsyncHandler) -> None:
        self._async[kind] = handler

    def timeline_of(self, merchant_id: str | None) -> Timeline:
        return self.timelines.of(merchant_id)  # its own, or the server's

    def schedule(
        self,
        tx: Tx,
        kind: str,
        due_us: int,
        payload: dict[str, Any],
        merchant_id: str | None = None,
        own: bool | None = None,  # of the advance under way (``kernel.foreign``); None: guess
    ) -> int:
        if kind not in self._atomic and kind not in self._async:
            raise KeyError(f"no handler for job kind {kind!r}")
        key = merchant_id if merchant_id is not None and merchant_id in self.timelines else SERVER
        cursor = tx.execute(  # an id above every job under way's: never taken for one of them
            "INSERT INTO jobs (id, merchant_id, kind, due_us, payload, timeline) VALUES"
            " ((SELECT MAX(COALESCE(MAX(id), 0), ?) + 1 FROM jobs), ?, ?, ?, ?, ?)",
            (self.under_way.top(), merchant_id, kind, due_us, msgspec.json.encode(payload), key),
        )
        assert cursor.lastrowid is not None
        job = Job(cursor.lastrowid, kind, due_us, merchant_id, payload)
        foreign.note(tx, self.timelines.get(key), job, own, self.under_way)  # before _note_due
        tx.after_commit(lambda: self._note_due(key, due_us))
        low = self._inserted_low  # a run's jobs read ahead are still first unless earlier
        self._inserted_low = due_us if low is None else min(low, due_us)
        return cursor.lastrowid

    def _note_due(self, key: str, due_us: int) -> None:
        timeline = self.timelines.get(key)
        if timeline is not None:  # else its clock is gone (a reset), and the job with it
            timeline.note(due_us)
            self.changed.set()
            self.foreign.kick(timeline)  # another's job while it advances: due now?

    async def _reread_due(self, timeline: Timeline) -> None:
        noted = timeline.noted
        earliest = await self._db.read(
            functools.partial(earliest_due, key=timeline.key, exclude=self.under_way.ids())
        )
        timeline.reread(noted, earliest)

    async def refresh(self, *timelines: Timeline) -> None:
        """Re-read the earliest due times (of every timeline: a start, reset or restore)."""
        for timeline in timelines or list(self.timelines.values()):
            await self._reread_due(timeline)
        self.changed.set()

    async def next_job(self, timeline: Timeline) -> Job | None:
        """The next pending job of the timeline, due or not (not one under way, nor of the
        ``housekeeping`` kinds: retention is not "the next thing the service does")."""
        find = functools.partial(next_job, key=timeline.key, target_us=None, skip=self.housekeeping)
        return await self._db.read(functools.partial(find, exclude=self.under_way.ids()))

    def current(self, timeline: Timeline) -> bool:
        """Whether ``timeline`` is still its key's (a reset or restore replaces them)."""
        return self.timelines.get(timeline.key) is timeline

    # -- running -------------------------------------------------------------------------------

    async def run_due(self, timeline: Timeline | None = None) -> int:
        """Run what is due now on the timeline (the server's by default); cheap when nothing
        is. Nothing when the timeline is advancing or paused: whoever holds it runs them."""
        timeline = timeline or self.server
        if not timeline.has_due():
            return 0
        if timeline.lock.locked():
            if timeline.advancing:  # others' jobs, at the instant it stands at
                self.foreign.kick(timeline)
                return 0
            timeline.skipped = True  # its holder kicks once it lets go
            return 0
        async with timeline.run_hold():
            if not self.current(timeline):
                return 0
            ran = await self._run_until(timeline, timeline.clock.now_us(), move_clock=False)
        self._after_hold(timeline)
        return ran

    def _after_hold(self, timeline: Timeline) -> None:
        if timeline.skipped:
            timeline.skipped = False
            self._kick()

    async def run_due_everywhere(self) -> int:
        return sum([await self.run_due(timeline) for timeline in self.timelines.busy()])

    def any_due(self) -> bool:
        return any(timeline.has_due() for timeline in self.timelines.busy())

    async def advance(
        self,
        target_us: int | None = None,
        *,
        by_us: int | None = None,
        timeline: Timeline | None = None,
    ) -> int:
        """Move the timeline's clock (the server's by default) to ``target_us`` or ``by_us``
        from now (once the clock is ours: concurrent advances add up), running due jobs on the
        way; how many ran."""
        return (await self._advance(timeline or self.server, target_us, by_us, False))[0]

    async def advance_to_next(self, timeline: Timeline) -> tuple[int, Job]:
        """Advance to the due time of the timeline's next job (found once the clock is ours);
        how many ran, and that job."""
        count, upcoming = await self._advance(timeline, None, None, True)
        assert upcoming is not None
        return count, upcoming

    async def _advance(
        self, timeline: Timeline, target_us: int | None, by_us: int | None, to_next: bool
    ) -> tuple[int, Job | None]:
        clock = timeline.clock
        upcoming: Job | None = None
        async with timeline.lock:
            if not self.current(timeline):
                raise TimelineReplaced("the state was replaced meanwhile (a reset or restore)")
            now_us = clock.now_us()
            if to_next:
                upcoming = await self.next_job(timeline)
                if upcoming is None:
                    raise NothingScheduled("no job is scheduled on this clock")
                target_us = max(upcoming.due_us, now_us)
            elif by_us is not None:
                target_us = now_us + by_us
            if target_us is None or target_us < now_us:
                raise ClockBackwards("the clock only moves forward")
            if not in_clock_range(target_us):  # checked here: concurrent advances add up
                raise ClockOutOfRange(f"the clock stays {CLOCK_RANGE}")
            clock.hold()  # each instant holds still while its work runs
            working = WORKING_FOR.set(timeline.key)  # what it causes is its own work
            try:
                await self.settle(timeline)  # background work finishes at its own time first
                timeline.foreign.clear()
                timeline.advancing = True  # others' jobs from now on are left out
                await self.foreign.adopt_overdue(timeline, tuple(self._async))  # not on its way
                count, wait = 0, self.housekeeping  # housekeeping waits for the end
                for _ in range(100):  # again: what requests scheduled during the last re-read
                    ran = await self._run_until(timeline, target_us, move_clock=True, skip=wait)
                    count, due = count + ran, timeline.next_due_us
                    if not ran or due is None or due > target_us:
                        break
                clock.set_us(target_us := timeline.limit(target_us))  # a hold's stop
                if (due := timeline.next_due_us) is not None and due <= target_us:  # housekeeping
                    count += await self._run_until(timeline, target_us, move_clock=True)
            finally:
                timeline.advancing = False
                if timeline.foreign.clear():  # others' jobs left: ordinary ones again, due
                    timeline.skipped = True
                WORKING_FOR.reset(working)
                clock.release()
        whose = f"merchant {timeline.key}'s clock" if timeline.key != SERVER else "server clock"
        log.info("%s advanced to %s: %d jobs ran", whose, iso(from_us(target_us)), count)
        self._after_hold(timeline)
        return count, upcoming

    @contextlib.asynccontextmanager
    async def paused(
        self, timeline: Timeline | None = None, *, cancel_running: bool = False
    ) -> AsyncIterator[None]:
        """Nothing runs on this timeline (None: on any) meanwhile: what is under way finishes
        first, or is cancelled (``cancel_running``: the whole state is about to be replaced)."""
        timelines = [timeline] if timeline else [self.timelines[k] for k in sorted(self.timelines)]
        async with contextlib.AsyncExitStack() as stack:
            for held in timelines:
                await stack.enter_async_context(held.lock)
            if timeline is not None and not self.current(timeline):
                raise TimelineReplaced("the state was replaced meanwhile (a reset or restore)")
            if cancel_running:
                await self.cancel_running()
            else:
                for held in timelines:
                    await self.settle(held)
            try:
                yield
            finally:
                if cancel_running:  # cancelled jobs are due again (a failed restore keeps them)
                    await self.refresh()
        for held in timelines:
            self._after_hold(held)

    async def settle(self, timeline: Timeline | None = None) -> None:  # background jobs' end
        await self.under_way.settle(None if timeline is None else timeline.key)

    async def cancel_running(self) -> None:
        """Stop the background async jobs under way (their jobs stay pending)."""
        kicking, self._kicking = self._kicking, None
        if kicking is not None and kicking is not asyncio.current_task():
            kicking.cancel()
            await asyncio.gather(kicking, return_exceptions=True)
        await self.under_way.cancel()

    async def _run_until(
        self, timeline: Timeline, target_us: int, *, move_clock: bool, skip: tuple[str, ...] = ()
    ) -> int:  # skip: kinds an advance runs last
        count, careful = 0, False
        while True:
            if move_clock:  # others' jobs of this instant first (kernel.foreign)
                await self.foreign.settle(timeline)
            before_us = timeline.clock.now_us()
            # all background slots taken: async jobs wait for one (an advance runs its own)
            full = not move_clock and self.under_way.full()
            try:
                batch = await self._db.write(
                    functools.partial(
                        self._run_atomic,
                        timeline=timeline,
                        target_us=target_us,
                        move_clock=move_clock,
                        exclude=self.under_way.ids(),
                        skip=skip + tuple(self._async) if full else skip,
                        slots=self.under_way.free(),
                        careful=careful,
                    ),
                    alone=True,  # a failing job rolls back just this run (steps.RunCarefully)
                )
            except RunCarefully:
                if move_clock:  # the rolled-back run had moved it
                    timeline.clock.set_us(before_us)
                careful = True
                continue
            careful = False
            count += batch.ran
            for started in batch.to_start:
                self._start(started, timeline)
            count += len(batch.to_start)
            job = batch.next_async
            if job is not None:
                if move_clock:
                    if job.due_us > timeline.clock.now_us():
                        timeline.clock.set_us(job.due_us)
                    with self.under_way.inline(job):
                        await self._run_async(job, timeline)
                else:
                    self._start(job, timeline)
                count += 1
            elif not batch.more:
                await self._reread_due(timeline)
                return count
            else:
                await asyncio.sleep(0)  # between batches, the event loop serves others

    def _start(self, job: Job, timeline: Timeline) -> None:
        """Run an async job in the background (run_due): a slow one holds up nobody."""

        async def run() -> None:
            cancelled = False
            try:
                await self._run_async(job, timeline)
            except asyncio.CancelledError:
                cancelled = True  # stopping, or the state is being replaced: start nothing
                raise
            finally:
                self.under_way.remove(job.id)
                timeline.foreign.done(job.id)
                self.changed.set()
                if not cancelled:
                    self._kick()

        task = asyncio.get_running_loop().create_task(run(), name=f"job-{job.id}")
        self.under_way.add(job, timeline.key, task)

    def _kick(self) -> None:
        """Start what is due now (released by a background job, waiting for a slot or for a
        timeline's holder); the ticker would, but only in real mode and a second later."""
        if self.any_due() and (self._kicking is None or self._kicking.done()):
            self._kicking = asyncio.get_running_loop().create_task(self._run_kick())

    async def kicked(self) -> None:
        """Wait for a kick under way: what it is starting is then under way (a read of
        deliveries waits for those sends too)."""
        kicking = self._kicking
        if kicking is not None and kicking is not asyncio.current_task():
            await asyncio.gather(kicking, return_exceptions=True)

    async def _run_kick(self) -> None:
        try:
            await self.run_due_everywhere()
        except Exception:  # logged: nobody awaits a kick
            log.exception("running due jobs after a background job failed")

    def _run_atomic(self, tx: Tx, **run: Any) -> Batch:  # Steps.run's arguments
        self._inserted_low = None
        steps = Steps(
            self._atomic,
            self._clocks,
            self.before_step,
            self._save_clock,
            self._inserted_since,
            self._db.others_waiting,
        )
        return steps.run(tx, **run)

    async def _run_async(self, job: Job, timeline: Timeline) -> None:
        with self._clocks.using(timeline.clock):
            try:
                handler = self._async.get(job.kind)
                if handler is None:
                    raise LookupError(f"no handler for job kind {job.kind!r}")
                then = await handler(job)
                end = self._end.unit  # the clock stored only if that changes it
                stored = await self._db.write(lambda tx: end(tx, job, timeline, then))
                self._end.committed(timeline, stored)
            except Exception as exc:
                log.exception("job %s (%s) failed", job.id, job.kind)
                error = exc
                await self._db.write(lambda tx: mark_failed(tx, job, error))
