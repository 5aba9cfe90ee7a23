"""The scheduler: durable jobs run in due order, with the clock at each job's due time."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

import httpx
import pytest

from emulator.kernel.clock import from_us, to_us
from emulator.kernel.jobs import Job, pending_jobs
from emulator.kernel.steps import ALONE_BATCH, BATCH
from emulator.kernel.storage import Tx
from emulator.runtime.runtime import Runtime
from emulator.sandbox.control import service_snapshots as control_service_snapshots
from emulator.sandbox.control.service import load_clock
from emulator.serving.app import create_app
from tests.conftest import EPOCH, settings_for

T0 = to_us(EPOCH)
SECOND = 1_000_000


@pytest.fixture
async def runtime(tmp_path: Path):
    """Without retention: these tests count and list the jobs they schedule themselves (the
    retention job has its own tests, tests/services/test_retention.py)."""
    async with Runtime(settings_for(tmp_path, retain_seconds=None)) as rt:
        yield rt


def recorder(rt: Runtime, seen: list[tuple[str, int]]) -> None:
    """Register a job kind that records its name and the clock while it runs."""

    def handler(tx: Tx, job: Job) -> None:
        seen.append((str(job.payload["name"]), rt.clock.now_us()))

    rt.scheduler.handle("test.record", handler)


async def schedule(rt: Runtime, *jobs: tuple[str, int], kind: str = "test.record") -> None:
    """Jobs of ``kind`` with payload {"name": ...}, each due at its time, in one unit."""

    def unit(tx: Tx) -> None:
        for name, due in jobs:
            rt.scheduler.schedule(tx, kind, due, {"name": name})

    await rt.db.write(unit)


async def test_advance_runs_due_jobs_in_order_at_their_due_time(runtime: Runtime):
    """Jobs run in due order (ties by creation), each with the clock at its due time."""
    seen: list[tuple[str, int]] = []
    recorder(runtime, seen)
    await schedule(
        runtime, ("c", T0 + 30 * SECOND), ("a", T0 + 10 * SECOND), ("b", T0 + 10 * SECOND)
    )
    ran = await runtime.scheduler.advance(T0 + 60 * SECOND)
    assert ran == 3
    assert seen == [("a", T0 + 10 * SECOND), ("b", T0 + 10 * SECOND), ("c", T0 + 30 * SECOND)]
    assert runtime.clock.now_us() == T0 + 60 * SECOND


async def test_advance_leaves_later_jobs_pending(runtime: Runtime):
    """Only jobs due by the target run; the rest wait."""
    seen: list[tuple[str, int]] = []
    recorder(runtime, seen)
    await schedule(runtime, ("soon", T0 + SECOND), ("later", T0 + 3600 * SECOND))
    assert await runtime.scheduler.advance(T0 + 60 * SECOND) == 1
    left = await runtime.db.read(pending_jobs)
    assert [j.payload["name"] for j in left] == ["later"]


async def test_jobs_scheduled_by_a_job_run_in_the_same_advance(runtime: Runtime):
    """A job that schedules another job inside the window sees it run too, in order."""
    seen: list[str] = []

    def chain(tx: Tx, job: Job) -> None:
        n = int(job.payload["n"])
        seen.append(f"{n}@{(runtime.clock.now_us() - T0) // SECOND}")
        if n < 3:
            runtime.scheduler.schedule(tx, "test.chain", job.due_us + 10 * SECOND, {"n": n + 1})

    runtime.scheduler.handle("test.chain", chain)
    await runtime.db.write(
        lambda tx: runtime.scheduler.schedule(tx, "test.chain", T0 + SECOND, {"n": 1})
    )
    assert await runtime.scheduler.advance(T0 + 100 * SECOND) == 3
    assert seen == ["1@1", "2@11", "3@21"]


async def test_a_failing_job_is_kept_as_failed_and_does_not_block(runtime: Runtime):
    """A handler error marks the job failed (kept for inspection); later jobs still run."""
    seen: list[tuple[str, int]] = []
    recorder(runtime, seen)

    def boom(tx: Tx, job: Job) -> None:
        raise RuntimeError("boom")

    runtime.scheduler.handle("test.boom", boom)
    await runtime.db.write(lambda tx: runtime.scheduler.schedule(tx, "test.boom", T0 + SECOND, {}))
    await schedule(runtime, ("after", T0 + 2 * SECOND))
    assert await runtime.scheduler.advance(T0 + 10 * SECOND) == 2
    assert seen == [("after", T0 + 2 * SECOND)]
    row = await runtime.db.read(lambda tx: tx.one("SELECT state, error FROM jobs"))
    assert tuple(row) == ("failed", "RuntimeError: boom")


async def test_jobs_survive_a_restart(tmp_path: Path):
    """Jobs are rows: a new runtime on the same file runs what the old one scheduled."""
    settings = settings_for(tmp_path)
    seen: list[tuple[str, int]] = []
    async with Runtime(settings) as rt:
        recorder(rt, seen)
        await schedule(rt, ("durable", T0 + 5 * SECOND))
    async with Runtime(settings) as rt:
        recorder(rt, seen)
        assert await rt.scheduler.advance(T0 + 10 * SECOND) == 1
    assert seen == [("durable", T0 + 5 * SECOND)]


async def test_a_request_first_runs_what_is_due(runtime: Runtime):
    """Any interface request runs due jobs before it is answered, so state is never stale."""
    seen: list[tuple[str, int]] = []
    recorder(runtime, seen)
    await schedule(runtime, ("due", T0))
    transport = httpx.ASGITransport(app=create_app(runtime))
    async with httpx.AsyncClient(transport=transport, base_url="http://emulator") as http:
        await http.get("/api/v1/clients/")
    assert seen == [("due", T0)]


async def test_async_handlers_run_with_the_clock_at_due_time(runtime: Runtime):
    """Handlers with I/O are awaited in order too; the job is removed when they return."""
    seen: list[str] = []

    async def handler(job: Job) -> None:
        seen.append(from_us(runtime.clock.now_us()).isoformat())

    runtime.scheduler.handle_async("test.async", handler)
    await runtime.db.write(
        lambda tx: runtime.scheduler.schedule(tx, "test.async", T0 + 60 * SECOND, {})
    )
    assert await runtime.scheduler.advance(T0 + 120 * SECOND) == 1
    assert seen == ["2026-01-05T09:01:00+00:00"]
    assert await runtime.db.read(pending_jobs) == []


async def test_the_clock_only_moves_forward(runtime: Runtime):
    """Advancing to the past is refused."""
    try:
        await runtime.scheduler.advance(T0 - SECOND)
    except ValueError as exc:
        assert "forward" in str(exc)
    else:
        raise AssertionError("advance to the past was accepted")


async def test_the_ticker_runs_jobs_as_they_fall_due_in_real_mode(tmp_path: Path):
    """In real mode nobody has to advance: the ticker runs a job once it is due."""
    import asyncio

    settings = settings_for(tmp_path, clock="real", start=None, ticker_interval=0.05)
    async with Runtime(settings) as rt:
        seen: list[tuple[str, int]] = []
        recorder(rt, seen)
        await schedule(rt, ("tick", rt.clock.now_us() + 50_000))
        for _ in range(100):
            if seen:
                break
            await asyncio.sleep(0.02)
        assert [name for name, _ in seen] == ["tick"]


async def test_many_atomic_and_async_jobs_interleave_in_due_order(runtime: Runtime):
    """Batches of atomic jobs stop at an async job and at BATCH; the order never changes."""
    seen: list[tuple[str, int]] = []
    recorder(runtime, seen)

    async def handler(job: Job) -> None:
        seen.append((str(job.payload["name"]), runtime.clock.now_us()))

    runtime.scheduler.handle_async("test.async-record", handler)
    total = BATCH * 2 + 10
    asyncs = {7, BATCH, BATCH + 1, total - 1}

    def unit(tx: Tx) -> None:
        for n in range(total):
            kind = "test.async-record" if n in asyncs else "test.record"
            runtime.scheduler.schedule(tx, kind, T0 + (n + 1) * SECOND, {"name": str(n)})

    await runtime.db.write(unit)
    assert await runtime.scheduler.advance(T0 + (total + 5) * SECOND) == total
    assert seen == [(str(n), T0 + (n + 1) * SECOND) for n in range(total)]
    assert await runtime.db.read(pending_jobs) == []


def _one_a_second(names: tuple[str, ...]) -> list[tuple[str, int]]:
    """(name, due) pairs one second apart, the first at T0 + 1 s."""
    return [(name, T0 + (n + 1) * SECOND) for n, name in enumerate(names)]


async def test_a_failing_job_rolls_back_alone_inside_a_batch(runtime: Runtime):
    """What a failing handler wrote is undone; the jobs around it in the batch commit."""
    await runtime.db.write(lambda tx: tx.execute("CREATE TABLE marks (name TEXT)"))

    def mark(tx: Tx, job: Job) -> None:
        tx.execute("INSERT INTO marks VALUES (?)", (job.payload["name"],))
        if job.payload["name"] == "bad":
            raise ValueError("half done")

    runtime.scheduler.handle("test.mark", mark)
    await schedule(runtime, *_one_a_second(("first", "bad", "last")), kind="test.mark")
    assert await runtime.scheduler.advance(T0 + 10 * SECOND) == 3
    marks = await runtime.db.read(lambda tx: tx.all("SELECT name FROM marks"))
    assert [m[0] for m in marks] == ["first", "last"]
    failed = await runtime.db.read(lambda tx: tx.all("SELECT state, error FROM jobs"))
    assert [tuple(r) for r in failed] == [("failed", "ValueError: half done")]


async def test_each_batch_stores_the_clock_with_the_jobs_it_ran(runtime: Runtime):
    """A crash in the middle of a long advance cannot leave jobs run ahead of the stored clock:
    every committed batch stored the clock of its last job."""

    class Crash(BaseException):
        pass

    def crash_at(tx: Tx, job: Job) -> None:
        if job.payload["n"] == ALONE_BATCH + 10:
            raise Crash

    runtime.scheduler.handle("test.crash", crash_at)

    def unit(tx: Tx) -> None:
        for n in range(ALONE_BATCH + 20):
            runtime.scheduler.schedule(tx, "test.crash", T0 + (n + 1) * SECOND, {"n": n})

    await runtime.db.write(unit)
    with pytest.raises(Crash):
        await runtime.scheduler.advance(T0 + 2 * ALONE_BATCH * SECOND)
    stored = await load_clock(runtime)
    left = await runtime.db.read(pending_jobs)
    # with nobody else writing, batches end at ALONE_BATCH jobs or ALONE_SECONDS
    first_left = left[0].payload["n"]
    assert 0 < first_left <= ALONE_BATCH + 10
    # job n is due at T0 + (n + 1) s: the clock stored is the last committed job's
    assert stored is not None and stored.frozen_at_us == T0 + first_left * SECOND


async def test_concurrent_advances_add_up(runtime: Runtime):
    """Each 'by' is measured once the clock is the advance's own: ten hours, not one."""
    await asyncio.gather(*(runtime.scheduler.advance(by_us=3600 * SECOND) for _ in range(10)))
    assert runtime.clock.now_us() == T0 + 10 * 3600 * SECOND


async def test_a_failed_jobs_after_commit_hooks_do_not_run(runtime: Runtime):
    """What a rolled-back job registered for after the commit is dropped with it."""
    ran: list[str] = []

    def remember(tx: Tx, job: Job) -> None:
        tx.after_commit(lambda: ran.append(str(job.payload["name"])))
        if job.payload["name"] == "bad":
            raise ValueError("no")

    runtime.scheduler.handle("test.hooks", remember)
    await schedule(runtime, *_one_a_second(("good", "bad", "fine")), kind="test.hooks")
    await runtime.scheduler.advance(T0 + 10 * SECOND)
    assert ran == ["good", "fine"]


async def test_run_due_starts_async_jobs_in_the_background_once(runtime: Runtime):
    """run_due (the request path, the ticker) does not wait for an async job: it runs in the
    background, is not started twice while under way, and settle() waits for it."""
    release = asyncio.Event()
    runs: list[int] = []

    async def slow(job: Job) -> None:
        runs.append(job.id)
        await release.wait()

    runtime.scheduler.handle_async("test.slow", slow)
    await runtime.db.write(lambda tx: runtime.scheduler.schedule(tx, "test.slow", T0, {}))
    assert await runtime.scheduler.run_due() == 1  # started, not finished
    assert await runtime.scheduler.run_due() == 0  # under way: not started again
    assert len(runs) == 1 and len(await runtime.db.read(pending_jobs)) == 1
    release.set()
    await runtime.scheduler.settle()
    assert await runtime.db.read(pending_jobs) == []


async def test_an_advance_waits_for_background_jobs_and_a_reset_cancels_them(runtime: Runtime):
    from emulator.sandbox.control import service as control

    finished: list[str] = []

    async def slow(job: Job) -> None:
        await asyncio.sleep(0.05)
        finished.append(str(job.payload["name"]))

    runtime.scheduler.handle_async("test.slow", slow)
    await schedule(runtime, ("first", T0), kind="test.slow")
    await runtime.scheduler.run_due()
    await runtime.scheduler.advance(by_us=SECOND)
    assert finished == ["first"]  # done before the clock moved

    async def never(job: Job) -> None:
        await asyncio.Event().wait()

    runtime.scheduler.handle_async("test.never", never)
    await schedule(runtime, ("stuck", T0 + SECOND), kind="test.never")
    await runtime.scheduler.run_due()
    await asyncio.wait_for(control.reset(runtime), timeout=2)  # cancelled, not waited for


async def test_a_background_job_starts_what_it_released_on_a_frozen_clock(runtime: Runtime):
    """Nothing ticks on a frozen clock: a background job that schedules another one due now
    gets it started when it finishes, without a request to do it."""
    second_ran = asyncio.Event()

    async def first(job: Job) -> None:
        await runtime.db.write(lambda tx: runtime.scheduler.schedule(tx, "test.second", T0, {}))

    async def second(job: Job) -> None:
        second_ran.set()

    runtime.scheduler.handle_async("test.first", first)
    runtime.scheduler.handle_async("test.second", second)
    await runtime.db.write(lambda tx: runtime.scheduler.schedule(tx, "test.first", T0, {}))
    await runtime.scheduler.run_due()
    await asyncio.wait_for(second_ran.wait(), timeout=2)


async def test_background_slots_are_bounded_and_atomic_jobs_go_on(runtime: Runtime):
    from emulator.kernel.underway import ASYNC_AT_ONCE

    release = asyncio.Event()
    done: list[int] = []
    all_done = asyncio.Event()
    total = ASYNC_AT_ONCE + 10

    async def blocked(job: Job) -> None:
        await release.wait()
        done.append(job.id)
        if len(done) == total:
            all_done.set()

    seen: list[tuple[str, int]] = []
    recorder(runtime, seen)
    runtime.scheduler.handle_async("test.blocked", blocked)
    await schedule(runtime, *[(f"b{i}", T0) for i in range(total)], kind="test.blocked")
    await schedule(runtime, ("atomic", T0))  # due with them, scheduled after them
    await runtime.scheduler.run_due()
    assert len(runtime.scheduler.under_way.ids()) == ASYNC_AT_ONCE
    assert seen == [("atomic", T0)]  # ran past the async jobs waiting for a slot
    release.set()
    await asyncio.wait_for(all_done.wait(), timeout=5)


async def test_a_failed_restore_leaves_cancelled_jobs_due_again(runtime: Runtime):
    from emulator.domain.errors import ControlError

    calls: list[int] = []
    hang = asyncio.Event()

    async def slow(job: Job) -> None:
        calls.append(job.id)
        if len(calls) == 1:
            await hang.wait()  # cancelled by the restore

    runtime.scheduler.handle_async("test.slow", slow)
    await runtime.db.write(lambda tx: runtime.scheduler.schedule(tx, "test.slow", T0, {}))
    await runtime.scheduler.run_due()
    runtime.snapshot_dir.mkdir(parents=True, exist_ok=True)
    (runtime.snapshot_dir / "bad.sqlite").write_bytes(b"not a database at all" * 100)
    with pytest.raises(ControlError) as refused:
        await control_service_snapshots.restore_snapshot(runtime, "bad")
    assert refused.value.code == "invalid_snapshot"
    assert runtime.scheduler.server.has_due()
    await runtime.scheduler.run_due()
    await runtime.scheduler.settle()
    assert len(calls) == 2 and await runtime.db.read(pending_jobs) == []


async def test_jobs_read_ahead_give_way_to_sooner_ones_their_handlers_schedule(runtime: Runtime):
    """Due jobs are read several at a time; a job a handler schedules sooner than the last one
    read still runs in its place in due order, and one scheduled later after them."""
    seen: list[tuple[str, int]] = []
    recorder(runtime, seen)

    def spawner(tx: Tx, job: Job) -> None:
        seen.append((str(job.payload["name"]), runtime.clock.now_us()))
        for name, due in job.payload["spawn"]:
            runtime.scheduler.schedule(tx, "test.record", due, {"name": name})

    runtime.scheduler.handle("test.spawn", spawner)
    many = [(f"j{n:03d}", T0 + (10 + n) * SECOND) for n in range(150)]
    await schedule(runtime, *many)

    def first(tx: Tx) -> None:
        spawn = [
            ["sooner", T0 + 20 * SECOND + 1],
            ["tie", T0 + 12 * SECOND],
            ["last", T0 + 900 * SECOND],
        ]
        runtime.scheduler.schedule(
            tx, "test.spawn", T0 + 11 * SECOND, {"name": "spawn", "spawn": spawn}
        )

    await runtime.db.write(first)
    assert await runtime.scheduler.advance(T0 + 1000 * SECOND) == 154
    expected = [*many, ("sooner", T0 + 20 * SECOND + 1), ("tie", T0 + 12 * SECOND)]
    expected += [("spawn", T0 + 11 * SECOND), ("last", T0 + 900 * SECOND)]
    # (due time, then the order they were scheduled in)
    order = {
        name: n
        for n, (name, _) in enumerate([*many, ("spawn", 0), ("sooner", 0), ("tie", 0), ("last", 0)])
    }
    expected.sort(key=lambda x: (x[1], order[x[0]]))
    assert seen == expected


async def test_a_write_waits_one_short_batch_of_a_long_advance(runtime: Runtime):
    """With nobody else writing, an advance runs long batches; a write queued meanwhile ends
    the batch under way at once and commits long before the advance is over."""
    seen: list[int] = []
    started = threading.Event()

    def slow(tx: Tx, job: Job) -> None:
        seen.append(int(job.payload["n"]))
        started.set()
        tx.execute("SELECT COUNT(*) FROM jobs").fetchone()

    runtime.scheduler.handle("test.slow", slow)
    count = 2 * ALONE_BATCH

    def unit(tx: Tx) -> None:
        for n in range(count):
            runtime.scheduler.schedule(tx, "test.slow", T0 + (n + 1) * SECOND, {"n": n})

    await runtime.db.write(unit)
    advance = asyncio.create_task(runtime.scheduler.advance(T0 + (count + 1) * SECOND))
    await asyncio.to_thread(started.wait, 10)  # the advance's first batch is under way
    ran_before = await runtime.db.write(lambda tx: len(seen))
    assert await advance == count
    assert ran_before < count // 2  # not after the advance, nor after its long batches


async def test_a_failing_job_amid_a_batch_leaves_the_others_done_once(runtime: Runtime):
    """Jobs run without a savepoint each until one fails; then the batch runs again with
    one each: the others' writes are there exactly once, each made at its job's instant, and
    the failing job is kept as failed with nothing of its own written."""
    await runtime.db.write(lambda tx: tx.execute("CREATE TABLE done (name TEXT, at_us INTEGER)"))

    def write(tx: Tx, job: Job) -> None:
        tx.execute("INSERT INTO done VALUES (?, ?)", (job.payload["name"], runtime.clock.now_us()))
        if job.payload["name"] == "bad":
            raise ValueError("no")

    runtime.scheduler.handle("test.write", write)
    names = ("a", "b", "bad", "c", "d")
    await schedule(runtime, *_one_a_second(names), kind="test.write")
    assert await runtime.scheduler.advance(T0 + 10 * SECOND) == len(names)
    rows = await runtime.db.read(lambda tx: tx.all("SELECT name, at_us FROM done ORDER BY rowid"))
    assert [tuple(r) for r in rows] == [
        (name, T0 + (n + 1) * SECOND) for n, name in enumerate(names) if name != "bad"
    ]
    failed = await runtime.db.read(
        lambda tx: tx.all("SELECT payload FROM jobs WHERE state = 'failed'")
    )
    assert len(failed) == 1 and b"bad" in bytes(failed[0][0])
    assert runtime.clock.now_us() == T0 + 10 * SECOND
