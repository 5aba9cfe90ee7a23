"""An async job's end stores its timeline's clock only when that changes what is stored: a
run in the background never moves the clock, so 1,000 deliveries need not store it 1,000
times, while a clock moved since is stored with the next job's end, as before."""

from __future__ import annotations

from pathlib import Path

from emulator.kernel.clock import to_us
from emulator.kernel.jobs import Job
from emulator.kernel.storage import Tx
from emulator.runtime.runtime import Runtime
from emulator.sandbox.control.service import load_clock
from tests.conftest import EPOCH, settings_for

T0 = to_us(EPOCH)
SECOND = 1_000_000
# Counts the stores of the server clock (an upsert of its settings row updates it).
COUNT_STORES = (
    "CREATE TABLE clock_stores (at_us INTEGER)",
    "CREATE TRIGGER clock_stored AFTER UPDATE ON settings WHEN new.key = 'clock'"
    " BEGIN INSERT INTO clock_stores VALUES (json_extract(new.value, '$.frozen_at_us')); END",
)


async def test_a_job_end_stores_the_clock_only_when_it_changed(tmp_path: Path) -> None:
    async with Runtime(settings_for(tmp_path, retain_seconds=None)) as rt:

        async def quiet(job: Job) -> None:
            return None

        rt.scheduler.handle_async("test.quiet", quiet)
        await rt.db.write(lambda tx: [tx.execute(sql) for sql in COUNT_STORES])

        async def run_in_the_background(*dues: int) -> list[int]:
            def unit(tx: Tx) -> None:
                for due in dues:
                    rt.scheduler.schedule(tx, "test.quiet", due, {})

            await rt.db.write(unit)
            assert await rt.scheduler.run_due() == len(dues)
            await rt.scheduler.settle()
            stores = await rt.db.read(lambda tx: tx.all("SELECT at_us FROM clock_stores"))
            return [row[0] for row in stores]

        assert await run_in_the_background(T0) == [T0]  # what is stored is not known yet
        assert await run_in_the_background(T0, T0, T0) == [T0]  # the same clock: not again
        await rt.scheduler.advance(T0 + 7 * SECOND)  # no job on the way: nothing stored
        later = T0 + 7 * SECOND
        assert await run_in_the_background(later) == [T0, later]
        stored = await load_clock(rt)
        assert stored is not None and stored.frozen_at_us == later
