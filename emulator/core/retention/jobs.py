"""Bounded disk: a job on the server clock prunes, every half window of emulator time (at
least once a day, at most once a second), the delivered outbox events, finished deliveries
with their attempts, and sink messages older than the retention window (``--retain``,
default 7 days), so nothing outlives one and a half windows. Rows of a merchant
with its own clock age on that clock. The job reschedules itself; a start, reset or restore
makes sure exactly one is pending (none with ``--retain off``). A jump of the clock runs it
once, at its end."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from emulator.core.retention import repo
from emulator.kernel.jobs import Job
from emulator.kernel.storage import Tx
from emulator.kernel.timeline import SERVER

if TYPE_CHECKING:
    from emulator.kernel.context import Context, JobHandler

log = logging.getLogger(__name__)

PRUNE_JOB = "retention.prune"
DAY_US = 86_400 * 1_000_000
MIN_EVERY_US = 1_000_000  # a window of a second or two: still not a busy loop
CHUNK = 2_000  # rows of each table per step


def every_us(window_s: int) -> int:
    """How often the job runs: every half window, daily for windows of two days or more, at
    most once a second. A row is gone at most half a window after it left the window."""
    return max(MIN_EVERY_US, min(DAY_US, window_s * 1_000_000 // 2))


def prune_now(rt: Context, tx: Tx, now_us: int, window_us: int) -> dict[str, int]:
    """Prune up to CHUNK rows of each table older than the window: on the server clock, and
    for each merchant with its own clock, on that clock."""
    own = {k: t.clock.now_us() for k, t in rt.scheduler.timelines.items() if k != SERVER}
    counts = repo.prune(tx, now_us - window_us, list(own), CHUNK)
    for merchant_id, own_now in own.items():
        for table, n in repo.prune(tx, own_now - window_us, [], CHUNK, merchant_id).items():
            counts[table] = counts.get(table, 0) + n
    return counts


def prune_due(rt: Context, tx: Tx, job: Job) -> None:
    """One chunk; the next one at the same instant while a table had a whole chunk to prune
    (each chunk its own step: the writer and the WAL see small deletes), else the next period.
    Overdue by a period or more (a jump of the clock: an advance runs it at its end), it runs
    once, at the new now, and the next period counts from there: not once per period passed."""
    window = rt.settings.retain_seconds
    if window is None:
        return  # retention was turned off since the job was scheduled: it stops here
    now_us, every = rt.clock.server.now_us(), every_us(window)
    at_us = job.due_us if job.due_us + every > now_us else now_us
    counts = prune_now(rt, tx, at_us, window * 1_000_000)
    if any(counts.values()):
        log.info("retention: pruned %s", ", ".join(f"{n} {t}" for t, n in counts.items() if n))
    more = any(n >= CHUNK for t, n in counts.items() if t != "delivery_attempts")
    due = at_us if more else at_us + every
    rt.scheduler.schedule(tx, PRUNE_JOB, due, {"window_s": window})


JOBS: dict[str, JobHandler] = {PRUNE_JOB: prune_due}
HOUSEKEEPING = (PRUNE_JOB,)  # "advance to the next job" passes it by


async def ensure_job(rt: Context) -> None:
    """Exactly one pending prune job when retention is on (kept when due within one period,
    so restarts do not postpone it), none when off."""
    window = rt.settings.retain_seconds
    now_us = rt.clock.server.now_us()

    def unit(tx: Tx) -> None:
        pending = sorted(repo.pending_prunes(tx, PRUNE_JOB), key=lambda p: p[1])
        keep = window is not None and bool(pending)
        keep = keep and window is not None and pending[0][1] <= now_us + every_us(window)
        repo.drop_jobs(tx, [job_id for job_id, _ in pending[1 if keep else 0 :]])
        if window is not None and not keep:
            rt.scheduler.schedule(tx, PRUNE_JOB, now_us + every_us(window), {"window_s": window})

    await rt.db.write(unit)
