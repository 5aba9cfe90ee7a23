"""Durable jobs on the emulator clock.

A job is a row: kind, due time, JSON payload. Domains schedule jobs inside their own unit of
work (``schedule``), so a state change and the work it sets up for later commit together.

``advance`` runs every job that falls due, one at a time in (due time, id) order, with the
clock set to each job's due time while it runs, then leaves the clock at the target. Its cost
grows with the number of jobs, not with the span. Consecutive atomic jobs run in one unit of
work (each in its own savepoint), up to ``BATCH`` at a time, so a long advance costs one
commit per batch rather than a read and a commit per job. ``run_due`` does the same up to "now"; the
ticker calls it in real mode and every request calls it first, so observed state is never stale.

Handlers:

- *atomic* handlers are synchronous ``fn(tx, job)``; the job's removal commits in the same
  transaction as whatever the handler changed.
- *async* handlers ``await fn(job)`` for work with I/O (deliveries); the job is removed when
  the handler returns. An exception marks the job failed (kept for inspection), never lost.
  ``advance`` awaits them in order, at their due times, like any job. ``run_due`` (every API
  request, the ticker) starts them in the background instead, at most ``ASYNC_AT_ONCE`` at a
  time (atomic jobs keep running past the ones that must wait for a slot), so a request never
  waits on a slow receiver; when one finishes, what has fallen due meanwhile (the message it
  released, a waiting job) is started at once, frozen clock or not; a job under way is not
  started twice, and an advance, a freeze or a resume first waits for the ones under way
  (a reset or restore cancels them: the job stays pending in the state that is replaced anyway).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import msgspec

from emulator.kernel.clock import CLOCK_RANGE, Clock, in_clock_range
from emulator.kernel.storage import Database, Tx

log = logging.getLogger(__name__)


class Job(msgspec.Struct, frozen=True):
    id: int
    kind: str
    due_us: int
    merchant_id: str | None
    payload: dict[str, Any]


AtomicHandler = Callable[[Tx, Job], None]
AsyncHandler = Callable[[Job], Awaitable[None]]

_decode_payload = msgspec.json.Decoder(dict[str, Any])

BATCH = 256  # atomic jobs per unit of work: bounds how long other writes wait behind one
ASYNC_AT_ONCE = 16  # async jobs run_due lets run in the background together


class _Batch(msgspec.Struct):
    ran: int = 0
    more: bool = False  # stopped at BATCH; more atomic jobs may be due
    next_async: Job | None = None  # stopped before a job that needs the event loop


class ClockBackwards(ValueError):
    """An advance to an instant before now: the clock only moves forward."""


class ClockOutOfRange(ValueError):
    """An advance past the clock's range (``kernel.clock.in_clock_range``)."""


class Scheduler:
    def __init__(
        self, db: Database, clock: Clock, save_clock: Callable[[Tx], None] | None = None
    ) -> None:
        self._db = db
        self._clock = clock
        # Writes the clock's state in a unit of work: each batch of an advance saves the clock
        # with the jobs it ran, so a crash never leaves jobs run ahead of a stored clock.
        self._save_clock = save_clock
        self._atomic: dict[str, AtomicHandler] = {}
        self._async: dict[str, AsyncHandler] = {}
        self._lock = asyncio.Lock()
        self._next_due_us: int | None = None
        self._changed = asyncio.Event()
        self._running: dict[int, asyncio.Task[None]] = {}  # async jobs under way, by id
        self._noted = 0  # jobs noted as scheduled, so a stale re-read cannot hide one
        self._kicking: asyncio.Task[None] | None = None

    # -- registry ----------------------------------------------------------------------------

    def handle(self, kind: str, handler: AtomicHandler) -> None:
        self._atomic[kind] = handler

    def handle_async(self, kind: str, handler: AsyncHandler) -> None:
        self._async[kind] = handler

    # -- scheduling (inside a unit of work) ----------------------------------------------------

    def schedule(
        self,
        tx: Tx,
        kind: str,
        due_us: int,
        payload: dict[str, Any],
        merchant_id: str | None = None,
    ) -> int:
        if kind not in self._atomic and kind not in self._async:
            raise KeyError(f"no handler for job kind {kind!r}")
        cursor = tx.execute(
            "INSERT INTO jobs (merchant_id, kind, due_us, payload) VALUES (?, ?, ?, ?)",
            (merchant_id, kind, due_us, msgspec.json.encode(payload)),
        )
        tx.after_commit(lambda: self._note_due(due_us))
        job_id = cursor.lastrowid
        assert job_id is not None
        return job_id

    def _note_due(self, due_us: int) -> None:
        self._noted += 1
        if self._next_due_us is None or due_us < self._next_due_us:
            self._next_due_us = due_us
        self._changed.set()

    async def _reread_due(self) -> None:
        """Re-read the earliest due time. A job noted while the read was out (background jobs
        schedule while others run) is kept: the read may have missed it."""
        noted = self._noted
        earliest = await self._db.read(
            functools.partial(_earliest_due, exclude=tuple(self._running))
        )
        if self._noted != noted and self._next_due_us is not None:
            earliest = self._next_due_us if earliest is None else min(earliest, self._next_due_us)
        self._next_due_us = earliest

    async def refresh(self) -> None:
        """Re-read the earliest due time (after a start, reset or restore)."""
        await self._reread_due()
        self._changed.set()

    # -- running -------------------------------------------------------------------------------

    def has_due(self) -> bool:
        return self._next_due_us is not None and self._next_due_us <= self._clock.now_us()

    async def run_due(self) -> int:
        """Run what is due now; cheap when nothing is."""
        if not self.has_due():
            return 0
        async with self._lock:
            return await self._run_until(self._clock.now_us(), move_clock=False)

    async def advance(self, target_us: int | None = None, *, by_us: int | None = None) -> int:
        """Move the clock to ``target_us`` (or ``by_us`` from now, measured once the clock is
        ours, so concurrent advances add up), running due jobs in order on the way."""
        async with self._lock:
            now_us = self._clock.now_us()
            if by_us is not None:
                target_us = now_us + by_us
            if target_us is None or target_us < now_us:
                raise ClockBackwards("the clock only moves forward")
            if not in_clock_range(target_us):  # checked here: concurrent advances add up
                raise ClockOutOfRange(f"the clock stays {CLOCK_RANGE}")
            await self.settle()  # background work finishes at its own time, before time moves
            count = await self._run_until(target_us, move_clock=True)
            self._clock.set_us(target_us)
            return count

    @contextlib.asynccontextmanager
    async def paused(self, *, cancel_running: bool = False) -> AsyncIterator[None]:
        """No job runs and no advance moves the clock meanwhile: one under way finishes first,
        and background jobs finish (or, when the whole state is about to be replaced, are
        cancelled: ``cancel_running``)."""
        async with self._lock:
            if cancel_running:
                await self.cancel_running()
            else:
                await self.settle()
            try:
                yield
            finally:
                if cancel_running:  # cancelled jobs are due again (a failed restore keeps them)
                    await self._reread_due()

    async def settle(self) -> None:
        """Wait for the background async jobs under way."""
        while self._running:
            await asyncio.gather(*list(self._running.values()), return_exceptions=True)

    async def cancel_running(self) -> None:
        """Stop the background async jobs under way; their jobs stay pending."""
        if self._kicking is not None:
            self._kicking.cancel()
        tasks = list(self._running.values())
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        self._running.clear()

    async def _run_until(self, target_us: int, *, move_clock: bool) -> int:
        count = 0
        while True:
            batch = await self._db.write(
                functools.partial(
                    self._run_atomic,
                    target_us=target_us,
                    move_clock=move_clock,
                    exclude=tuple(self._running),
                    # background slots all taken: atomic jobs go on, async ones wait for a slot
                    skip=tuple(self._async) if len(self._running) >= ASYNC_AT_ONCE else (),
                )
            )
            count += batch.ran
            job = batch.next_async
            if job is not None:
                if move_clock:
                    if job.due_us > self._clock.now_us():
                        self._clock.set_us(job.due_us)
                    await self._run_async(job)
                else:
                    self._start(job)
                count += 1
            elif not batch.more:
                await self._reread_due()
                return count

    def _start(self, job: Job) -> None:
        """Run an async job in the background (run_due): a slow one holds up nobody."""

        async def run() -> None:
            cancelled = False
            try:
                await self._run_async(job)
            except asyncio.CancelledError:
                cancelled = True  # stopping, or the state is being replaced: start nothing
                raise
            finally:
                self._running.pop(job.id, None)
                self._changed.set()
                if not cancelled:
                    self._kick()

        self._running[job.id] = asyncio.get_running_loop().create_task(run(), name=f"job-{job.id}")

    def _kick(self) -> None:
        """After a background job: start what is due now (what it released, what waited for a
        slot). The ticker would, but only in real mode and a second later."""
        if self.has_due() and (self._kicking is None or self._kicking.done()):
            self._kicking = asyncio.get_running_loop().create_task(self._run_kick())

    async def _run_kick(self) -> None:
        try:
            await self.run_due()
        except Exception:
            log.exception("running due jobs after a background job failed")

    def _run_atomic(
        self,
        tx: Tx,
        target_us: int,
        move_clock: bool,
        exclude: tuple[int, ...] = (),
        skip: tuple[str, ...] = (),
    ) -> _Batch:
        """On the writer: run due atomic jobs in order until none is left, the next one is
        async, or BATCH have run. Jobs a handler schedules are seen at once (same connection).
        ``exclude``: async jobs already under way in the background."""
        batch = _Batch()
        while True:
            job = _next_job(tx, target_us, exclude, skip)
            if job is None:
                break
            handler = self._atomic.get(job.kind)
            if handler is None:
                batch.next_async = job
                break
            if move_clock and job.due_us > self._clock.now_us():
                self._clock.set_us(job.due_us)
            tx.execute("SAVEPOINT job")
            hooks = len(tx.hooks)
            try:
                handler(tx, job)
                tx.execute("DELETE FROM jobs WHERE id = ?", (job.id,))
            except Exception as exc:
                tx.execute("ROLLBACK TO job")
                del tx.hooks[hooks:]  # what the rolled-back job meant to do after commit
                log.exception("job %s (%s) failed", job.id, job.kind)
                _mark_failed(tx, job, exc)
            tx.execute("RELEASE job")
            batch.ran += 1
            if batch.ran == BATCH:
                batch.more = True
                break
        if batch.ran and move_clock and self._save_clock is not None:
            self._save_clock(tx)
        return batch

    async def _run_async(self, job: Job) -> None:
        try:
            handler = self._async.get(job.kind)
            if handler is None:
                raise LookupError(f"no handler for job kind {job.kind!r}")
            await handler(job)
            await self._db.write(lambda tx: self._finish(tx, job))
        except Exception as exc:
            log.exception("job %s (%s) failed", job.id, job.kind)
            error = exc
            await self._db.write(lambda tx: _mark_failed(tx, job, error))

    def _finish(self, tx: Tx, job: Job) -> None:
        tx.execute("DELETE FROM jobs WHERE id = ?", (job.id,))
        if self._save_clock is not None:
            self._save_clock(tx)

    async def tick_forever(self, interval: float = 1.0) -> None:
        """The real-mode ticker: run jobs as they fall due (owned by the runtime)."""
        while True:
            try:
                if self._clock.mode == "real":
                    await self.run_due()
            except Exception:
                log.exception("scheduler tick failed")
            wait = interval
            if self._next_due_us is not None and self._clock.mode == "real":
                wait = max(0.0, min(interval, (self._next_due_us - self._clock.now_us()) / 1e6))
            self._changed.clear()
            # asyncio.timeout, not wait_for: on 3.11 wait_for can swallow a cancellation that
            # arrives as the event is set, and the ticker would then never stop.
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(wait):
                    await self._changed.wait()


def _mark_failed(tx: Tx, job: Job, exc: Exception) -> None:
    """A failed job is kept, with its error, for inspection; it never runs again by itself."""
    message = f"{type(exc).__name__}: {exc}"
    tx.execute("UPDATE jobs SET state = 'failed', error = ? WHERE id = ?", (message, job.id))


def _row_to_job(row: Any) -> Job:
    return Job(
        id=row["id"],
        kind=row["kind"],
        due_us=row["due_us"],
        merchant_id=row["merchant_id"],
        payload=_decode_payload.decode(row["payload"]),
    )


_NOT_RUNNING = " AND id NOT IN (SELECT value FROM json_each(?))"


def _next_job(
    tx: Tx, target_us: int, exclude: tuple[int, ...] = (), skip: tuple[str, ...] = ()
) -> Job | None:
    """The next due job, leaving out those under way (``exclude``) and kinds that must wait
    (``skip``)."""
    sql = "SELECT id, kind, due_us, merchant_id, payload FROM jobs WHERE state = 'pending'"
    params: list[Any] = []
    if exclude:
        sql += _NOT_RUNNING
        params.append(msgspec.json.encode(exclude).decode())
    if skip:
        sql += " AND kind NOT IN (SELECT value FROM json_each(?))"
        params.append(msgspec.json.encode(skip).decode())
    row = tx.one(sql + " AND due_us <= ? ORDER BY due_us, id LIMIT 1", (*params, target_us))
    return _row_to_job(row) if row is not None else None


def _earliest_due(tx: Tx, exclude: tuple[int, ...] = ()) -> int | None:
    if exclude:
        sql = "SELECT MIN(due_us) FROM jobs WHERE state = 'pending'" + _NOT_RUNNING
        row = tx.one(sql, (msgspec.json.encode(exclude).decode(),))
    else:
        row = tx.one("SELECT MIN(due_us) FROM jobs WHERE state = 'pending'")
    return row[0] if row is not None else None


def pending_jobs(tx: Tx, merchant_id: str | None = None) -> list[Job]:
    if merchant_id is None:
        rows = tx.all(
            "SELECT id, kind, due_us, merchant_id, payload FROM jobs "
            "WHERE state = 'pending' ORDER BY due_us, id"
        )
    else:
        rows = tx.all(
            "SELECT id, kind, due_us, merchant_id, payload FROM jobs "
            "WHERE state = 'pending' AND merchant_id = ? ORDER BY due_us, id",
            (merchant_id,),
        )
    return [_row_to_job(row) for row in rows]
