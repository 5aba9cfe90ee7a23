"""The writer: the queue of units of work and the task that commits them, one batch at a time.

Writes are *group-committed*: the writer takes every unit waiting in its queue, opens one
``BEGIN IMMEDIATE`` transaction, runs each unit inside its own ``SAVEPOINT`` (so a failing unit
rolls back alone and its caller gets the exception) and commits once (``kernel.units``). With one
unit waiting, that is exactly one ``BEGIN IMMEDIATE`` per unit of work; under load, many units
share one commit. A caller's future resolves only after its commit, so a 201 is always durable.

Between two batches it also swaps a restored file in (the database's ``swap_in``) and makes the
next commit write the WAL from the start when the checkpointer asks (``restart_wal``).
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import functools
import logging
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar

import aiosqlite

from emulator.kernel import checkpoint
from emulator.kernel.checkpoint import restart_wal
from emulator.kernel.connections import Tx
from emulator.kernel.units import Pending, run, take_batch

log = logging.getLogger(__name__)

# The writer this long without a unit to run is idle: a WAL's start over waits for that.
IDLE_SECONDS = 0.05

T = TypeVar("T")


async def on_thread(conn: aiosqlite.Connection, fn: Callable[[], T]) -> T:
    # aiosqlite exposes no public "run this callable on the connection thread"; its private
    # _execute does exactly that. It is the only private API we use, behind this one function.
    result: T = await conn._execute(fn)  # type: ignore[no-untyped-call]
    return result


class Writer:
    """The write queue and its task (``db-writer``), which ``Database`` owns and starts."""

    def __init__(
        self,
        connection: Callable[[], aiosqlite.Connection | None],
        swap_in: Callable[[Pending], Awaitable[None]],
        committed: Callable[[], None],
    ) -> None:
        self._connection = connection  # the write connection, None while a swap failed
        self._swap_in = swap_in  # runs a unit that carries a file to swap in
        self._committed = committed  # called after every commit (the checkpointer's poke)
        self._queue: list[Pending] = []
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._closing = False
        self._restarting = False  # a restart_wal unit is queued
        self._restart_wanted = False  # ...or waits for the writer to be idle
        self.wal_restarts = 0
        self.loop: asyncio.AbstractEventLoop | None = None

    def start(self) -> asyncio.AbstractEventLoop:
        self._closing = False
        # Kept: asyncio.get_running_loop() costs a getpid() system call on every call.
        self.loop = asyncio.get_running_loop()
        self._task = self.loop.create_task(self._write_loop(), name="db-writer")
        return self.loop

    async def stop(self) -> None:
        """Run what is queued, then end the task."""
        self._closing = True
        self._wake.set()
        if self._task is not None:
            await self._task
            self._task = None

    def restart_wal(self, frames: int) -> asyncio.Future[Any] | None:
        """The checkpointer found the WAL long (``frames``) and copied back: the writer, between
        two units, makes the next commit write it from the start (``checkpoint.restart_wal``),
        once it is idle, or at once (that unit, returned) when it is ``RESTART_CEILING`` times
        as long."""
        if self._restarting or self._task is None or self._closing:
            return None
        if frames < checkpoint.RESTART_FRAMES * checkpoint.RESTART_CEILING:
            self._restart_wanted = True  # the write loop queues it once it is idle
            return None
        return self._queue_restart()

    def _queue_restart(self) -> asyncio.Future[Any]:
        self._restarting, self._restart_wanted = True, False

        def restart(tx: Tx) -> None:
            self.wal_restarts += restart_wal(tx.conn)

        def done(future: asyncio.Future[Any]) -> None:
            self._restarting = False
            consume_exception(future)

        # First in the queue: it copies and syncs what came since the checkpointer's last run.
        future = self.enqueue(restart, exclusive=True, background=True, first=True)
        future.add_done_callback(done)
        return future

    def others_waiting(self) -> bool:
        """On the writer, inside a unit: whether units that someone waits for are queued."""
        return any(not pending.background for pending in self._queue)

    def enqueue(
        self,
        unit: Callable[[Tx], Any],
        *,
        exclusive: bool,
        swap: Path | None = None,
        background: bool = False,
        alone: bool = False,
        first: bool = False,
    ) -> asyncio.Future[Any]:
        if self._task is None or self._closing or self.loop is None:
            raise RuntimeError("database is not open")
        future: asyncio.Future[Any] = self.loop.create_future()
        context = contextvars.copy_context()
        pending = Pending(unit, future, exclusive, swap, background, alone, context)
        self._queue.insert(0 if first else len(self._queue), pending)
        self._wake.set()
        return future

    async def _write_loop(self) -> None:
        while True:
            if self._restart_wanted and not self._wake.is_set():
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._wake.wait(), IDLE_SECONDS)
                if not self._wake.is_set() and self._restart_wanted and not self._restarting:
                    self._queue_restart()  # sets _wake: no unit came meanwhile
            await self._wake.wait()
            self._wake.clear()
            while self._queue:
                batch = take_batch(self._queue)
                if batch[0].swap is not None:
                    await self._swap_in(batch[0])
                    continue
                writer = self._connection()
                if writer is None:  # a swap failed to reopen the file
                    for pending in batch:
                        fail(pending, RuntimeError("database is not open"))
                    continue
                try:
                    results = await on_thread(writer, functools.partial(run, writer._conn, batch))
                except BaseException as exc:  # the commit itself failed: every unit failed
                    for pending in batch:
                        if not pending.future.done():
                            pending.future.set_exception(exc)
                    if isinstance(exc, asyncio.CancelledError):
                        raise
                    continue
                self._committed()
                for pending, (ok, value, hooks) in zip(batch, results, strict=True):
                    for hook in hooks:
                        try:
                            hook()
                        except Exception:  # a hook must never stop the writer
                            log.exception("after-commit hook failed")
                    if pending.future.done():
                        continue
                    if ok:
                        pending.future.set_result(value)
                    else:
                        pending.future.set_exception(value)
            if self._closing and not self._queue:
                return


def fail(pending: Pending, exc: BaseException) -> None:
    if not pending.future.done():  # its caller may have given up (cancelled) meanwhile
        pending.future.set_exception(exc)


def consume_exception(future: asyncio.Future[Any]) -> None:
    if not future.cancelled():
        future.exception()
