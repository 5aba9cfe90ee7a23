"""One unit of work of a run of due jobs (``Scheduler``): atomic jobs in (due time, id) order,
each in its own savepoint, until none is due, the next one is async, or the batch is full."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

import msgspec

from emulator.kernel.clock import Clocks
from emulator.kernel.jobs import Job, mark_failed, next_job
from emulator.kernel.storage import Tx
from emulator.kernel.timeline import Timeline

log = logging.getLogger("emulator.kernel.scheduler")

AtomicHandler = Callable[[Tx, Job], None]
SaveClock = Callable[[Tx, Timeline], None]
BeforeStep = Callable[[Tx], bool]

BATCH = 256  # atomic jobs per unit of work: bounds how long other writes wait behind one
BATCH_SECONDS = 0.008  # ...and so does this: a batch of slow jobs (billing) ends sooner


class Batch(msgspec.Struct):
    ran: int = 0
    more: bool = False  # stopped when full; more atomic jobs may be due
    next_async: Job | None = None  # stopped before a job that needs the event loop
    # run_due: the consecutive async jobs found, for as many background slots as were free
    # (started together once this unit commits, instead of one unit of work each)
    to_start: list[Job] = msgspec.field(default_factory=list)


class Steps:
    def __init__(
        self,
        atomic: dict[str, AtomicHandler],
        clocks: Clocks,
        before_step: BeforeStep | None,
        save_clock: SaveClock | None,
    ) -> None:
        self._atomic = atomic
        self._clocks = clocks
        self.before_step = before_step
        self._save_clock = save_clock

    def run(
        self,
        tx: Tx,
        timeline: Timeline,
        target_us: int,
        move_clock: bool,
        exclude: tuple[int, ...] = (),
        skip: tuple[str, ...] = (),
        slots: int = 1,
    ) -> Batch:
        """On the writer: run due atomic jobs in order until none is left, the next one is
        async, or a batch is full. Jobs a handler schedules are seen at once (same connection).
        ``exclude``: async jobs already under way in the background. Without ``move_clock``,
        up to ``slots`` consecutive async jobs are gathered to start in the background."""
        batch = Batch()
        clock = timeline.clock
        started = time.perf_counter()
        with self._clocks.using(clock):
            while True:
                job = next_job(tx, timeline.key, target_us, exclude, skip)
                # before time moves on, what this instant emitted gets its deliveries, due now
                moves = job is None or job.due_us > clock.now_us()
                if moves and self.before_step is not None and self.before_step(tx):
                    job = next_job(tx, timeline.key, target_us, exclude, skip)
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
                tx.execute("SAVEPOINT job")
                hooks = len(tx.hooks)
                try:
                    handler(tx, job)
                    tx.execute("DELETE FROM jobs WHERE id = ?", (job.id,))
                except Exception as exc:
                    tx.execute("ROLLBACK TO job")
                    del tx.hooks[hooks:]  # what the rolled-back job meant to do after commit
                    log.exception("job %s (%s) failed", job.id, job.kind)
                    mark_failed(tx, job, exc)
                tx.execute("RELEASE job")
                batch.ran += 1
                if batch.ran == BATCH or time.perf_counter() - started > BATCH_SECONDS:
                    batch.more = True
                    break
            if batch.ran and move_clock and self._save_clock is not None:
                self._save_clock(tx, timeline)
        return batch
