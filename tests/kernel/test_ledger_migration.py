"""Migration 0021 rewrites the ledger's state rule as comparisons, in place: rows stored
before keep their ids and values, later rows number on from them, and a state outside the
three is still refused."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from emulator.kernel.schema import apply_migrations, migration_files
from tests.kernel.test_state_check_migration import builds_a_list

COLUMNS = (
    "merchant_id, at_us, settled_us, kind, state, currency, amount, fee, object_type, object_id"
)


def test_rows_stored_before_the_migration_are_kept(tmp_path: Path) -> None:
    conn = sqlite3.connect(tmp_path / "old.sqlite3", isolation_level=None)
    conn.execute("PRAGMA foreign_keys=ON")
    conn.execute("PRAGMA synchronous=OFF")  # a commit per migration, none of them flushed
    conn.execute("CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL)")
    for version, name, sql in migration_files():
        if version < 21:  # the database as the build before 0021 left it
            conn.executescript(
                f"BEGIN;\n{sql}\n;INSERT INTO schema_migrations VALUES ({version}, '{name}');COMMIT;"
            )
    conn.execute("INSERT INTO merchants (id, name, created_us, data) VALUES ('m', 'M', 0, x'7b7d')")
    rows = [
        ("m", 1, None, "purchase", "pending", "EUR", 500, 10, "purchase", "p1"),
        ("m", 2, 2, "collection", "settled", "ZAR", 12345, 0, "collection", "c1"),
        ("m", 3, None, "refund", "void", "EUR", -500, 0, "purchase", "p1"),
    ]
    for row in rows:
        conn.execute(f"INSERT INTO ledger ({COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", row)
    conn.execute("DELETE FROM ledger WHERE id = 1")  # a gap in the ids stays a gap
    before = conn.execute("SELECT * FROM ledger ORDER BY id").fetchall()
    insert = f"INSERT INTO ledger ({COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
    assert builds_a_list(conn, insert, rows[0])  # the IN list's cost the migration takes away

    assert apply_migrations(conn) == [v for v, _, _ in migration_files() if v >= 21]
    assert conn.execute("SELECT * FROM ledger ORDER BY id").fetchall() == before
    assert not builds_a_list(conn, insert, rows[0])
    conn.execute(f"INSERT INTO ledger ({COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", rows[0])
    assert [r[0] for r in conn.execute("SELECT id FROM ledger ORDER BY id")] == [2, 3, 4]
    indexes = {
        r[0]
        for r in conn.execute(
            "SELECT name FROM sqlite_master WHERE tbl_name = 'ledger' AND type = 'index'"
        )
    }
    assert indexes == {"ledger_merchant", "ledger_object"}
    with pytest.raises(sqlite3.IntegrityError, match="CHECK constraint failed"):
        conn.execute(
            f"INSERT INTO ledger ({COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (*rows[0][:4], "done", *rows[0][5:]),
        )
    with pytest.raises(sqlite3.IntegrityError, match="FOREIGN KEY constraint failed"):
        conn.execute(
            f"INSERT INTO ledger ({COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            ("other", *rows[0][1:]),
        )
    conn.execute("DELETE FROM merchants WHERE id = 'm'")  # ON DELETE CASCADE still holds
    assert conn.execute("SELECT COUNT(*) FROM ledger").fetchone() == (0,)
    conn.close()
