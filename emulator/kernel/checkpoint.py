"""The checkpointer: copies the WAL back into the database file off the writer's path.

The write connection's automatic checkpoint is off; instead, every commit pokes this task,
which runs a passive checkpoint on a connection and thread of its own, at most one per
``PACE_SECONDS``. In WAL mode the writer, the readers and a checkpoint proceed at once, so no
write (and no request) waits for the copy.

A passive checkpoint never starts the WAL over: SQLite writes it from the beginning again only
when a commit finds every frame copied and no reader on them, which under a steady stream of
commits and reads never happens, so the file grew by every byte written (3 GB after 200,000
creates, and a reset then spent most of its time deleting it). Once a passive checkpoint has
copied a WAL of ``RESTART_FRAMES`` frames, the checkpointer asks the writer (``restart``, told
the WAL's frames) to make it start over between two units of work: a RESTART checkpoint on the
write connection, which copies what was committed since and, when no reader is still on the old
frames (it does not wait for them: it tries again later), has the next commit write the WAL from
the start. That checkpoint syncs what it copies on the writer's thread, a stall of every request
queued meanwhile, so the writer does it once it is idle, or at once only when the WAL has grown
to ``RESTART_CEILING`` times as long under a load that never stops (``kernel.storage``). Then
the stall is kept short: the checkpointer first catches up with the writer (``_catch_up``) and
the writer runs the RESTART before the units queued meanwhile, so that it copies and syncs about
one batch's writes, not a pace's; and the file keeps its size (``WAL_LIMIT_BYTES``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import aiosqlite

log = logging.getLogger(__name__)

# At most one checkpoint per this many seconds of real time (I/O housekeeping, not the emulator's
# clock). A checkpoint copies every page changed since the last one once, however many commits
# changed it, and syncs the file: one per commit would sync as often as creates commit. The
# WAL grows by at most this long's writes between two.
PACE_SECONDS = 0.05
RESTART_FRAMES = 16_384  # 64 MiB of 4 KiB pages
# Under a load without a pause the WAL starts over only at this many times RESTART_FRAMES
# (256 MiB): each start over is a stall of the writer of a sync or two, every 11,000 purchases
# created at 23 KB of WAL each, which at concurrency 64 puts 64 requests a time in the tail.
RESTART_CEILING = 4
# Before a start over under load, passive checkpoints run back to back until one finds at most
# this many new frames (1 MiB), at most this many times (``Checkpointer._catch_up``).
CATCH_UP_FRAMES = 256
CATCH_UP_RUNS = 8
# A WAL started over is cut back to this (the writer's journal_size_limit) on its next commit:
# the ceiling's frames (4 KiB pages and their 24-byte headers) and as many again as
# RESTART_FRAMES for what is committed while a start over waits, so that the file keeps its
# size. Cutting 192 MiB off (256 MiB to the 64 it was cut to before) cost that commit
# 130-180 ms here (ext4 freeing the blocks), a stall of every request in flight; writing over
# the blocks the file has costs nothing more than writing new ones.
WAL_LIMIT_BYTES = (RESTART_CEILING + 1) * RESTART_FRAMES * (4096 + 24)


class Checkpointer:
    """Runs passive checkpoints on its own connection and thread whenever there are new
    commits; never blocks the writer or the readers (WAL lets all three proceed at once)."""

    def __init__(
        self, path: Path, restart: Callable[[int], asyncio.Future[Any] | None] | None = None
    ) -> None:
        self.path = path
        self._restart = restart  # asks the writer to start the WAL over (restart_wal)
        self._conn: aiosqlite.Connection | None = None
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._closing = False
        self._closed = asyncio.Event()  # cuts a pause short
        self.runs = 0
        self.catch_ups = 0  # passive checkpoints run back to back before a start over

    async def open(self) -> None:
        self._conn = await aiosqlite.connect(
            self.path, isolation_level=None, check_same_thread=False
        )
        await self._conn.execute("PRAGMA synchronous=NORMAL")  # fsync at checkpoints only
        self._closing = False
        self._closed.clear()
        self._task = asyncio.get_running_loop().create_task(self._loop(), name="db-checkpoint")

    def poke(self) -> None:
        self._wake.set()

    async def close(self) -> None:
        self._closing = True
        self._wake.set()
        self._closed.set()
        if self._task is not None:
            await self._task
            self._task = None
        if self._conn is not None:
            await self._conn.close()
            self._conn = None

    async def _loop(self) -> None:
        while True:
            await self._wake.wait()
            self._wake.clear()
            if self._closing:
                return
            try:
                frames, copied = await self._passive()
                if frames >= RESTART_FRAMES and copied == frames and self._restart is not None:
                    ceiling = frames >= RESTART_FRAMES * RESTART_CEILING
                    if not ceiling or await self._catch_up(frames):
                        restarted = self._restart(frames)
                        if restarted is not None:  # no checkpoint of ours meets the writer's
                            await self._until(restarted)
            except sqlite3.Error:  # busy or locked: the next commit pokes again
                log.debug("checkpoint skipped", exc_info=True)
            self.runs += 1
            # Commits meanwhile set _wake: the next run copies them all.
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._closed.wait(), PACE_SECONDS)

    async def _until(self, future: asyncio.Future[Any]) -> None:
        """Until ``future`` is done, or the checkpointer closes (a restore closes it with the
        writer busy swapping the file in)."""
        closing = asyncio.ensure_future(self._closed.wait())
        await asyncio.wait([future, closing], return_when=asyncio.FIRST_COMPLETED)
        closing.cancel()

    async def _passive(self) -> tuple[int, int]:
        """A passive checkpoint: the WAL's frames and how many of them are copied back."""
        conn = self._conn
        assert conn is not None
        # Fetched and closed: a statement left open would hold a read snapshot and keep the
        # WAL from ever starting over.
        async with conn.execute("PRAGMA wal_checkpoint(PASSIVE)") as cursor:
            (_, frames, copied), *_ = await cursor.fetchall()
        return int(frames), int(copied)

    async def _catch_up(self, frames: int) -> bool:
        """Under a load that never pauses, before the writer's start over: passive checkpoints
        back to back, each copying what was committed during the one before, until one finds
        at most ``CATCH_UP_FRAMES`` new (a few runs: each is shorter than the one before).
        What the writer's RESTART checkpoint then copies and syncs itself, holding every
        request queued behind it, is what came during that last short run, not a pace's
        writes (or during the ``CATCH_UP_RUNS``-th). False: the WAL started over meanwhile,
        or a reader kept a run from copying every frame (the next commit's run tries again)."""
        for _ in range(CATCH_UP_RUNS):
            if self._closing:
                return False
            now, copied = await self._passive()
            self.catch_ups += 1
            if now < frames or copied < now:
                return False
            new, frames = now - frames, now
            if new <= CATCH_UP_FRAMES:
                break
        return True


def restart_wal(conn: sqlite3.Connection) -> bool:
    """On the write connection, outside a transaction: a RESTART checkpoint that waits for no
    reader (busy timeout 0 meanwhile); whether the next commit will start the WAL over."""
    (timeout,) = conn.execute("PRAGMA busy_timeout").fetchone()
    conn.execute("PRAGMA busy_timeout=0")
    try:
        (busy, _, _), *_ = conn.execute("PRAGMA wal_checkpoint(RESTART)").fetchall()
    except sqlite3.OperationalError:  # locked: the checkpointer's own run, say
        return False
    finally:
        conn.execute(f"PRAGMA busy_timeout={timeout}")
    return not busy
