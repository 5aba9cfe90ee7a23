"""v2 objects in SQLite: mandates, collections, payments, statements; profiles by code."""

from __future__ import annotations

import sqlite3
from typing import Any, TypeVar

import msgspec

from emulator.bank.collections.rules import Collection
from emulator.bank.mandates.rules import AuthenticationWindows, Mandate
from emulator.bank.payments.rules import Payment
from emulator.core.merchants.model import MerchantProfile
from emulator.domain.errors import BankBadRequest, InvalidToken
from emulator.kernel.storage import Tx

T = TypeVar("T")

_encode = msgspec.json.Encoder()
_mandate = msgspec.json.Decoder(Mandate)
_collection = msgspec.json.Decoder(Collection)
_payment = msgspec.json.Decoder(Payment)
_profile = msgspec.json.Decoder(MerchantProfile)
_windows = msgspec.json.Decoder(AuthenticationWindows)


def _insert(tx: Tx, sql: str, params: tuple[Any, ...], duplicate: str) -> None:
    """An INSERT whose UNIQUE external reference answers ``duplicate`` (the v2 rules 2 and 3)."""
    try:
        tx.execute(sql, params)
    except sqlite3.IntegrityError as exc:
        text = str(exc)
        if "external_reference" in text:
            raise BankBadRequest(duplicate) from exc
        if text.startswith("FOREIGN KEY constraint failed"):  # merchant wiped after auth
            raise InvalidToken() from exc
        raise


def _owned(tx: Tx, table: str, object_id: str, merchant_id: str | None) -> tuple[str, str] | None:
    """(merchant id, stored JSON) of a row; None when it is another merchant's
    (``merchant_id`` None only for the control plane, which sees every merchant's)."""
    row = tx.one(f"SELECT merchant_id, data FROM {table} WHERE id = ?", (object_id,))
    if row is None or (merchant_id is not None and row[0] != merchant_id):
        return None
    return row[0], row[1]


# -- profiles ------------------------------------------------------------------------------


def profile_by_code(tx: Tx, merchant_id: str, code: str) -> MerchantProfile | None:
    row = tx.one(
        "SELECT data FROM merchant_profiles WHERE profile_code = ? AND merchant_id = ?",
        (code, merchant_id),
    )
    return _profile.decode(row[0]) if row is not None else None


def profile_by_id(tx: Tx, merchant_id: str, profile_id: int) -> MerchantProfile | None:
    row = tx.one(
        "SELECT data FROM merchant_profiles WHERE id = ? AND merchant_id = ?",
        (profile_id, merchant_id),
    )
    return _profile.decode(row[0]) if row is not None else None


# -- mandates ------------------------------------------------------------------------------


def insert_mandate(tx: Tx, merchant_id: str, mandate: Mandate) -> None:
    _insert(
        tx,
        "INSERT INTO bank_mandates (id, merchant_id, kind, external_reference, status, data)"
        " VALUES (?, ?, ?, ?, ?, ?)",
        (
            mandate.id,
            merchant_id,
            mandate.type,
            mandate.externalReference,
            mandate.status,
            _encode.encode(mandate),
        ),
        "mandate with this external reference already exists",
    )


def update_mandate(tx: Tx, mandate: Mandate) -> None:
    tx.execute(
        "UPDATE bank_mandates SET data = ?, status = ? WHERE id = ?",
        (_encode.encode(mandate), mandate.status, mandate.id),
    )


def mandate(tx: Tx, mandate_id: str, merchant_id: str | None = None) -> tuple[str, Mandate] | None:
    """(merchant id, mandate); ``merchant_id`` None only for the control plane."""
    row = _owned(tx, "bank_mandates", mandate_id, merchant_id)
    return None if row is None else (row[0], _mandate.decode(row[1]))


# -- collections ---------------------------------------------------------------------------


def insert_collection(tx: Tx, merchant_id: str, collection: Collection) -> None:
    _insert(
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
    row = _owned(tx, "bank_collections", collection_id, merchant_id)
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


# -- payments ------------------------------------------------------------------------------


def insert_payment(tx: Tx, merchant_id: str, payment: Payment) -> None:
    _insert(
        tx,
        "INSERT INTO bank_payments (id, merchant_id, bulk_id, data) VALUES (?, ?, ?, ?)",
        (payment.id, merchant_id, payment.bulkUploadId, _encode.encode(payment)),
        "payment with this external reference already exists",
    )


def update_payment(tx: Tx, payment: Payment) -> None:
    tx.execute(
        "UPDATE bank_payments SET data = ? WHERE id = ?", (_encode.encode(payment), payment.id)
    )


def payment(tx: Tx, payment_id: str, merchant_id: str | None = None) -> tuple[str, Payment] | None:
    row = _owned(tx, "bank_payments", payment_id, merchant_id)
    return None if row is None else (row[0], _payment.decode(row[1]))


# -- statements ----------------------------------------------------------------------------


def statement_id(tx: Tx, merchant_id: str, account: str, day: str, new_id: str) -> str:
    """The statement of ``account`` for ``day``, made with ``new_id`` if there is none yet
    (one statement when it exists: the common case, a day's collections share it)."""
    found = existing_statement(tx, merchant_id, account, day)
    if found is not None:
        return found
    tx.execute(  # the one writer: nothing made it since the read
        "INSERT INTO bank_statements (id, merchant_id, account_number, statement_date)"
        " VALUES (?, ?, ?, ?)",
        (new_id, merchant_id, account, day),
    )
    return new_id


def existing_statement(tx: Tx, merchant_id: str, account: str, day: str) -> str | None:
    row = tx.one(
        "SELECT id FROM bank_statements WHERE merchant_id = ? AND account_number = ?"
        " AND statement_date = ?",
        (merchant_id, account, day),
    )
    return None if row is None else str(row[0])


def statement(tx: Tx, merchant_id: str, account: str, sid: str) -> dict[str, Any] | None:
    row = tx.one(
        "SELECT id, account_number, statement_date FROM bank_statements"
        " WHERE id = ? AND merchant_id = ? AND account_number = ?",
        (sid, merchant_id, account),
    )
    if row is None:
        return None
    return {"id": row[0], "accountNumber": row[1], "statementDate": row[2]}


def latest_collections(tx: Tx, mandate_id: str, limit: int) -> list[Collection]:
    """A mandate's most recent collections, newest first."""
    rows = tx.all(
        "SELECT data FROM bank_collections WHERE mandate_id = ? ORDER BY seq DESC LIMIT ?",
        (mandate_id, limit),
    )
    return [_collection.decode(r[0]) for r in rows]


# -- DebiCheck authentication windows ------------------------------------------------------


def windows(tx: Tx, merchant_id: str) -> AuthenticationWindows | None:
    row = tx.one(
        "SELECT data FROM bank_authentication_windows WHERE merchant_id = ?", (merchant_id,)
    )
    return _windows.decode(row[0]) if row is not None else None


def put_windows(tx: Tx, merchant_id: str, value: AuthenticationWindows) -> None:
    tx.execute(
        "INSERT INTO bank_authentication_windows (merchant_id, data) VALUES (?, ?)"
        " ON CONFLICT (merchant_id) DO UPDATE SET data = excluded.data",
        (merchant_id, _encode.encode(value)),
    )
