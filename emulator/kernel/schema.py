"""Numbered migrations: the SQL files in ``migrations/``, applied in order, each recorded."""

from __future__ import annotations

import logging
import os
import re
import sqlite3
from collections.abc import Callable
from importlib import resources
from pathlib import Path

# A migration that edits table definitions in place (SQLite's procedure for changes that leave
# stored content alone, https://www.sqlite.org/lang_altertable.html) turns this on and off.
# Such an edit only restates a rule in a form SQLite checks faster: where the SQLite build or
# the connection refuses edits of the schema (SQLITE_DBCONFIG_DEFENSIVE, an authorizer), the
# migration is recorded without it, and the rules are checked as they were written.
IN_PLACE = "PRAGMA writable_schema"
REFUSED = re.compile(r"may not be modified|not authorized")

log = logging.getLogger(__name__)


def migration_files() -> list[tuple[int, str, str]]:
    """(version, name, sql) of every numbered migration shipped with the package."""
    found: list[tuple[int, str, str]] = []
    folder = resources.files("emulator.kernel") / "migrations"
    for entry in folder.iterdir():
        name = entry.name
        if name.endswith(".sql") and name[:4].isdigit():
            found.append((int(name[:4]), name, entry.read_text(encoding="utf-8")))
    return sorted(found)


def apply_migrations(conn: sqlite3.Connection) -> list[int]:
    """Apply every migration not yet recorded; each one and its record commit together."""
    conn.execute(
        "CREATE TABLE IF NOT EXISTS schema_migrations "
        "(version INTEGER PRIMARY KEY, name TEXT NOT NULL)"
    )
    done = {row[0] for row in conn.execute("SELECT version FROM schema_migrations")}
    applied: list[int] = []
    for version, name, sql in migration_files():
        if version in done:
            continue
        record = f"INSERT INTO schema_migrations VALUES ({version}, '{name}');"
        try:
            conn.executescript(f"BEGIN IMMEDIATE;\n{sql}\n;{record}")
            if IN_PLACE in sql:  # an edit of sqlite_master: every connection re-reads it
                (schema_version,) = conn.execute("PRAGMA schema_version").fetchone()
                conn.execute(f"PRAGMA schema_version = {schema_version + 1}")
            conn.execute("COMMIT")
        except BaseException as exc:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            if IN_PLACE not in sql:
                raise
            conn.execute("PRAGMA writable_schema = RESET")  # off, the schema as it was re-read
            if not (isinstance(exc, sqlite3.DatabaseError) and REFUSED.search(str(exc))):
                raise
            log.warning("migration %s: the schema may not be edited here (%s)", name, exc)
            conn.executescript(f"BEGIN IMMEDIATE;\n{record}\nCOMMIT;")
        applied.append(version)
    return applied


def build_database(path: Path, fill: Callable[[sqlite3.Connection], None]) -> None:
    """A new database file at ``path`` (replacing any): every migration, then ``fill``'s rows
    in one transaction, flushed to disk. Nobody else has it open: no journal is kept while it
    is built (a failure leaves a file that is never used)."""
    for suffix in ("", "-journal", "-wal", "-shm"):
        path.with_name(path.name + suffix).unlink(missing_ok=True)
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        conn.execute("PRAGMA journal_mode=OFF")
        conn.execute("PRAGMA synchronous=OFF")
        conn.execute("PRAGMA foreign_keys=ON")
        apply_migrations(conn)
        conn.execute("BEGIN IMMEDIATE")
        fill(conn)
        conn.execute("COMMIT")
    finally:
        conn.close()
    with open(path, "rb+") as file:
        os.fsync(file.fileno())
