"""Durable jobs as rows: the ``jobs`` table's struct and queries (the scheduler runs them).

A job belongs to one timeline (``jobs.timeline``: '' for the server clock, else the merchant
whose own clock it follows) and is pending until it has run; a failed one is kept, with its
error, for inspection.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

import msgspec

from emulator.kernel.storage import Tx

log = logging.getLogger("emulator.kernel.scheduler")


class Job(msgspec.Struct, frozen=True):
    id: int
    kind: str
    due_us: int
    merchant_id: str | None
    payload: dict[str, Any]


_decode_payload = msgspec.json.Decoder(dict[str, Any])


def mark_failed(tx: Tx, job: Job, exc: Exception) -> None:
    """A failed job is kept, with its error, for inspection; it never runs again by itself."""
    message = f"{type(exc).__name__}: {exc}"
    tx.execute("UPDATE jobs SET state = 'failed', error = ? WHERE id = ?", (message, job.id))


def run_careful(tx: Tx, job: Job, handler: Callable[[Tx, Job], None]) -> None:
    """Run an atomic job in its own savepoint: a failing one is rolled back alone (what it
    meant to do after commit too) and kept as failed."""
    tx.execute("SAVEPOINT job")
    hooks = len(tx.hooks)
    try:
        handler(tx, job)
        tx.execute("DELETE FROM jobs WHERE id = ?", (job.id,))
    except Exception as exc:
        tx.execute("ROLLBACK TO job")
        del tx.hooks[hooks:]  # what the rolled-back job meant to do after commit
        log.exception("job %s (%s) failed", job.id, job.kind)
        mark_failed(tx, job, exc)
    tx.execute("RELEASE job")


def _row_to_job(row: Any) -> Job:
    return Job(
        id=row["id"],
        kind=row["kind"],
        due_us=row["due_us"],
        merchant_id=row["merchant_id"],
        payload=_decode_payload.decode(row["payload"]),
    )


_NOT_RUNNING = " AND id NOT IN (SELECT value FROM json_each(?))"
_COLUMNS = "SELECT id, kind, due_us, merchant_id, payload FROM jobs"


def _pending(
    key: str, exclude: tuple[int, ...], skip: tuple[str, ...], target_us: int | None
) -> tuple[str, list[Any]]:
    """The query of a timeline's pending jobs due by ``target_us`` (any, with None), leaving
    out those under way (``exclude``) and kinds that must wait (``skip``), soonest first."""
    sql = _COLUMNS + " WHERE state = 'pending' AND timeline = ?"
    params: list[Any] = [key]
    if exclude:
        sql += _NOT_RUNNING
        params.append(msgspec.json.encode(exclude).decode())
    if skip:
        sql += " AND kind NOT IN (SELECT value FROM json_each(?))"
        params.append(msgspec.json.encode(skip).decode())
    if target_us is not None:
        sql += " AND due_us <= ?"
        params.append(target_us)
    return sql + " ORDER BY due_us, id LIMIT ?", params


def next_job(
    tx: Tx,
    key: str,
    target_us: int | None,
    exclude: tuple[int, ...] = (),
    skip: tuple[str, ...] = (),
) -> Job | None:
    """The timeline's next job due by ``target_us`` (any, with None), leaving out those under
    way (``exclude``) and kinds that must wait (``skip``)."""
    sql, params = _pending(key, exclude, skip, target_us)
    row = tx.one(sql, [*params, 1])
    return _row_to_job(row) if row is not None else None


def next_jobs(
    tx: Tx, key: str, target_us: int, exclude: tuple[int, ...], skip: tuple[str, ...], limit: int
) -> list[Job]:
    """The timeline's next ``limit`` jobs due by ``target_us``, soonest first (as ``next_job``
    would return them one by one, if nothing were scheduled meanwhile)."""
    sql, params = _pending(key, exclude, skip, target_us)
    return [_row_to_job(row) for row in tx.all(sql, [*params, limit])]


def earliest_due(tx: Tx, key: str, exclude: tuple[int, ...] = ()) -> int | None:
    sql = "SELECT MIN(due_us) FROM jobs WHERE state = 'pending' AND timeline = ?"
    if exclude:
        row = tx.one(sql + _NOT_RUNNING, (key, msgspec.json.encode(exclude).decode()))
    else:
        row = tx.one(sql, (key,))
    return row[0] if row is not None else None


def pending_jobs(tx: Tx, merchant_id: str | None = None) -> list[Job]:
    if merchant_id is None:
        rows = tx.all(_COLUMNS + " WHERE state = 'pending' ORDER BY due_us, id")
    else:
        rows = tx.all(
            _COLUMNS + " WHERE state = 'pending' AND merchant_id = ? ORDER BY due_us, id",
            (merchant_id,),
        )
    return [_row_to_job(row) for row in rows]


def pending_on(tx: Tx, key: str, limit: int) -> list[Job]:
    """A timeline's pending jobs, soonest first."""
    rows = tx.all(
        _COLUMNS + " WHERE state = 'pending' AND timeline = ? ORDER BY due_us, id LIMIT ?",
        (key, limit),
    )
    return [_row_to_job(row) for row in rows]


def pending_of(tx: Tx, merchant_id: str, limit: int) -> list[Job]:
    """A merchant's pending jobs, soonest first, whichever clock they run on."""
    rows = tx.all(
        _COLUMNS + " WHERE state = 'pending' AND merchant_id = ? ORDER BY due_us, id LIMIT ?",
        (merchant_id, limit),
    )
    return [_row_to_job(row) for row in rows]


def pending_due(tx: Tx, key: str, now_us: int, exclude: tuple[int, ...]) -> list[Job]:
    """Every pending job of a timeline due by ``now_us``, but those under way (``exclude``)."""
    sql, params = _pending(key, exclude, (), now_us)
    return [_row_to_job(row) for row in tx.all(sql, [*params, -1])]
