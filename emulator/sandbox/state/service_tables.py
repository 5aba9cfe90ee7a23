"""What a state file holds of each table, and how a row becomes an entry and back.

A row's columns become the entry's keys in the table's column order, except: ``merchant_id``
(the entry sits under its merchant), the row numbers a table assigns anew (``seq``), JSON
columns (``data``, ``internal``, ``payload``, ``filters``) as nested structures, instants
(``*_us``) as ISO-8601 strings under the name without ``_us``, and bytes as base64 text.
"""

from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass
from typing import Any

import msgspec

from emulator.kernel.clock import CLOCK_RANGE, from_us, in_clock_range, iso, parse_iso, to_us
from emulator.kernel.storage import Tx

JSON_COLUMNS = frozenset({"data", "internal", "payload", "filters"})
BYTES_COLUMNS = frozenset({"file"})
_decode = msgspec.json.Decoder()
_encode = msgspec.json.Encoder()


@dataclass(frozen=True)
class Table:
    key: str  # the entry list's key under a merchant
    name: str  # the table
    order: str  # creation order, then id
    drop: tuple[str, ...] = ()  # numbered anew on import
    where: str = "merchant_id = ?"
    owned: bool = True  # has a merchant_id column
    source: str = ""  # read from this view instead of the table (written into the table)


# A merchant's tables, in the order they are written (what a row refers to comes first).
TABLES: tuple[Table, ...] = (
    Table("brands", "brands", "rowid"),
    Table("api_keys", "api_keys", "rowid"),
    Table("oauth_clients", "oauth_clients", "number"),
    Table("access_tokens", "access_tokens", "expires_us, token"),
    Table("profiles", "merchant_profiles", "id"),
    Table("company_keys", "company_keys", "merchant_id"),
    Table("debicheck_windows", "bank_authentication_windows", "merchant_id"),
    Table("webhooks", "webhooks", "seq", ("seq",)),
    Table("clients", "clients", "seq", ("seq",)),
    Table("purchases", "purchases", "seq", ("seq",)),
    Table("payouts", "payouts", "seq", ("seq",)),
    Table("billing_templates", "billing_templates", "seq", ("seq",)),
    Table("billing_subscribers", "billing_subscribers", "seq", ("seq",)),
    Table(
        "billing_purchases",
        "billing_purchases",
        "purchase_id",
        where="subscriber_id IN (SELECT id FROM billing_subscribers WHERE merchant_id = ?)",
        owned=False,
    ),
    Table("company_statements", "company_statements", "seq", ("seq",)),
    Table("ledger", "ledger", "id", ("id",)),
    Table("bank_statements", "bank_statements", "rowid"),
    Table("mandates", "bank_mandates", "seq", ("seq",)),
    Table("collections", "bank_collections", "seq", ("seq",)),
    Table("payments", "bank_payments", "seq", ("seq",)),
    Table("bulk_rows", "bank_bulk_rows", "bulk_id, line"),
    Table("callback_urls", "bank_callback_urls", "id", ("id",)),
    # The delivery cursor says what was dispatched; payloads are read resolved (kernel.outbox);
    # ``callback`` is a hint for routers (migration 0022): loaded rows take its default.
    Table("events", "outbox", "seq", ("dispatched", "ref", "callback"), source="outbox_events"),
)
BY_KEY = {table.key: table for table in TABLES}


class Refused(ValueError):
    """A state file that cannot be loaded: the key path of the first error, and why."""

    def __init__(self, path: str, message: str, status: int = 400) -> None:
        super().__init__(f"{path}: {message}" if path else message)
        self.path = path
        self.status = status


@dataclass(frozen=True)
class Column:
    name: str
    key: str  # its key in an entry
    kind: str  # "json", "bytes", "instant", "int", "text"
    required: bool  # NOT NULL without a default


def columns(tx: Tx, table: Table) -> list[Column]:
    out = []
    for row in tx.all(f'PRAGMA table_info("{table.name}")'):
        name, declared, notnull, default, pk = row[1], row[2], row[3], row[4], row[5]
        if name == "merchant_id" or name in table.drop:
            continue
        if name in JSON_COLUMNS:
            kind = "json"
        elif name in BYTES_COLUMNS:
            kind = "bytes"
        elif name.endswith("_us"):
            kind = "instant"
        elif declared.upper() == "INTEGER":
            kind = "int"
        else:
            kind = "text"
        key = name[:-3] if kind == "instant" else name
        required = bool(notnull or (pk and declared.upper() != "INTEGER")) and default is None
        out.append(Column(name, key, kind, required))
    return out


def instant(us: int) -> str:
    return iso(from_us(us))


def entry(row: Any, cols: list[Column]) -> dict[str, Any]:
    """A row as a file's entry."""
    out: dict[str, Any] = {}
    for col in cols:
        value = row[col.name]
        if value is None:
            continue
        if col.kind == "json":
            value = _decode.decode(value)
        elif col.kind == "bytes":
            value = base64.b64encode(value).decode()
        elif col.kind == "instant":
            value = instant(value)
        out[col.key] = value
    return out


def rows_of(tx: Tx, table: Table, merchant_id: str) -> list[dict[str, Any]]:
    cols = columns(tx, table)
    names = ", ".join(f'"{c.name}"' for c in cols)
    found = tx.all(
        f'SELECT {names} FROM "{table.source or table.name}" WHERE {table.where}'
        f" ORDER BY {table.order}",
        (merchant_id,),
    )
    return [entry(row, cols) for row in found]


def _fits(value: int) -> bool:
    return -(2**63) <= value < 2**63


def parse_instant(path: str, value: Any) -> int:
    """An ISO-8601 instant (or microseconds since the epoch), within the clock's range."""
    if isinstance(value, int) and not isinstance(value, bool):
        moment = value
    elif isinstance(value, str):
        try:
            moment = to_us(parse_iso(value))
        except (ValueError, OverflowError):
            raise Refused(path, f"is not an ISO-8601 instant: {value[:40]!r}") from None
    else:
        raise Refused(path, "must be an ISO-8601 instant")
    if not in_clock_range(moment):
        raise Refused(path, f"must be {CLOCK_RANGE}")
    return moment


def row(path: str, item: Any, cols: list[Column]) -> dict[str, Any]:
    """An entry as a row's values by column, checked: the key path of the first error."""
    if not isinstance(item, dict):
        raise Refused(path, "must be a mapping")
    known = {c.key: c for c in cols}
    for key in item:
        if key not in known:
            names = ", ".join(known)
            raise Refused(f"{path}.{key}", f"is not a key of this entry; the keys: {names}")
    out: dict[str, Any] = {}
    for col in cols:
        where = f"{path}.{col.key}"
        value = item.get(col.key)
        if value is None:
            if col.required:
                raise Refused(where, "is required")
            continue
        if col.kind == "json":
            if not isinstance(value, dict | list):
                raise Refused(where, "must be a mapping or a list")
            value = _encode.encode(value)
        elif col.kind == "bytes":
            try:
                value = base64.b64decode(str(value), validate=True)
            except (binascii.Error, ValueError):
                raise Refused(where, "must be base64 text") from None
        elif col.kind == "instant":
            value = parse_instant(where, value)
        elif col.kind == "int":
            if isinstance(value, bool) and col.name in ("tokenized", "is_error"):
                value = int(value)
            if isinstance(value, bool) or not isinstance(value, int) or not _fits(value):
                raise Refused(where, "must be an integer (64 bits)")
        elif not isinstance(value, str):
            raise Refused(where, "must be a string")
        out[col.name] = value
    return out


def insert(tx: Tx, table: Table, values: dict[str, Any]) -> None:
    names = ", ".join(f'"{n}"' for n in values)
    marks = ", ".join("?" for _ in values)
    tx.execute(f'INSERT INTO "{table.name}" ({names}) VALUES ({marks})', tuple(values.values()))
