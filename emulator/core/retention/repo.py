"""Retention: delete what has been delivered (or given up on) and is older than a window.

Never the newest row of a table: ids are SQLite rowids, which reuse a deleted maximum, and the
delivery cursor, ``?after=ID`` tails and jobs name rows by id. Never an outbox event the
delivery engine has not dispatched, nor one with a message still waiting or queued.
"""

from __future__ import annotations

from typing import Any

from emulator.kernel.storage import Tx

CURSOR_KEY = "delivery.cursor"  # the delivery engine's (emulator/delivery/dispatch.py)
_OPEN = "('waiting', 'queued')"


def _scope(merchant_id: str | None, own: list[str]) -> tuple[str, list[Any]]:
    """Rows of one merchant with its own clock, or of every other merchant (and of none)."""
    if merchant_id is not None:
        return "merchant_id = ?", [merchant_id]
    if not own:
        return "1", []
    marks = ", ".join("?" for _ in own)
    return f"(merchant_id IS NULL OR merchant_id NOT IN ({marks}))", list(own)


def _top(tx: Tx, table: str, key: str) -> int:
    row = tx.one(f"SELECT MAX({key}) FROM {table}")
    return int(row[0]) if row is not None and row[0] is not None else 0


def prune(
    tx: Tx, cutoff_us: int, own: list[str], limit: int, merchant_id: str | None = None
) -> dict[str, int]:
    """Delete up to ``limit`` rows of each table older than ``cutoff_us``, oldest first: of
    ``merchant_id`` (one with its own clock), or of every merchant not in ``own`` plus the
    sink's; how many of each."""
    where, params = _scope(merchant_id, own)
    counts: dict[str, int] = {}
    done = (
        f"SELECT id FROM delivery_messages WHERE {where} AND state IN ('delivered', 'failed')"
        " AND created_us < ? AND id < ? ORDER BY id LIMIT ?"
    )
    done_params = [*params, cutoff_us, _top(tx, "delivery_messages", "id"), limit]
    counts["delivery_attempts"] = tx.execute(
        f"DELETE FROM delivery_attempts WHERE message_id IN ({done})", done_params
    ).rowcount
    counts["delivery_messages"] = tx.execute(
        f"DELETE FROM delivery_messages WHERE id IN ({done})", done_params
    ).rowcount
    row = tx.one("SELECT value FROM settings WHERE key = ?", (CURSOR_KEY,))
    cursor = int(row[0]) if row is not None else 0
    row = tx.one(f"SELECT MIN(event_seq) FROM delivery_messages WHERE state IN {_OPEN}")
    first_open = int(row[0]) if row is not None and row[0] is not None else cursor + 1
    below = min(cursor + 1, first_open, _top(tx, "outbox", "seq"))
    counts["outbox"] = tx.execute(
        f"DELETE FROM outbox WHERE seq IN (SELECT seq FROM outbox WHERE seq < ? AND {where}"
        " AND created_us < ? ORDER BY seq LIMIT ?)",
        (below, *params, cutoff_us, limit),
    ).rowcount
    counts["endpoint_events"] = tx.execute(
        f"DELETE FROM endpoint_events WHERE id IN (SELECT id FROM endpoint_events WHERE {where}"
        " AND at_us < ? AND id < ? ORDER BY id LIMIT ?)",
        (*params, cutoff_us, _top(tx, "endpoint_events", "id"), limit),
    ).rowcount
    if merchant_id is None:
        counts["sink_messages"] = tx.execute(
            "DELETE FROM sink_messages WHERE id IN (SELECT id FROM sink_messages"
            " WHERE received_us < ? AND id < ? ORDER BY id LIMIT ?)",
            (cutoff_us, _top(tx, "sink_messages", "id"), limit),
        ).rowcount
    return counts


def pending_prunes(tx: Tx, kind: str) -> list[tuple[int, int]]:
    """(id, due_us) of the pending jobs of ``kind``."""
    rows = tx.all("SELECT id, due_us FROM jobs WHERE kind = ? AND state = 'pending'", (kind,))
    return [(int(r[0]), int(r[1])) for r in rows]


def drop_jobs(tx: Tx, ids: list[int]) -> None:
    for job_id in ids:
        tx.execute("DELETE FROM jobs WHERE id = ?", (job_id,))


def sizes(tx: Tx) -> dict[str, int]:
    """Rows of each pruned table (the soak's report)."""
    tables = ("outbox", "delivery_messages", "delivery_attempts", "sink_messages")
    return {t: len(tx.all(f"SELECT 1 FROM {t}")) for t in tables}
