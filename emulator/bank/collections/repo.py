"""Collections in SQLite: stored, read (ahead, for a run of jobs), counted per mandate and
statement."""

from __future__ import annotations

import msgspec

from emulator.bank.collections.rules import Collection
from emulator.bank.common import repo as common
from emulator.kernel.storage import Tx

_encode = msgspec.json.Encoder()
_collection = msgspec.json.Decoder(Collection)


def insert_collection(tx: Tx, merchant_id: str, collection: Collection) -> None:
    common.insert_unique(
        tx,
        "INSERT INTO bank_collections (id, merchant_id, kind, mandate_id, external_reference,"
        " status, data) VALUES (?, ?, ?, ?, ?, ?, ?)",
        (
            collection.id,
            merchant_id,
            collection.type,
            collection.mandateId,
            collection.externalReference,
            collection.status,
            _encode.encode(collection),
        ),
        "collection with this external reference already exists",
    )


def update_collection(
    tx: Tx, collection: Collection, data: bytes | None = None, *, before: str | None = None
) -> None:
    """Store ``collection``; ``data``: its JSON when the caller has it (``encoded``);
    ``before``: the status stored until now, if the caller knows it. A COMPLETED row may be
    referred to by its collection.completed event (``kernel.outbox``: ``ref``, migration
    0020): that event gets a copy of its JSON first, as it was."""
    _read_ahead(tx).pop(collection.id, None)  # read ahead before the change: no longer so
    if before is None or before == "COMPLETED":
        tx.execute(_KEEP_EVENTS, (collection.id, collection.id))
    tx.execute(
        "UPDATE bank_collections SET data = ?, statement_id = ?, status = ? WHERE id = ?",
        (
            _encode.encode(collection) if data is None else data,
            collection.statementId,
            collection.status,
            collection.id,
        ),
    )


# The row's JSON into the events that refer to it. The condition object_type <> 'client' lets
# SQLite use the outbox's object index (partial: its own condition).
_KEEP_EVENTS = (
    "UPDATE outbox SET payload = (SELECT data FROM bank_collections WHERE id = ?), ref = 0"
    " WHERE object_id = ? AND object_type <> 'client' AND object_type = 'bank_collection'"
    " AND ref = 1"
)


def encoded(obj: Collection) -> bytes:
    """An object's JSON as stored (and as its event carries it)."""
    return _encode.encode(obj)


def collection(
    tx: Tx, collection_id: str, merchant_id: str | None = None
) -> tuple[str, Collection] | None:
    row = common.owned(tx, "bank_collections", collection_id, merchant_id)
    return None if row is None else (row[0], _collection.decode(row[1]))


# A run of due jobs completes thousands of collections, one job each: the first job of a run
# of its kind at one instant reads the collections of the jobs that follow it too, in one
# statement (``collection_of_job``). What is read ahead is kept for that unit of work alone,
# each row used once (a second read of it goes to the table), and forgotten when the unit
# writes the row (``update_collection``): the table's only writer in a unit of jobs.
AHEAD = 64
_AHEAD_SQL = (
    "SELECT c.id, c.merchant_id, c.data FROM jobs j"
    " JOIN bank_collections c ON c.id = json_extract(CAST(j.payload AS TEXT), '$.id')"
    " WHERE j.timeline = (SELECT timeline FROM jobs WHERE id = ?) AND j.state = 'pending'"
    " AND j.due_us = ? AND j.id >= ? AND j.kind = ? ORDER BY j.id LIMIT ?"
)


def _read_ahead(tx: Tx) -> dict[str, tuple[str, bytes]]:
    """The collections read ahead in the unit ``tx`` (a new unit: none)."""
    return tx.kept("bank.collections_ahead")


def collection_of_job(
    tx: Tx, collection_id: str, job_id: int, due_us: int, kind: str
) -> tuple[str, Collection] | None:
    """``collection(tx, collection_id)`` for the job ``job_id`` (of ``kind``, due at
    ``due_us``), whose payload names the collection as ``id``; read ahead with those of the
    pending jobs of its kind, instant and timeline after it."""
    known = _read_ahead(tx)
    row = known.pop(collection_id, None)
    if row is None:
        for found in tx.all(_AHEAD_SQL, (job_id, due_us, job_id, kind, AHEAD)):
            known[found[0]] = (found[1], found[2])
        row = known.pop(collection_id, None)
        if row is None:
            return None
    return row[0], _collection.decode(row[1])


def collections_of_mandate(tx: Tx, mandate_id: str) -> int:
    row = tx.one("SELECT COUNT(*) FROM bank_collections WHERE mandate_id = ?", (mandate_id,))
    return int(row[0]) if row is not None else 0


def collections_of_statement(tx: Tx, statement_id: str) -> list[Collection]:
    rows = tx.all(
        "SELECT data FROM bank_collections WHERE statement_id = ? ORDER BY seq", (statement_id,)
    )
    return [_collection.decode(r[0]) for r in rows]


def latest_collections(tx: Tx, mandate_id: str, limit: int) -> list[Collection]:
    """A mandate's most recent collections, newest first."""
    rows = tx.all(
        "SELECT data FROM bank_collections WHERE mandate_id = ? ORDER BY seq DESC LIMIT ?",
        (mandate_id, limit),
    )
    return [_collection.decode(r[0]) for r in rows]
