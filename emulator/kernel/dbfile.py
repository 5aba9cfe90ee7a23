"""The database as a file: checking that a file is one of ours, copying one over another."""

from __future__ import annotations

import os
import shutil
import sqlite3
from pathlib import Path
from typing import Any


class NotADatabase(ValueError):
    """A file that is not a whole SQLite database of this emulator."""


def check_database_file(path: Path) -> None:
    """Cheap checks that ``path`` is a whole SQLite database with our schema (not a full
    integrity check, which costs a read of every page): its header, its size against the page
    count the header records, and its schema table."""
    with open(path, "rb") as file:
        header = file.read(100)
    if len(header) < 100 or not header.startswith(b"SQLite format 3\x00"):
        raise NotADatabase("not an SQLite database")
    page_size = int.from_bytes(header[16:18], "big")
    page_size = 65536 if page_size == 1 else page_size
    pages = int.from_bytes(header[28:32], "big")
    counted = header[24:28] == header[92:96]  # the page count is valid for this version
    if counted and pages * page_size != path.stat().st_size:
        raise NotADatabase("the file is cut short (or has extra bytes)")
    try:
        conn = sqlite3.connect(path)
        try:
            conn.execute("SELECT version FROM schema_migrations LIMIT 1").fetchall()
        finally:
            conn.close()
    except sqlite3.DatabaseError as exc:
        raise NotADatabase(f"not a database of this emulator ({exc})") from exc


def copy_over(source: Path, target: Path) -> None:
    """Copy ``source`` into ``target``, overwriting its blocks in place where it exists."""
    copy_range = getattr(os, "copy_file_range", None)  # Linux only
    if copy_range is None or not _copy_in_place(copy_range, source, target):
        shutil.copyfile(source, target)


def _copy_in_place(copy_range: Any, source: Path, target: Path) -> bool:
    """True when every byte was copied; False (nothing to clean up) when the caller should
    copy the plain way: a file system without copy_file_range, a short copy, an error."""
    try:
        src = os.open(source, os.O_RDONLY)
    except OSError:
        return False
    try:
        try:
            dst = os.open(target, os.O_WRONLY | os.O_CREAT, 0o644)  # no O_TRUNC: reuse blocks
        except OSError:
            return False
        try:
            size = os.fstat(src).st_size
            done = 0
            while done < size:
                copied = copy_range(src, dst, size - done, done, done)
                if copied == 0:
                    return False
                done += copied
            os.ftruncate(dst, size)
            return True
        except OSError:
            return False
        finally:
            os.close(dst)
    finally:
        os.close(src)


class DatabaseInUse(RuntimeError):
    """Another emulator process has this database open."""


class FileLock:
    """An exclusive advisory lock on ``<db>.lock`` for as long as the database is open, so two
    emulator processes never share one file (their caches and writer queues would disagree).
    Where ``fcntl`` does not exist (Windows) it locks nothing."""

    def __init__(self, db_path: Path) -> None:
        self.path = db_path.with_name(db_path.name + ".lock")
        self._fd: int | None = None

    def acquire(self) -> None:
        try:
            import fcntl
        except ImportError:  # pragma: no cover - not POSIX
            return
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise DatabaseInUse(
                f"{self.path.with_suffix('')} is in use by another emulator process"
            ) from None
        self._fd = fd

    def release(self) -> None:
        if self._fd is not None:
            os.close(self._fd)  # closing the descriptor releases the lock
            self._fd = None
