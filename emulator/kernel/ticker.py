"""The real-mode ticker: runs jobs as they fall due on every real-mode timeline (owned by the
runtime). A timeline held by an advance or a pause is left to its holder, which kicks when it
lets go; async jobs waiting for a background slot wait for one to free."""

from __future__ import annotations

import asyncio
import contextlib
import logging

from emulator.kernel.scheduler import Scheduler

log = logging.getLogger(__name__)


async def tick_forever(scheduler: Scheduler, interval: float = 1.0) -> None:
    while True:
        wait = interval
        for timeline in scheduler.timelines.busy():  # the others have nothing to run
            if timeline.clock.mode != "real" or timeline.advancing or timeline.lock.locked():
                continue
            try:
                await scheduler.run_due(timeline)
            except Exception:
                log.exception("scheduler tick failed")
            if timeline.next_due_us is not None and not scheduler.under_way.full():
                until = (timeline.next_due_us - timeline.clock.now_us()) / 1e6
                wait = max(0.0, min(wait, until))
        scheduler.changed.clear()
        # asyncio.timeout, not wait_for: on 3.11 wait_for can swallow a cancellation that
        # arrives as the event is set, and the ticker would then never stop.
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(wait):
                await scheduler.changed.wait()
