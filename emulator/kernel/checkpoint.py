"""The checkpointer: copies the WAL back into the database file off the writer's path.

The write connection's automatic checkpoint is off; instead, every commit pokes this task,
which runs a passive checkpoint on a connection and thread of its own. In WAL mode the writer,
the readers and a checkpoint proceed at once, so no write (and no request) waits for the copy.
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
from pathlib import Path

import aiosqlite

log = logging.getLogger(__name__)


class Checkpointer:
    """Runs passive checkpoints on its own connection and thread whenever there are new
    commits; never blocks the writer or the readers (WAL lets all three proceed at once)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._conn: aiosqlite.Connection | None = None
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._closing = False
        self.runs = 0

    async def open(self) -> None:
        self._conn = await aiosqlite.connect(
            self.path, isolation_level=None, check_same_thread=False
        )
        await self._conn.execute("PRAGMA synchronous=NORMAL")  # fsync at checkpoints only
        self._closing = False
        self._task = asyncio.get_running_loop().create_task(self._loop(), name="db-checkpoint")

    def poke(self) -> None:
        self._wake.set()

    async def close(self) -> None:
        self._closing = True
        self._wake.set()
        if self._task is not None:
            await self._task
            self._task = None
        if self._conn is not None:
            await self._conn.close()
            self._conn = None

    async def _loop(self) -> None:
        conn = self._conn
        assert conn is not None
        while True:
            await self._wake.wait()
            self._wake.clear()
            if self._closing:
                return
            try:
                # Fetched and closed: a statement left open would hold a read snapshot and
                # keep the WAL from ever starting over.
                async with conn.execute("PRAGMA wal_checkpoint(PASSIVE)") as cursor:
                    await cursor.fetchall()
            except sqlite3.Error:  # busy or locked: the next commit pokes again
                log.debug("checkpoint skipped", exc_info=True)
            self.runs += 1
