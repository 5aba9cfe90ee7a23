"""Migration 0023 rewrites the state rules of delivery messages and held items as comparisons,
in place: every message, attempt, kept message and held item stored before is still there (no
copy of the parent table deleted its children), a state outside the rule is still refused, a
message's deletion still takes its attempts, and a connection open meanwhile sees the new
rules too."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from emulator.kernel.schema import apply_migrations, migration_files

MESSAGE = (
    "INSERT INTO delivery_messages (id, event_id, event_seq, event_type, object_type, object_id,"
    " kind, target_id, url, headers, body, state, not_before_us, created_us)"
    " VALUES (?, 'ev', 1, 'payout.success', 'payout', ?, 'webhook', 'w1', 'http://x/', '{}',"
    " x'7b7d', ?, 0, 0)"
)
ATTEMPT = (
    "INSERT INTO delivery_attempts (message_id, object_id, attempt, at_us, status, success)"
    " VALUES (?, ?, ?, 0, 500, 0)"
)
HELD = (
    "INSERT INTO held_items (hold_id, merchant_id, state, held_us, message_id)"
    " VALUES ('h1', 'm', ?, 0, ?)"
)
MESSAGE_STATES = ("waiting", "queued", "delivered", "failed")
HELD_STATES = ("held", "released", "dropped", "duplicated", "delayed")
TABLES = ("delivery_messages", "delivery_attempts", "delivery_kept", "held_items")


def older_database(path: Path, before: int) -> sqlite3.Connection:
    """A database as the build before migration ``before`` left it."""
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA foreign_keys=ON")
    conn.execute("PRAGMA synchronous=OFF")  # a commit per migration, none of them flushed
    conn.execute("CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL)")
    for version, name, sql in migration_files():
        if version < before:
            conn.executescript(
                f"BEGIN;\n{sql}\n;INSERT INTO schema_migrations VALUES ({version}, '{name}');COMMIT;"
            )
    return conn


def builds_a_list(conn: sqlite3.Connection, statement: str, args: tuple[object, ...]) -> bool:
    """Whether SQLite builds a temporary table (an IN list's) to run ``statement``."""
    return any(row[1] == "OpenEphemeral" for row in conn.execute(f"EXPLAIN {statement}", args))


def test_rows_stored_before_the_migration_are_kept(tmp_path: Path) -> None:
    conn = older_database(tmp_path / "old.sqlite3", 23)
    conn.execute("INSERT INTO merchants (id, name, created_us, data) VALUES ('m', 'M', 0, x'7b7d')")
    conn.execute(
        "INSERT INTO holds (id, merchant_id, kind, match, count, remaining, on_timeout,"
        " created_us) VALUES ('h1', 'm', 'delivery', '{}', 9, 4, 'release', 0)"
    )
    for number, state in enumerate(MESSAGE_STATES, start=1):
        conn.execute(MESSAGE, (number, f"p{number}", state))
        for attempt in range(1, number + 1):
            conn.execute(ATTEMPT, (number, f"p{number}", attempt))
    conn.execute(
        "INSERT INTO delivery_kept (message_id, kind, target_id, at_us, outcome)"
        " VALUES (2, 'webhook', 'w1', 0, 'held')"
    )
    for number, state in enumerate(HELD_STATES, start=1):
        conn.execute(HELD, (state, number % 4 + 1))
    before = {t: conn.execute(f"SELECT * FROM {t} ORDER BY 1").fetchall() for t in TABLES}
    update = "UPDATE delivery_messages SET state = ? WHERE id = ?"
    assert builds_a_list(conn, update, ("failed", 1))  # the cost the migration takes away
    other = sqlite3.connect(tmp_path / "old.sqlite3", isolation_level=None, cached_statements=0)
    assert builds_a_list(other, update, ("failed", 1))  # open, its schema read, meanwhile

    assert apply_migrations(conn) == [v for v, _, _ in migration_files() if v >= 23]
    assert {t: conn.execute(f"SELECT * FROM {t} ORDER BY 1").fetchall() for t in TABLES} == before
    assert len(before["delivery_attempts"]) == 10 and len(before["held_items"]) == 5
    assert conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
    assert conn.execute("PRAGMA foreign_key_check").fetchall() == []
    other.execute("SELECT COUNT(*) FROM delivery_messages")  # a statement: the schema re-read
    for connection in (conn, other):
        assert not builds_a_list(connection, update, ("failed", 1))
        assert not builds_a_list(connection, MESSAGE, (9, "p9", "queued"))
        assert not builds_a_list(connection, HELD, ("held", 1))
    other.close()

    for state in MESSAGE_STATES:  # every state is still allowed
        conn.execute(update, (state, 1))
    for state in HELD_STATES:
        conn.execute("UPDATE held_items SET state = ? WHERE id = 1", (state,))
    with pytest.raises(sqlite3.IntegrityError, match="CHECK constraint failed"):
        conn.execute(update, ("sent", 1))
    with pytest.raises(sqlite3.IntegrityError, match="CHECK constraint failed"):
        conn.execute(MESSAGE, (9, "p9", "Queued"))
    with pytest.raises(sqlite3.IntegrityError, match="CHECK constraint failed"):
        conn.execute(HELD, ("kept", 1))
    conn.execute(MESSAGE, (9, "p9", "queued"))

    conn.execute("DELETE FROM delivery_messages WHERE id = 2")  # ON DELETE CASCADE still holds
    count = "SELECT COUNT(*) FROM delivery_attempts WHERE message_id = 2"
    assert conn.execute(count).fetchone() == (0,)
    assert conn.execute("SELECT COUNT(*) FROM delivery_kept").fetchone() == (0,)
    assert conn.execute("SELECT COUNT(*) FROM delivery_attempts").fetchone() == (8,)
    with pytest.raises(sqlite3.IntegrityError, match="FOREIGN KEY constraint failed"):
        conn.execute(ATTEMPT, (2, "p2", 3))
    conn.close()


def test_where_the_schema_may_not_be_edited_the_rules_stay_as_written(tmp_path: Path) -> None:
    """A connection that refuses edits of the schema (here an authorizer; a build with
    SQLITE_DBCONFIG_DEFENSIVE likewise): the edit is rolled back, ``writable_schema`` is off
    again, the migration is recorded (it only restates the rules) and they still hold."""
    conn = older_database(tmp_path / "old.sqlite3", 23)
    sql = "SELECT sql FROM sqlite_master WHERE name = 'delivery_messages'"
    (before,) = conn.execute(sql).fetchone()

    def refuse(action: int, table: str | None, *_: object) -> int:
        if action == sqlite3.SQLITE_UPDATE and table == "sqlite_master":
            return sqlite3.SQLITE_DENY
        return sqlite3.SQLITE_OK

    conn.set_authorizer(refuse)
    assert apply_migrations(conn) == [23]
    conn.set_authorizer(None)
    assert conn.execute("PRAGMA writable_schema").fetchone() == (0,)
    assert conn.execute(sql).fetchone() == (before,)  # as written: the IN list
    assert "state IN ('waiting'" in before
    with pytest.raises(sqlite3.IntegrityError, match="CHECK constraint failed"):
        conn.execute(MESSAGE, (1, "p1", "lost"))
    conn.execute(MESSAGE, (1, "p1", "queued"))
    assert apply_migrations(conn) == []  # recorded: not tried again
    conn.close()
