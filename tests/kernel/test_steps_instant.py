"""The jobs of one instant share one memo scope (kernel.steps): what they read through
``memo.memoized`` is read once for the instant, and afresh at the next instant."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from emulator.kernel import memo
from emulator.kernel.clock import to_us
from emulator.kernel.jobs import Job
from emulator.kernel.storage import Tx
from emulator.runtime.runtime import Runtime
from tests.conftest import EPOCH, settings_for

T0 = to_us(EPOCH)
SECOND = 1_000_000


@pytest.fixture
async def runtime(tmp_path: Path):
    async with Runtime(settings_for(tmp_path, retain_seconds=None)) as rt:
        yield rt


async def test_the_jobs_of_one_instant_share_their_reads_and_the_next_instant_reads_afresh(
    runtime: Runtime,
):
    reads = itertools.count(1)
    seen: list[tuple[str, int]] = []

    def handler(tx: Tx, job: Job) -> None:
        seen.append((str(job.payload["name"]), memo.memoized("read", lambda: next(reads))))

    runtime.scheduler.handle("test.instant", handler)
    due = [("a", 10), ("b", 10), ("c", 10), ("d", 20), ("e", 20), ("f", 30)]

    def unit(tx: Tx) -> None:
        for name, seconds in due:
            runtime.scheduler.schedule(tx, "test.instant", T0 + seconds * SECOND, {"name": name})

    await runtime.db.write(unit)
    assert await runtime.scheduler.advance(T0 + 60 * SECOND) == 6
    assert seen == [("a", 1), ("b", 1), ("c", 1), ("d", 2), ("e", 2), ("f", 3)]
    assert memo.memoized("read", lambda: 0) == 0  # no scope is left open
