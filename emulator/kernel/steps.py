"""One unit of work of a run of due jobs (``Scheduler``): atomic jobs in (due time, id) order,
each in its own savepoint, until none is due, the next one is async, or the batch is full.

The jobs of one instant (consecutive jobs due at the same time, no step of the clock between
them) share one memo scope (``kernel.memo``): what they all read and none of them changes (a
billing template, the merchant as issuer) is read once for the instant, not once a job."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable

import msgspec

from emulator.kernel import memo
from emulator.kernel.clock import Clocks
from emulator.kernel.jobs import Job, next_jobs, run_careful
from emulator.kernel.storage import Tx
from emulator.kernel.timeline import Timeline

AtomicHandler = Callable[[Tx, Job], None]
SaveClock = Callable[[Tx, Timeline], None]
BeforeStep = Callable[[Tx], bool]

BATCH = 256  # atomic jobs per unit of work while other writes wait: bounds their wait
BATCH_SECONDS = 0.008  # ...and so does this: a batch of slow jobs (billing) ends sooner
# With nobody waiting for the writer, a batch goes on (fewer commits and thread hops), up to:
ALONE_BATCH = 4096
ALONE_SECONDS = 0.1
AHEAD = 64  # due jobs read in one statement (instead of one statement per job)


class RunCarefully(Exception):
    """A job of a batch run without savepoints failed: run the batch again, carefully."""


class Batch(msgspec.Struct):
    ran: int = 0
    more: bool = False  # stopped when full; more atomic jobs may be due
    next_async: Job | None = None  # stopped before a job that needs the event loop
    # run_due: the consecutive async jobs found, for as many background slots as were free
    # (started together once this unit commits, instead of one unit of work each)
    to_start: list[Job] = msgspec.field(default_factory=list)


class _Ahead:
    """The due jobs of a run, read ``AHEAD`` at a time, handed out soonest first. A job the
    run's handlers schedule (``inserted_since``: the earliest due time scheduled since the
    last look) sooner than the last one read, or at all once every due job has been read,
    makes it read again: the jobs come out exactly as one query per job would give them."""

    def __init__(
        self,
        tx: Tx,
        timeline: Timeline,
        target_us: int,
        skip: tuple[str, ...],
        inserted_since: Callable[[], int | None],
    ) -> None:
        self._tx, self._key, self._target_us, self._skip = tx, timeline.key, target_us, skip
        self._timeline = timeline
        self._inserted_since = inserted_since
        self._jobs: list[Job] = []  # soonest last: pop() hands it out
        self._complete = False  # _jobs holds every due job left

    def drop(self) -> None:
        self._jobs, self._complete = [], False

    def next(self, exclude: tuple[int, ...]) -> Job | None:
        low = self._inserted_since()
        if low is not None and low <= self._target_us:
            if self._complete or (self._jobs and low < self._jobs[0].due_us):
                self.drop()
        target_us = self._timeline.limit(self._target_us)  # a hold may stop an advance
        if not self._jobs and not self._complete:
            found = next_jobs(self._tx, self._key, target_us, exclude, self._skip, AHEAD)
            self._complete = len(found) < AHEAD
            self._jobs = found[::-1]
        if self._jobs and self._jobs[-1].due_us > target_us:
            self.drop()
            return None
        return self._jobs.pop() if self._jobs else None


class Steps:
    def __init__(
        self,
        atomic: dict[str, AtomicHandler],
        clocks: Clocks,
        before_step: BeforeStep | None,
        save_clock: SaveClock | None,
        inserted_since: Callable[[], int | None],
        others_waiting: Callable[[], bool] = lambda: True,
    ) -> None:
        self._atomic = atomic
        self._others_waiting = others_waiting
        self._clocks = clocks
        self.before_step = before_step
        self._save_clock = save_clock
        self._inserted_since = inserted_since

    def run(
        self,
        tx: Tx,
        timeline: Timeline,
        target_us: int,
        move_clock: bool,
        exclude: tuple[int, ...] = (),
        skip: tuple[str, ...] = (),
        slots: int = 1,
        careful: bool = False,
    ) -> Batch:
        """On the writer: run due atomic jobs in order until none is left, the next one is
        async, or a batch is full. Jobs a handler schedules are seen at once (same connection).
        ``exclude``: async jobs already under way in the background. Without ``move_clock``,
        up to ``slots`` consecutive async jobs are gathered to start in the background.

        Jobs run without a savepoint each (a savepoint copies every page a job changes into
        the sub-journal): a failing job raises ``RunCarefully``, the unit (alone in its
        transaction) rolls back whole, and the caller runs it again ``careful``: each job in its
        own savepoint, a failing one rolled back alone and kept as failed."""
        batch = Batch()
        clock = timeline.clock
        started = time.perf_counter()
        ahead = _Ahead(tx, timeline, target_us, skip, self._inserted_since)
        instant = _Instant()
        with self._clocks.using(clock), instant:
            while True:
                # an advance leaves out others' jobs scheduled meanwhile (kernel.foreign)
                foreign = timeline.foreign.ids() if move_clock else ()
                job = ahead.next((*exclude, *foreign) if foreign else exclude)
                # before time moves on, what this instant emitted gets its deliveries, due now
                moves = job is None or job.due_us > clock.now_us()
                if moves:
                    instant.end()  # the next instant reads afresh
                if moves and self.before_step is not None:
                    dispatched = self.before_step(tx)
                    # others' jobs added since the advance last ran them (by this dispatch or
                    # by a unit of theirs): run before the clock moves on, once an instant
                    others, now_us = timeline.foreign, clock.now_us()
                    if move_clock and others.added != others.settled and others.waited_at != now_us:
                        others.waited_at = now_us  # once an instant: never a chase
                        batch.more = True  # others' deliveries of this instant go out first
                        break
                    if dispatched:
                        ahead.drop()
                        foreign = timeline.foreign.ids() if move_clock else ()
                        job = ahead.next((*exclude, *foreign) if foreign else exclude)
                if job is None:
                    break
                handler = self._atomic.get(job.kind)
                if handler is None:
                    if move_clock:
                        batch.next_async = job
                        break
                    batch.to_start.append(job)
                    if len(batch.to_start) >= slots:  # atomic jobs may follow
                        batch.more = True
                        break
                    exclude = (*exclude, job.id)
                    continue
                if batch.to_start:  # an atomic job after them: once they have started
                    batch.more = True
                    break
                if move_clock and job.due_us > clock.now_us():
                    clock.set_us(job.due_us)
                instant.begin(job.due_us)
                if careful:
                    run_careful(tx, job, handler)
                else:
                    try:
                        handler(tx, job)
                    except Exception as exc:  # the whole unit rolls back and runs again
                        raise RunCarefully(job.id) from exc
                    tx.execute("DELETE FROM jobs WHERE id = ?", (job.id,))
                batch.ran += 1
                if self._full(batch.ran, time.perf_counter() - started):
                    batch.more = True
                    break
            if batch.ran and move_clock and self._save_clock is not None:
                self._save_clock(tx, timeline)
        return batch

    def _full(self, ran: int, seconds: float) -> bool:
        """Whether a batch that ran ``ran`` jobs in ``seconds`` ends here: at BATCH jobs or
        BATCH_SECONDS when other units wait for the writer, else at ALONE_BATCH/ALONE_SECONDS."""
        if ran < BATCH and seconds <= BATCH_SECONDS:
            return False
        return ran >= ALONE_BATCH or seconds > ALONE_SECONDS or self._others_waiting()


class _Instant(contextlib.AbstractContextManager["_Instant"]):
    """The memo scope of the jobs due at one instant: begun by its first job, ended when the
    clock moves on (before the deliveries of the instant are dispatched) or the batch ends."""

    def __init__(self) -> None:
        self._scope: contextlib.ExitStack | None = None
        self._due_us: int | None = None

    def begin(self, due_us: int) -> None:
        if self._scope is not None and self._due_us == due_us:
            return
        self.end()
        self._scope = contextlib.ExitStack()
        self._scope.enter_context(memo.scope())
        self._due_us = due_us

    def end(self) -> None:
        if self._scope is not None:
            self._scope.close()
        self._scope, self._due_us = None, None

    def __exit__(self, *exc: object) -> None:
        self.end()
