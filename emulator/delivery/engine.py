"""The delivery engine: outbox events → routers → messages → HTTP attempts, on the clock.

1. **Dispatch** (``delivery.dispatch``). After a unit of work that emitted an event of a
   watched object type commits, the engine wakes, has the events past its cursor prepared a
   batch at a time (the webhooks' signatures made in a worker thread, off the writer) and
   then, in one unit of work, routed into stored messages; the cursor moves with them. A
   crash before that commit leaves the events past the cursor: the next start dispatches
   them.
2. **Order.** Messages of one object to one target (kind, target id) go out in order: a
   message is ``queued`` (a send job is scheduled) only when no earlier one is still open;
   otherwise it is ``waiting`` until the one ahead is delivered or gives up. A scenario's
   ``reorder`` message neither waits nor is waited for.
3. **Send.** Each attempt is a durable async job (``delivery.send``) on the emulator clock:
   an HTTP POST of the stored bytes and headers with ``rt.sender``, 5-second timeout; any 2xx
   is success. A failure schedules the next attempt by ``outgoing.RETRY_AFTER_SECONDS``;
   after the ninth the message is ``failed``. Every attempt is recorded.

Plugging in a router (the bank callbacks, say)::

    rt.deliveries.register(bank_router, object_types=("collection", "mandate", "payment"))

where ``bank_router(tx, event) -> list[Outgoing]`` returns, for each registered callback
URL, ``Outgoing(url, body, {"Content-Type": "application/json"}, "callback", registration_id,
points.CALLBACK_DELIVERY, subject)``.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import time
from collections.abc import Callable, Iterable
from typing import Protocol

import httpx

from emulator.delivery import endpoints, holds, repo
from emulator.delivery.dispatch import SEND_JOB, Dispatcher, schedule_send
from emulator.delivery.outgoing import TIMEOUT_SECONDS, Prepare, Router, retry_due_us
from emulator.delivery.reads import SendReads
from emulator.delivery.transport import Sender
from emulator.domain.events import Event
from emulator.kernel.clock import TIME_HEADER, from_us, iso
from emulator.kernel.context import Context
from emulator.kernel.foreign import is_own
from emulator.kernel.jobs import Job
from emulator.kernel.loglines import BatchedLines
from emulator.kernel.scheduler import AsyncHandler
from emulator.kernel.storage import Tx

log = logging.getLogger(__name__)

FLUSH_ROUNDS = 20  # a delivered message releases the one behind it: a few rounds drain a chain
HELD_ROUNDS = 2  # another's run of due jobs was starting a send: look again, this often at most
SEND_WAIT_SECONDS = 3.0  # a read of deliveries waits for sends under way (< the 5 s timeout)
DOWN = "the receiver is treated as down by a scenario (fail_attempts)"


class EngineContext(Context, Protocol):
    """What the engine uses of the runtime: the context, and how it sends (once started)."""

    @property
    def sender(self) -> Sender | None: ...


class DeliveryEngine:
    def __init__(self, rt: EngineContext) -> None:
        self._rt = rt
        self._dispatcher = Dispatcher(rt)
        self._reads = SendReads(rt.db)
        self._wake = asyncio.Event()
        self._dispatching = asyncio.Lock()
        self._task: asyncio.Task[None] | None = None
        # Set on the writer by an event of a watched type; the scheduler dispatches it before
        # its clock moves past that instant (``dispatch_now``): its messages are due then.
        self._undispatched = False
        self._prepared = 0  # the last outbox seq the engine's own task has prepared
        # Watched events emitted so far (counted on the writer, in their unit), and that count
        # as of the last committed dispatch that left none behind (-1: not known): equal, there
        # is nothing to dispatch, and a flush or a step of an advance does not look.
        self._emitted = 0
        self._dispatched_at = -1
        # the log's line per attempt, written in batches (its handler prefixes a record)
        self._lines = BatchedLines(log, prefixed=True)
        # Its one job kind, as every slice declares its own (the runtime registers the table).
        self.jobs: dict[str, AsyncHandler] = {SEND_JOB: self.send}

    def register(
        self,
        router: Router,
        object_types: Iterable[str],
        prepare: Prepare | None = None,
        only: str | None = None,
    ) -> None:
        """Route the events of these object types through ``router`` too; ``prepare(tx,
        event)``, if given, is called first on a read snapshot, off the writer, to make ahead
        what the router will need (signatures): a head start only, never required. ``only``:
        an SQL condition on the outbox's columns that every event the router may send
        something for meets (the others are passed over unread)."""
        self._dispatcher.register(router, object_types, prepare, only)

    # -- waking up ---------------------------------------------------------------------------

    def noticed(self, tx: Tx, event: Event, merchant_id: str, event_id: str) -> None:
        """Called by the outbox inside the emitting unit: wake up once it has committed. An
        event emitted during an advance of its merchant's clock by others' work has its
        deliveries go out as without the advance (``kernel.foreign``)."""
        if event.object_type in self._dispatcher.object_types:
            self._undispatched = True
            self._emitted += 1
            tx.after_commit(self._wake.set)
            scheduler = self._rt.scheduler
            own = is_own(scheduler.timeline_of(merchant_id), merchant_id, scheduler.under_way)
            if not own:
                self._dispatcher.foreign_events.add(event_id)

    def dispatch_now(self, tx: Tx) -> bool:
        """On the writer, inside a unit of work: dispatch what has been emitted since the last
        dispatch; whether there was anything. The scheduler calls this before its clock moves
        past an instant, so the events of that instant have their messages, due then. While
        no clock is being advanced, it leaves them to the engine's own task (woken by their
        commit): their messages are due at their event's instant whenever they are made, and
        that task makes their signatures off the writer first."""
        if not self._undispatched:
            return False
        if not any(timeline.advancing for timeline in self._rt.scheduler.timelines.busy()):
            return False
        self._undispatched = False
        if self._nothing_new():  # the engine's own task dispatched them
            return False
        while self._dispatch(tx):
            pass
        return True

    def _dispatch(self, tx: Tx, upto: int | None = None) -> bool:
        """One batch of dispatch (``Dispatcher.dispatch``); once it has committed, notes what
        it left behind: nothing, when it reached the outbox's end."""
        seen = self._emitted
        more = self._dispatcher.dispatch(tx, upto)
        if not more and self._dispatcher.caught_up:
            tx.after_commit(lambda: self._caught_up(seen))
        return more

    def _caught_up(self, seen: int) -> None:
        self._dispatched_at = max(self._dispatched_at, seen)

    def _nothing_new(self) -> bool:
        """No watched event was emitted since the last dispatch that left none behind."""
        return self._emitted == self._dispatched_at

    def wake(self) -> None:
        """Look for undispatched events now (after a start, reset or restore)."""
        self._prepared = 0  # the outbox may have been replaced
        self._dispatched_at = -1
        holds.ask_again(self._rt)  # and the holds with it
        self._wake.set()

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._run(), name="deliveries")
        self._wake.set()  # events a crash left undispatched

    async def stop(self) -> None:
        self._lines.flush()
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    async def _run(self) -> None:
        """Dispatch as events commit, a batch at a time: the next batch is prepared while the
        one before is dispatched (in order), and its first attempts are started without
        waiting for any send (a slow receiver must not hold up dispatch)."""
        dispatching: asyncio.Task[None] | None = None
        try:
            while True:
                await self._wake.wait()
                self._wake.clear()
                try:
                    upto, more = await self._dispatcher.prepare(after=self._prepared)
                except Exception:
                    log.exception("preparing deliveries failed")
                    upto, more = None, False
                self._prepared = upto or 0
                if dispatching is not None:
                    await dispatching
                dispatching = asyncio.get_running_loop().create_task(self._dispatch_upto(upto))
                if more:
                    self._wake.set()
        finally:
            if dispatching is not None:
                dispatching.cancel()

    async def _dispatch_upto(self, upto: int | None) -> None:
        try:
            queued = self._dispatcher.queued
            async with self._dispatching:
                dispatch = functools.partial(self._dispatch, upto=upto)
                while await self._rt.db.write(dispatch, background=True):  # no request waits
                    pass
            if self._dispatcher.queued != queued:  # their first attempts start in the background
                await self._rt.scheduler.run_due_everywhere()
        except Exception:
            log.exception("delivery dispatch failed")

    async def flush(self, *, merchant_id: str | None = None, sink_path: str | None = None) -> None:
        """Dispatch every new event, start what is due now (first attempts included) and wait
        for the sends, and for what they release (the control plane, before it shows
        deliveries or sink messages), so what it shows is never behind: the sends of
        ``merchant_id`` only, or those to ``sink_path`` only, when given (another merchant's
        hanging receiver holds up nobody else's reads)."""
        scheduler = self._rt.scheduler
        others = HELD_ROUNDS  # rounds that others' runs alone may add (a busy server has many)
        for _ in range(FLUSH_ROUNDS):
            if not self._nothing_new():  # else every event committed so far is dispatched
                async with self._dispatching:
                    await self._dispatcher.prepare()  # a batch's signatures made off the writer
                    while await self._rt.db.write(self._dispatch):
                        pass
            await scheduler.kicked()  # it may be starting a send that a delivery released
            started = await scheduler.run_due_everywhere()  # sends start in the background...
            if held := scheduler.timelines.runs(merchant_id):  # ...or by another's run
                await asyncio.wait(held, timeout=SEND_WAIT_SECONDS)
            waited = await self._wait_for_sends(merchant_id, sink_path)  # ...waited for here
            if waited is None:
                return
            if not started and not waited:  # nothing of ours: done, unless another's run was
                if not held or others == 0:
                    return
                others -= 1

    async def _wait_for_sends(self, merchant_id: str | None, sink_path: str | None) -> bool | None:
        """Wait for the sends under way that match; whether there were any, None when they
        were not all done within ``SEND_WAIT_SECONDS``: a receiver that reads the API on
        receipt of a send is answered before its own send's timeout."""
        sends = self._rt.scheduler.under_way.running(SEND_JOB)
        if merchant_id is not None:
            sends = [(job, task) for job, task in sends if job.merchant_id == merchant_id]
        if sink_path is not None and sends:
            ids = [int(job.payload["message"]) for job, _ in sends]
            urls = await self._rt.db.read(lambda tx: repo.urls(tx, ids))
            sends = [
                (job, task)
                for job, task in sends
                if httpx.URL(urls.get(int(job.payload["message"]), "")).path == sink_path
            ]
        if not sends:
            return False
        _, pending = await asyncio.wait([task for _, task in sends], timeout=SEND_WAIT_SECONDS)
        return None if pending else True

    # -- sending -----------------------------------------------------------------------------

    async def send(self, job: Job) -> Callable[[Tx], None] | None:
        """One attempt; its record is the unit the scheduler commits with the job's removal."""
        rt = self._rt
        message_id = int(job.payload["message"])
        # The message and its endpoint's state: rows by key, in one point read (no thread hop)
        # with those of the sends starting with it, or alone when an advance awaits it.
        alone = rt.scheduler.under_way.sending_for(job.merchant_id)
        message, endpoint = await self._reads.read(message_id, alone=alone)
        if message is None or message.state != "queued":
            return None  # delivered meanwhile, or gone with a reset or restore
        attempt = message.attempts + 1
        if job.payload.get("attempt", attempt) != attempt:
            return None  # a stale copy of a job whose attempt is already recorded
        kept = await endpoints.keep_if_off(rt, message, endpoint)  # switched off?
        if kept is not None:
            return kept
        at_us = rt.clock.now_us()  # the scheduler serves the job on its merchant's clock
        status, error, duration_us = await self._post(message, attempt, at_us)
        success = status is not None and 200 <= status < 300
        if self._lines.enabled():
            self._lines.add(
                f"{message.kind} {message.event_type} of {message.object_type}"
                f" {message.object_id} to {message.url}:"
                f" {status if status is not None else error} (attempt {attempt})"
            )
        outcome = (status, error, success, duration_us)
        return lambda tx: self._record(tx, message, attempt, at_us, *outcome)

    async def _post(
        self, message: repo.Message, attempt: int, at_us: int
    ) -> tuple[int | None, str | None, int | None]:
        """(status, None, µs) when an answer came, else (None, why not, µs or None when
        nothing was sent). The attempt carries its instant on the merchant's clock
        (``X-Emulator-Time``; the sink records it). The duration is the wall time of the HTTP
        exchange (a measurement shown to testers, not emulator time)."""
        if attempt <= message.fail_attempts:
            return None, DOWN, None
        sender = self._rt.sender
        if sender is None:
            return None, "the emulator is stopping", None
        headers = {**message.headers, TIME_HEADER: iso(from_us(at_us))}
        started = time.perf_counter_ns()
        try:
            status = await sender.post(message.url, message.body, headers)
        except (httpx.TimeoutException, TimeoutError):
            took = (time.perf_counter_ns() - started) // 1000
            return None, f"timeout: no answer within {TIMEOUT_SECONDS:g} seconds", took
        except Exception as exc:  # refused, reset, a bad URL...: recorded, retried, never lost
            took = (time.perf_counter_ns() - started) // 1000
            why = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
            return None, why, took
        return status, None, (time.perf_counter_ns() - started) // 1000

    def _record(
        self,
        tx: Tx,
        sent: repo.Message,
        attempt: int,
        at_us: int,
        status: int | None,
        error: str | None,
        success: bool,
        duration_us: int | None,
    ) -> None:
        message = sent  # as it was sent (nothing else of it changes while it is queued)
        first_us = sent.first_us if sent.first_us is not None else at_us
        due = None if success else retry_due_us(first_us, attempt)
        state = "queued" if due is not None else "delivered" if success else "failed"
        if not repo.move_on(tx, sent, state, attempt, first_us):
            return  # a reset or restore replaced it while the request was out
        repo.insert_attempt(tx, message, attempt, at_us, status, error, success, duration_us)
        self._rt.notices.after_commit(tx, message.merchant_id, "delivery")  # expectations
        if due is not None:
            due_us = max(due, self._rt.clock.now_us())
            schedule_send(self._rt, tx, message.id, due_us, message.merchant_id, attempt + 1)
            return
        if message.reorder:
            return  # it never held anything back, so it releases nothing either
        behind = repo.next_waiting(tx, message)
        if behind is not None:
            next_id, not_before_us = behind
            repo.set_state(tx, next_id, "queued", 0, None)
            due_us = max(not_before_us, self._rt.clock.now_us())
            schedule_send(self._rt, tx, next_id, due_us, message.merchant_id)
