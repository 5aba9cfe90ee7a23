"""The SQLite database: one file, WAL, one write connection, one read connection.

A unit of work is a plain synchronous function ``fn(tx) -> T`` that runs on the connection's
own thread (aiosqlite's worker), so a whole transaction costs one hop between threads instead
of one per statement. Units never await and never do network I/O.

Writes are *group-committed* by the writer (``kernel.writer``): a caller's future resolves only
after its commit, so a 201 is always durable.

Point reads (a row or two by key) run on the event loop's own thread (``read_point``; see
``emulator.kernel.connections.PointReader``).

Checkpoints (copying the WAL back into the database file) run on a third connection with its
own thread, poked after every commit, so no write waits for one. A restore swaps a copy of the
snapshot file in for the database (``replace``) instead of writing every page through the WAL.

In memory (``:memory:``, ``serve --ephemeral``) there is no file: one connection, the
writer's, serves reads too (between two batches of writes, on its thread), nothing is
checkpointed or locked, and a restore copies the file into it with SQLite's backup. Files made
beside the database (a reset's fresh copy, snapshots) go into a directory of the process's own,
removed on close.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import functools
import os
import shutil
import sqlite3
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import aiosqlite

from emulator.kernel.checkpoint import Checkpointer
from emulator.kernel.connections import PointReader, configure
from emulator.kernel.connections import Tx as Tx  # every unit of work names it from here
from emulator.kernel.dbfile import FileLock, check_database_file, copy_over
from emulator.kernel.schema import apply_migrations
from emulator.kernel.units import Pending
from emulator.kernel.writer import Writer, consume_exception, fail, on_thread

MEMORY = ":memory:"  # the path of a database kept in memory

T = TypeVar("T")


class Database:
    """Owns the write connection, its writer task and the read connection."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.in_memory = str(path) == MEMORY
        self._scratch: Path | None = None  # in memory: where files beside it go
        self._writer_conn: aiosqlite.Connection | None = None
        self._reader_conn: aiosqlite.Connection | None = None
        self._point = PointReader(path)
        self._writer = Writer(lambda: self._writer_conn, self._swap_in, self._committed)
        self._checkpointer = Checkpointer(path, self._writer.restart_wal)
        self._lock = FileLock(path)
        self._reads_open = asyncio.Event()  # cleared while the file is being swapped
        self._reads_in_flight = 0
        self._reads_idle = asyncio.Event()
        self._replacing = asyncio.Lock()  # one restore at a time: they share the spare file
        self.loop: asyncio.AbstractEventLoop | None = None

    # -- life cycle ------------------------------------------------------------------------

    async def open(self) -> None:
        if self.in_memory:
            self._scratch = Path(tempfile.mkdtemp(prefix="payments-emulator-"))
        else:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._lock.acquire()
        try:
            await self._connect()
        except BaseException:
            await self._disconnect()  # a connection's thread left open keeps the process alive
            self._lock.release()
            raise
        self.loop = self._writer.start()

    async def _connect(self) -> None:
        self._writer_conn = await aiosqlite.connect(
            self.path, isolation_level=None, check_same_thread=False, cached_statements=1024
        )
        writer = self._writer_conn
        await on_thread(writer, lambda: configure(writer._conn, readonly=False))
        await on_thread(writer, lambda: apply_migrations(writer._conn))
        if self.in_memory:  # one database, one connection: reads wait between two batches
            self._reader_conn = writer
            self._reads_open.set()
            return
        self._reader_conn = await aiosqlite.connect(
            self.path, isolation_level=None, check_same_thread=False, cached_statements=1024
        )
        reader = self._reader_conn
        await on_thread(reader, lambda: configure(reader._conn, readonly=True, mapped=True))
        self._point.open()
        await self._checkpointer.open()
        self._reads_open.set()

    async def close(self) -> None:
        await self._writer.stop()
        await self._disconnect()
        self._lock.release()
        if self._scratch is not None:
            shutil.rmtree(self._scratch, ignore_errors=True)
            self._scratch = None

    def beside(self, suffix: str) -> Path:
        """A path for a file or directory kept beside the database (``<db><suffix>``); in
        memory, in the process's own directory."""
        if self._scratch is not None:
            return self._scratch / f"memory{suffix}"
        return self.path.with_name(self.path.name + suffix)

    async def _disconnect(self) -> None:
        await self._checkpointer.close()
        self._point.close()
        for conn in {id(c): c for c in (self._reader_conn, self._writer_conn)}.values():
            if conn is not None:
                with contextlib.suppress(sqlite3.Error):
                    await conn.close()
        self._reader_conn = self._writer_conn = None

    async def replace(self, source: Path) -> None:
        """Make the database a copy of ``source``, a consistent SQLite file (a snapshot).

        The copy is made first, beside the database, while requests go on. Then, in the write
        queue's order (writes queued earlier commit first), reads in flight finish, the
        connections close, the copy takes the file's place and they reopen, applying any
        migration the copy lacks. It costs one file copy: nothing goes through the WAL.

        The replaced file is kept as the next restore's copy target (``<db>.restoring``):
        overwriting its blocks is faster than allocating new ones, and deleting a large file
        on ext4 costs as much as copying it.
        """
        if self.in_memory:
            await asyncio.to_thread(check_database_file, source)
            await self.exclusive(functools.partial(_load_into, source))
            return
        async with self._replacing:
            staged = self._spare
            await asyncio.to_thread(copy_over, source, staged)
            await asyncio.to_thread(check_database_file, staged)
            await self._writer.enqueue(lambda tx: None, exclusive=True, swap=staged)

    @property
    def _spare(self) -> Path:
        return self.path.with_name(self.path.name + ".restoring")

    # -- units of work ---------------------------------------------------------------------

    async def write(
        self, unit: Callable[[Tx], T], *, background: bool = False, alone: bool = False
    ) -> T:
        """Run ``unit`` in a write transaction; returns once it has committed. A
        ``background`` unit (no request waits for it) does not cut a run of jobs short; an
        ``alone`` one (a run of jobs) gets a transaction of its own (``kernel.units``)."""
        result: T = await self._writer.enqueue(
            unit, exclusive=False, background=background, alone=alone
        )
        return result

    def write_later(self, unit: Callable[[Tx], Any]) -> asyncio.Future[Any]:
        """Queue ``unit`` without waiting for it (the request journal uses this)."""
        future = self._writer.enqueue(unit, exclusive=False, background=True)
        future.add_done_callback(consume_exception)
        return future

    async def exclusive(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        """Run ``fn`` on the write connection alone, outside any transaction."""
        result: T = await self._writer.enqueue(lambda tx: fn(tx.conn), exclusive=True)
        return result

    async def read(self, unit: Callable[[Tx], T]) -> T:
        """Run ``unit`` against one consistent snapshot on the read connection."""
        if not self._reads_open.is_set():
            await self._reads_open.wait()
        reader = self._reader_conn
        if reader is None:
            raise RuntimeError("database is not open")

        context = contextvars.copy_context()

        def run() -> T:
            conn = reader._conn
            conn.execute("BEGIN")
            try:
                return context.run(unit, Tx(conn))
            finally:
                conn.execute("COMMIT")

        self._reads_in_flight += 1
        try:
            return await on_thread(reader, run)
        finally:
            self._reads_in_flight -= 1
            if self._reads_in_flight == 0:
                self._reads_idle.set()

    def others_waiting(self) -> bool:
        """On the writer, inside a unit: whether units that someone waits for are queued."""
        return self._writer.others_waiting()

    @property
    def wal_restarts(self) -> int:
        """How many times the WAL was started over (``Writer.restart_wal``)."""
        return self._writer.wal_restarts

    async def read_point(self, unit: Callable[[Tx], T]) -> T:
        """``read`` for a unit that reads a row or two by key, run on the event loop's thread
        (``PointReader``): never for lists, scans or exports."""
        if self.in_memory:
            return await self.read(unit)
        if not self._reads_open.is_set():
            await self._reads_open.wait()
        return self._point.read(unit)  # no await inside: a swap cannot come in between

    async def barrier(self) -> None:
        """Wait until every write queued so far has committed."""
        await self._writer.enqueue(lambda tx: None, exclusive=False)

    # -- the writer's calls ----------------------------------------------------------------

    def _committed(self) -> None:
        if not self.in_memory:
            self._checkpointer.poke()

    async def _swap_in(self, pending: Pending) -> None:
        assert pending.swap is not None
        self._reads_open.clear()
        try:
            while self._reads_in_flight:
                self._reads_idle.clear()
                await self._reads_idle.wait()
            await self._disconnect()
            swapped = False
            try:
                self._exchange(pending.swap)
                swapped = True
                await self._connect()
            except Exception:
                await self._disconnect()
                if swapped:  # the copy would not open: the old database goes back
                    self._exchange(self._spare)
                await self._connect()
                raise
        except Exception as exc:
            fail(pending, exc)
        else:
            if not pending.future.done():  # its caller may have given up (cancelled) meanwhile
                pending.future.set_result(None)
        finally:
            self._reads_open.set()

    def _exchange(self, other: Path) -> None:
        """Put ``other`` in the database's place; the database's file ends up as the spare.
        The database path names a whole database at every instant (a hard link keeps the old
        one reachable while ``other`` replaces it in one atomic rename), so a kill anywhere in
        between leaves the old database or the new one, never none."""
        old = self.path.with_name(self.path.name + ".replaced")
        old.unlink(missing_ok=True)  # a leftover of a process killed right here before
        os.link(self.path, old)
        os.replace(other, self.path)
        os.replace(old, self._spare)
        for suffix in ("-wal", "-shm"):  # the old file's; SQLite removes them on close
            self.path.with_name(self.path.name + suffix).unlink(missing_ok=True)


def _load_into(source: Path, conn: sqlite3.Connection) -> None:
    """The database in memory becomes a copy of the file ``source`` (then migrated)."""
    with contextlib.closing(sqlite3.connect(source)) as file:
        file.backup(conn)
    apply_migrations(conn)
