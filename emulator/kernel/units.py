"""What runs on the writer's thread: the ``Tx`` a unit of work gets, a queued unit, and how a
batch of queued units becomes one transaction (``run``).

Several units share one ``BEGIN IMMEDIATE`` ... ``COMMIT``, and a failing unit rolls back alone.
A savepoint per unit would do that, but a savepoint makes SQLite copy every page a unit changes
into the sub-journal first (the pages of the indexes every unit of a batch shares, once per
unit): 8 % of a purchase's instructions. So a batch runs without savepoints, and a unit that
fails having changed no row (a refusal found before any write: nearly every failure) leaves
nothing to undo. Only one that fails after changing rows has the batch rolled back and run
again with a savepoint per unit (``_run_guarded``); units are plain functions of their
transaction, so the second run makes the same writes (it draws new ids).

A unit alone in its transaction needs no savepoint either: its failure rolls the whole
transaction back. A savepoint nested in another (a run of jobs, a savepoint per job, inside a
unit's) makes SQLite copy every page it changes into the sub-journal once per level, which cost
a run of jobs more than its own statements. Long units (``alone``: a run of due jobs) therefore
get a transaction of their own.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import sqlite3
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from emulator.kernel.connections import Hook, Tx

T = TypeVar("T")


Unit = Callable[[Tx], T]


@dataclass
class Pending:
    unit: Callable[[Tx], Any]
    future: asyncio.Future[Any]
    exclusive: bool  # runs alone, outside any transaction (backup)
    swap: Path | None = None  # not a unit: the write loop swaps this file in (restore)
    background: bool = False  # nobody waits for it now: a long run of jobs need not stop
    alone: bool = False  # in a transaction of its own (its savepoints are then not nested)
    # The caller's context: a unit reads the caller's context variables (whose clock it is
    # served on) on the writer's thread too.
    context: contextvars.Context | None = None


Result = tuple[bool, Any, list[Hook]]


def take_batch(queue: list[Pending]) -> list[Pending]:
    """The units that go into the next transaction: consecutive ordinary units, or one
    exclusive or ``alone`` unit by itself."""
    if queue[0].exclusive or queue[0].alone:
        return [queue.pop(0)]
    batch: list[Pending] = []
    while queue and not (queue[0].exclusive or queue[0].alone):
        batch.append(queue.pop(0))
    return batch


def run(conn: sqlite3.Connection, batch: list[Pending]) -> list[Result]:
    """On the writer's thread: the batch in one transaction (an exclusive unit: outside any)."""
    if batch[0].exclusive:
        return _run_exclusive(conn, batch[0])
    if len(batch) == 1:
        return _run_one(conn, batch[0])
    return _run_batch(conn, batch)


@contextlib.contextmanager
def _transaction(conn: sqlite3.Connection) -> Iterator[None]:
    """``BEGIN IMMEDIATE`` ... ``COMMIT`` around the block, unless the block ended the
    transaction itself (a failed unit's ``ROLLBACK``); rolled back when the commit fails or
    the writer is stopping."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield
        if conn.in_transaction:
            conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise


def _run_one(conn: sqlite3.Connection, pending: Pending) -> list[Result]:
    tx = Tx(conn)
    with _transaction(conn):
        try:
            value = _call(pending, tx)
        except Exception as exc:  # the unit failed: its transaction goes, the writer goes on
            conn.execute("ROLLBACK")
            return [(False, exc, [])]
    return [(True, value, tx.hooks)]


def _run_batch(conn: sqlite3.Connection, batch: list[Pending]) -> list[Result]:
    """The batch without savepoints; guarded (``_run_guarded``) once a unit fails after
    changing rows."""
    results: list[Result] = []
    with _transaction(conn):
        for pending in batch:
            tx = Tx(conn)
            changes = conn.total_changes
            try:
                value = _call(pending, tx)
            except Exception as exc:
                if conn.total_changes == changes and conn.in_transaction:
                    results.append((False, exc, []))  # it changed nothing: nothing to undo
                    continue
                if conn.in_transaction:  # SQLite may have rolled it back itself (an I/O error)
                    conn.execute("ROLLBACK")
                break
            results.append((True, value, tx.hooks))
        else:
            return results
    return _run_guarded(conn, batch)


def _run_guarded(conn: sqlite3.Connection, batch: list[Pending]) -> list[Result]:
    """The batch again, each unit in a savepoint of its own: a failing one rolls back alone."""
    results: list[Result] = []
    with _transaction(conn):
        for pending in batch:
            tx = Tx(conn)
            conn.execute("SAVEPOINT unit")
            try:
                value = _call(pending, tx)
            except Exception as exc:
                conn.execute("ROLLBACK TO unit")
                conn.execute("RELEASE unit")
                results.append((False, exc, []))
            else:
                conn.execute("RELEASE unit")
                results.append((True, value, tx.hooks))
    return results


def _run_exclusive(conn: sqlite3.Connection, pending: Pending) -> list[Result]:
    tx = Tx(conn)
    try:
        value = _call(pending, tx)
    except Exception as exc:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        return [(False, exc, [])]
    return [(True, value, tx.hooks)]


def _call(pending: Pending, tx: Tx) -> Any:
    if pending.context is None:
        return pending.unit(tx)
    return pending.context.run(pending.unit, tx)
