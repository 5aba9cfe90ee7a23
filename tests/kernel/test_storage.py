"""Storage: WAL, migrations, units of work, group commit, isolation of failing units."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
import time
from pathlib import Path

import pytest

from emulator.kernel import checkpoint
from emulator.kernel.dbfile import DatabaseInUse
from emulator.kernel.schema import apply_migrations, migration_files
from emulator.kernel.storage import Database, Tx


@pytest.fixture
async def db(tmp_path: Path):
    database = Database(tmp_path / "db.sqlite3")
    await database.open()
    await database.write(lambda tx: tx.execute("CREATE TABLE t (k TEXT PRIMARY KEY, v INTEGER)"))
    yield database
    await database.close()


async def test_database_is_a_wal_file(db: Database):
    """The state is a real SQLite file in WAL mode."""
    mode = await db.read(lambda tx: tx.one("PRAGMA journal_mode"))
    assert mode is not None and mode[0] == "wal"
    assert db.path.is_file()


async def test_the_writer_does_not_zero_what_it_deletes(db: Database):
    """SQLite's default, whatever the build's (Debian's zeroes deleted content): the prune of
    old events would otherwise write each freed page again."""
    secure = await db.exclusive(lambda c: c.execute("PRAGMA secure_delete").fetchone())
    assert tuple(secure) == (0,)


async def test_only_the_scanning_reader_maps_the_file(db: Database):
    """The map's pages count in the process's RSS once per connection that touched them: the
    reader that scans (lists, exports) maps the file; the writer (its cache) and the point
    reader (a page or two a read) read it."""
    scanning = await db.read(lambda tx: tx.one("PRAGMA mmap_size"))
    point = await db.read_point(lambda tx: tx.one("PRAGMA mmap_size"))
    writer = await db.exclusive(lambda c: c.execute("PRAGMA mmap_size").fetchone())
    assert scanning is not None and scanning[0] >= 256 * 2**20
    assert point is not None and point[0] == 0
    assert writer is not None and writer[0] == 0


async def test_migrations_are_recorded_and_applied_once(tmp_path: Path):
    """Every numbered migration is applied once and recorded with its name."""
    conn = sqlite3.connect(tmp_path / "m.sqlite3")
    first = apply_migrations(conn)
    again = apply_migrations(conn)
    recorded = conn.execute("SELECT version, name FROM schema_migrations").fetchall()
    conn.close()
    assert first == [v for v, _, _ in migration_files()]
    assert again == []
    assert recorded == [(v, n) for v, n, _ in migration_files()]


async def test_a_failing_migration_leaves_nothing_behind(tmp_path: Path, monkeypatch):
    """A migration and its record commit together: a failure applies neither."""
    conn = sqlite3.connect(tmp_path / "m.sqlite3")
    bad = [(1, "0001_bad.sql", "CREATE TABLE a (x);\nTHIS IS NOT SQL;")]
    monkeypatch.setattr("emulator.kernel.schema.migration_files", lambda: bad)
    with pytest.raises(sqlite3.OperationalError):
        apply_migrations(conn)
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    conn.close()
    assert "a" not in tables


async def test_write_commits_before_returning(db: Database, tmp_path: Path):
    """Once write() returns, another connection sees the row (durable before the answer)."""
    await db.write(lambda tx: tx.execute("INSERT INTO t VALUES ('a', 1)"))
    other = sqlite3.connect(db.path)
    assert other.execute("SELECT v FROM t WHERE k = 'a'").fetchone() == (1,)
    other.close()


async def test_a_failing_unit_rolls_back_alone_in_a_shared_batch(db: Database):
    """Concurrent units share a commit, but a failing one rolls back only itself."""

    def good(key: str):
        return lambda tx: tx.execute("INSERT INTO t VALUES (?, 1)", (key,))

    def bad(tx: Tx) -> None:
        tx.execute("INSERT INTO t VALUES ('bad', 1)")
        raise ValueError("domain says no")

    results = await asyncio.gather(
        db.write(good("x")), db.write(bad), db.write(good("y")), return_exceptions=True
    )
    assert isinstance(results[1], ValueError)
    keys = await db.read(lambda tx: [r[0] for r in tx.all("SELECT k FROM t ORDER BY k")])
    assert keys == ["x", "y"]


async def test_a_refusal_before_any_write_leaves_its_batch_as_it_ran(db: Database):
    """A unit that fails having changed no row (a refusal: nearly every failure) has nothing to
    undo: the others of its batch run once each and commit. One that fails after writing has
    the batch run again, each unit in a savepoint (the test above)."""
    runs: list[str] = []

    def good(key: str):
        def unit(tx: Tx) -> None:
            runs.append(key)
            tx.execute("INSERT INTO t VALUES (?, 1)", (key,))

        return unit

    def refuse(tx: Tx) -> None:
        runs.append("refused")
        tx.one("SELECT v FROM t WHERE k = 'nothing'")
        raise ValueError("domain says no")

    results = await asyncio.gather(
        db.write(good("x")), db.write(refuse), db.write(good("y")), return_exceptions=True
    )
    assert isinstance(results[1], ValueError)
    assert runs == ["x", "refused", "y"]  # one batch, no unit run twice
    keys = await db.read(lambda tx: [r[0] for r in tx.all("SELECT k FROM t ORDER BY k")])
    assert keys == ["x", "y"]


async def test_unique_index_decides_races(db: Database):
    """Two concurrent inserts of the same key: exactly one wins."""
    insert = lambda tx: tx.execute("INSERT INTO t VALUES ('same', 1)")  # noqa: E731
    results = await asyncio.gather(db.write(insert), db.write(insert), return_exceptions=True)
    assert sum(isinstance(r, sqlite3.IntegrityError) for r in results) == 1


async def test_after_commit_hooks_run_only_for_committed_units(db: Database):
    """Hooks of a unit run after its commit; a failed unit's hooks never run."""
    seen: list[str] = []

    def ok(tx: Tx) -> None:
        tx.after_commit(lambda: seen.append("ok"))

    def failing(tx: Tx) -> None:
        tx.after_commit(lambda: seen.append("failed"))
        raise RuntimeError

    await asyncio.gather(db.write(ok), db.write(failing), return_exceptions=True)
    assert seen == ["ok"]


async def test_write_later_is_visible_after_barrier(db: Database):
    """A queued write is committed by the time a barrier returns."""
    db.write_later(lambda tx: tx.execute("INSERT INTO t VALUES ('later', 2)"))
    await db.barrier()
    assert await db.read(lambda tx: tx.one("SELECT v FROM t WHERE k = 'later'")[0]) == 2


async def test_read_connection_cannot_write(db: Database):
    """Reads run on a query-only connection."""
    with pytest.raises(sqlite3.OperationalError):
        await db.read(lambda tx: tx.execute("INSERT INTO t VALUES ('r', 1)"))


async def test_point_reads_run_on_the_loop_thread_and_see_each_commit(db: Database):
    """A point read needs no thread: it runs where it is awaited, sees every write committed
    before it, inside one transaction (one snapshot), on a query-only connection."""
    import threading

    for n in range(3):
        await db.write(lambda tx, n=n: tx.execute("INSERT INTO t VALUES (?, ?)", (f"p{n}", n)))
        row = await db.read_point(lambda tx, n=n: tx.one("SELECT v FROM t WHERE k = ?", (f"p{n}",)))
        assert row is not None and row[0] == n
    thread = await db.read_point(lambda tx: threading.current_thread())
    assert thread is threading.current_thread()
    with pytest.raises(sqlite3.OperationalError):
        await db.read_point(lambda tx: tx.execute("INSERT INTO t VALUES ('r', 1)"))
    assert await db.read_point(lambda tx: tx.conn.in_transaction) is True
    assert await db.read_point(lambda tx: tx.one("SELECT count(*) FROM t")[0]) == 3


async def test_exclusive_runs_outside_a_transaction(db: Database):
    """Exclusive work (backup, restore) sees no open transaction."""
    assert await db.exclusive(lambda conn: conn.in_transaction) is False


async def test_checkpoints_run_off_the_writer(db: Database):
    """The writer never checkpoints itself; the checkpointer copies the WAL back soon after."""
    autocheckpoint = await db.exclusive(lambda c: c.execute("PRAGMA wal_autocheckpoint").fetchone())
    assert tuple(autocheckpoint) == (0,)
    for n in range(50):
        await db.write(lambda tx, n=n: tx.execute("INSERT INTO t VALUES (?, ?)", (f"k{n}", n)))
    for _ in range(200):  # a background thread: poll, briefly
        if db._checkpointer.runs > 0:
            break
        await asyncio.sleep(0.01)
    assert db._checkpointer.runs > 0


async def test_a_long_wal_starts_over(db: Database, monkeypatch):
    """Once the WAL holds RESTART_FRAMES frames, all copied back, the writer makes the next
    commit write it from the start (under steady commits and reads it never would by itself)
    as soon as it is idle, and the file is cut back to the writer's journal_size_limit."""
    monkeypatch.setattr("emulator.kernel.checkpoint.RESTART_FRAMES", 64)
    monkeypatch.setattr("emulator.kernel.checkpoint.RESTART_CEILING", 1_000)  # idle only
    monkeypatch.setattr("emulator.kernel.checkpoint.PACE_SECONDS", 0.001)
    limit = await db.exclusive(lambda c: c.execute("PRAGMA journal_size_limit").fetchone())
    assert tuple(limit) == (checkpoint.WAL_LIMIT_BYTES,)

    def insert(tx: Tx, n: int) -> None:
        tx.execute("INSERT INTO t VALUES (?, ?)", (f"row{n}", n))

    for n in range(200):  # a frame or two each
        await db.write(lambda tx, n=n: insert(tx, n))
        await asyncio.sleep(0.002)  # the checkpointer's turn
    for _ in range(200):
        if db.wal_restarts > 0:
            break
        await asyncio.sleep(0.01)
    assert db.wal_restarts > 0
    await db.write(lambda tx: insert(tx, 999))  # starts the WAL over
    frames = await db.exclusive(lambda c: c.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone())
    assert frames[1] < 64 * 2  # frames in the WAL now: not every commit's since the start


async def test_a_busy_writer_starts_the_wal_over_only_past_the_ceiling(db: Database, monkeypatch):
    """While units keep coming (the writer never idle), a long WAL, all copied back, starts
    over only once it holds RESTART_CEILING times RESTART_FRAMES frames: each start over syncs
    the file on the writer's thread, a stall of every request queued behind it."""
    monkeypatch.setattr("emulator.kernel.writer.IDLE_SECONDS", 60.0)  # never idle here
    copied_back = db._checkpointer._restart  # what the checkpointer calls, told the frames
    assert copied_back is not None

    def insert(tx: Tx, n: int) -> None:
        tx.execute("INSERT INTO t VALUES (?, ?)", (f"b{n}", n))

    copied_back(checkpoint.RESTART_FRAMES * checkpoint.RESTART_CEILING - 1)
    for n in range(20):
        await db.write(lambda tx, n=n: insert(tx, n))
    assert db.wal_restarts == 0  # waits for an idle writer
    for n in range(100, 120):  # one that meets a checkpoint of the checkpointer's is tried again
        copied_back(checkpoint.RESTART_FRAMES * checkpoint.RESTART_CEILING)
        await db.write(lambda tx, n=n: insert(tx, n))  # queued after the start over
        if db.wal_restarts:
            break
        await asyncio.sleep(checkpoint.PACE_SECONDS * 2)  # that checkpoint's end
    assert db.wal_restarts == 1


async def test_replace_swaps_in_a_copy_and_keeps_the_source(db: Database, tmp_path: Path):
    """A restore: the database becomes a copy of the file; the file itself stays as it was."""
    await db.write(lambda tx: tx.execute("INSERT INTO t VALUES ('saved', 1)"))
    snapshot = tmp_path / "snap.sqlite3"
    await db.exclusive(
        lambda conn: conn.backup(target := sqlite3.connect(snapshot)) or target.close()
    )
    await db.write(lambda tx: tx.execute("INSERT INTO t VALUES ('later', 2)"))
    for _ in range(2):  # the second time overwrites the kept spare file
        await db.replace(snapshot)
        rows = await db.read(lambda tx: tx.all("SELECT k FROM t ORDER BY k"))
        assert [r[0] for r in rows] == ["saved"]
        await db.write(lambda tx: tx.execute("INSERT INTO t VALUES ('after', 3)"))
        rows = await db.read(lambda tx: tx.all("SELECT k FROM t ORDER BY k"))
        assert [r[0] for r in rows] == ["after", "saved"]
    check = sqlite3.connect(snapshot)
    assert check.execute("SELECT k FROM t").fetchall() == [("saved",)]
    check.close()


async def test_replace_under_concurrent_reads_and_writes(db: Database, tmp_path: Path):
    """Reads and writes racing a restore all succeed: reads wait while the file is swapped,
    writes queued before it commit first (and vanish with it), later ones land after it."""
    snapshot = tmp_path / "snap.sqlite3"
    await db.exclusive(
        lambda conn: conn.backup(target := sqlite3.connect(snapshot)) or target.close()
    )
    await db.write(lambda tx: tx.execute("INSERT INTO t VALUES ('before', 1)"))
    stop = False

    async def keep_reading() -> int:
        count = 0
        while not stop:
            await db.read(lambda tx: tx.all("SELECT count(*) FROM t"))
            count += 1
        return count

    async def keep_reading_points() -> int:
        count = 0
        while not stop:
            await db.read_point(lambda tx: tx.one("SELECT v FROM t WHERE k = 'before'"))
            await asyncio.sleep(0)
            count += 1
        return count

    readers = [asyncio.ensure_future(keep_reading()) for _ in range(4)]
    readers.append(asyncio.ensure_future(keep_reading_points()))
    queued = db.write_later(lambda tx: tx.execute("INSERT INTO t VALUES ('queued', 2)"))
    await db.replace(snapshot)
    await queued
    await db.write(lambda tx: tx.execute("INSERT INTO t VALUES ('after', 3)"))
    stop = True
    assert all(n > 0 for n in await asyncio.gather(*readers))
    rows = await db.read(lambda tx: tx.all("SELECT k FROM t ORDER BY k"))
    assert [r[0] for r in rows] == ["after"]
    assert await db.read_point(lambda tx: tx.one("SELECT v FROM t WHERE k = 'after'")[0]) == 3


async def test_concurrent_restores_each_leave_a_whole_database(db: Database, tmp_path: Path):
    """Two restores at once run one after the other (they share the spare file)."""
    snapshots = []
    for name in ("one", "two"):
        await db.write(lambda tx, name=name: tx.execute("INSERT INTO t VALUES (?, 1)", (name,)))
        path = tmp_path / f"{name}.sqlite3"
        await db.exclusive(
            lambda conn, path=path: conn.backup(target := sqlite3.connect(path)) or target.close()
        )
        snapshots.append(path)
    await asyncio.gather(db.replace(snapshots[1]), db.replace(snapshots[0]))
    rows = await db.read(lambda tx: tx.all("SELECT k FROM t ORDER BY k"))
    assert [r[0] for r in rows] == ["one"]
    integrity = await db.read(lambda tx: tx.one("PRAGMA integrity_check"))
    assert integrity is not None and integrity[0] == "ok"


async def test_one_database_file_is_open_in_one_emulator_at_a_time(db: Database):
    """A second opener of the same file is refused with a clear error; after close it may."""
    second = Database(db.path)
    with pytest.raises(DatabaseInUse, match="in use by another emulator process"):
        await second.open()
    await db.close()
    await second.open()
    await second.close()


async def test_a_cancelled_restore_leaves_the_writer_working(db: Database, tmp_path: Path):
    """The caller of a restore may give up (a timeout, a server shutting down) while the swap
    waits its turn; the writer must go on serving every later unit."""
    snapshot = tmp_path / "snap.sqlite3"
    await db.exclusive(
        lambda conn: conn.backup(target := sqlite3.connect(snapshot)) or target.close()
    )
    running = threading.Event()

    def slow_unit(tx: Tx) -> None:
        running.set()
        time.sleep(0.3)  # the swap queues behind it: the point of the test

    slow = asyncio.ensure_future(db.write(slow_unit))  # ahead of the swap
    await _until(running)
    restore = asyncio.ensure_future(db.replace(snapshot))
    await asyncio.sleep(0.1)  # copied; the swap is queued behind the slow unit
    restore.cancel()
    await slow
    assert await asyncio.wait_for(db.write(lambda tx: 42), 5) == 42


async def test_a_unit_alone_in_its_transaction_fails_without_a_trace(db: Database):
    """A unit that gets a transaction of its own (a run of jobs) and fails leaves nothing of
    what it wrote, nested savepoints included; the next unit runs as usual."""

    def failing(tx: Tx) -> None:
        tx.execute("INSERT INTO t VALUES ('gone', 1)")
        tx.execute("SAVEPOINT job")
        tx.execute("INSERT INTO t VALUES ('also gone', 2)")
        tx.execute("RELEASE job")
        raise ValueError("no")

    with pytest.raises(ValueError):
        await db.write(failing, alone=True)
    await db.write(lambda tx: tx.execute("INSERT INTO t VALUES ('kept', 3)"), alone=True)
    rows = await db.read(lambda tx: tx.all("SELECT k FROM t ORDER BY k"))
    assert [r[0] for r in rows] == ["kept"]


async def test_units_around_a_lone_unit_keep_their_order(db: Database):
    """Queued together, ordinary units share a transaction and a lone one gets its own, in
    the order they were queued: each unit sees what the ones before it wrote."""
    seen: list[int] = []

    def count(tx: Tx) -> None:
        row = tx.one("SELECT COUNT(*) FROM t")
        assert row is not None
        seen.append(int(row[0]))
        tx.execute("INSERT INTO t VALUES (?, 0)", (f"k{len(seen)}",))

    await asyncio.gather(
        db.write(count), db.write(count), db.write(count, alone=True), db.write(count)
    )
    assert seen == [0, 1, 2, 3]


async def test_others_waiting_counts_only_units_someone_waits_for(db: Database):
    """Inside a unit, a queued ordinary write is someone waiting; a background one (the
    journal's) is not."""
    answers: list[bool] = []
    release, running = asyncio.Event(), threading.Event()

    async def blocker() -> None:
        def unit(tx: Tx) -> None:
            running.set()
            while not release.is_set():  # the loop queues the others meanwhile
                time.sleep(0.001)
            answers.append(db.others_waiting())

        await db.write(unit)

    first = asyncio.create_task(blocker())
    await _until(running)
    later = db.write_later(lambda tx: None)
    release.set()
    await first
    await later
    release.clear()
    running.clear()
    second = asyncio.create_task(blocker())
    await _until(running)
    waiting = asyncio.create_task(db.write(lambda tx: None))
    await asyncio.sleep(0.01)
    release.set()
    await asyncio.gather(second, waiting)
    assert answers == [False, True]


async def _until(event: threading.Event, seconds: float = 10.0) -> None:
    """Wait (a bounded time) for a unit on the writer's thread to have started."""
    for _ in range(int(seconds / 0.001)):
        if event.is_set():
            return
        await asyncio.sleep(0.001)
    raise AssertionError(f"not within {seconds} s")
