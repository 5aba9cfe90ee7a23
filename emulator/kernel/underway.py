"""Async jobs under way: in the background (started by ``run_due``, at most ``ASYNC_AT_ONCE``
at a time, so a request never waits on a slow receiver), or awaited by an advance itself
(``inline``). Neither is started again while it runs, and callers can wait for them."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterator

from emulator.kernel.jobs import Job

# Async jobs run_due lets run in the background together. A send holds its slot until its
# attempt's record commits: 16 bounded deliveries to ~500/s while the writer was busy.
ASYNC_AT_ONCE = 64


class UnderWay:
    def __init__(self) -> None:
        self._tasks: dict[int, tuple[asyncio.Task[None], str, Job]] = {}  # by job id
        self._inline: set[int] = set()
        self._sending_for: dict[str | None, int] = {}  # merchant → its advance's sends out

    def ids(self) -> tuple[int, ...]:
        return (*self._tasks, *self._inline)

    def top(self) -> int:
        """The highest id of a job under way (0: none). A job's row goes when it ends, before
        it leaves this table: a new job given its id (SQLite reuses the highest rowid) would
        be taken for it, skipped as under way and left due."""
        return max(self.ids(), default=0)

    def full(self) -> bool:
        """Every background slot is taken."""
        return len(self._tasks) >= ASYNC_AT_ONCE

    def free(self) -> int:
        """Background slots not taken."""
        return max(0, ASYNC_AT_ONCE - len(self._tasks))

    def add(self, job: Job, timeline_key: str, task: asyncio.Task[None]) -> None:
        self._tasks[job.id] = (task, timeline_key, job)

    def remove(self, job_id: int) -> None:
        self._tasks.pop(job_id, None)

    @contextlib.contextmanager
    def inline(self, job: Job) -> Iterator[None]:
        self._inline.add(job.id)
        merchant = job.merchant_id
        self._sending_for[merchant] = self._sending_for.get(merchant, 0) + 1
        try:
            yield
        finally:
            self._inline.discard(job.id)
            if (left := self._sending_for.pop(merchant, 1) - 1) > 0:
                self._sending_for[merchant] = left

    def sending_for(self, merchant_id: str | None) -> bool:
        """Whether an advance awaits a job of this merchant (its receiver may be calling back:
        what it causes is that advance's work, ``kernel.foreign``)."""
        return merchant_id is not None and merchant_id in self._sending_for

    async def wait_for(self, job_ids: set[int]) -> None:
        """Wait for the background jobs among ``job_ids`` (never the caller's own task)."""
        me = asyncio.current_task()
        tasks = [task for job_id, (task, _, _) in self._tasks.items() if job_id in job_ids]
        if tasks := [task for task in tasks if task is not me]:
            await asyncio.gather(*tasks, return_exceptions=True)

    def running(self, kind: str) -> list[tuple[Job, asyncio.Task[None]]]:
        """The background jobs of ``kind`` (not the caller's own task: a receiver in this
        process is called by its send, in the send's task)."""
        me = asyncio.current_task()
        return [
            (job, task)
            for task, _, job in self._tasks.values()
            if job.kind == kind and task is not me
        ]

    async def settle(self, timeline_key: str | None = None) -> None:
        """Wait for the background jobs of one timeline (or all); never for the caller's own
        task, which would wait for itself."""
        me = asyncio.current_task()
        while tasks := [
            task
            for task, key, _ in self._tasks.values()
            if (timeline_key is None or key == timeline_key) and task is not me
        ]:
            await asyncio.gather(*tasks, return_exceptions=True)

    async def cancel(self) -> None:
        """Stop the background jobs; their jobs stay pending."""
        tasks = [task for task, _, _ in self._tasks.values()]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        self._tasks.clear()
