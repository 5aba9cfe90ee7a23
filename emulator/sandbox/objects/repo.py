"""A merchant's objects of one kind, read as stored (the QA console's lists and details)."""

from __future__ import annotations

from typing import Any

import msgspec

from emulator.delivery import repo as deliveries
from emulator.kernel.clock import from_us, iso
from emulator.kernel.outbox import COLUMNS, EVENTS, stored_event
from emulator.kernel.storage import Tx

# kind -> its table, and whether its objects have a status
KINDS: dict[str, tuple[str, bool]] = {
    "purchases": ("purchases", True),
    "clients": ("clients", False),
    "payouts": ("payouts", True),
    "billing_templates": ("billing_templates", False),
    "billing_subscribers": ("billing_subscribers", True),
    "mandates": ("bank_mandates", True),
    "collections": ("bank_collections", True),
    "payments": ("bank_payments", True),
}

_decode = msgspec.json.Decoder()


# where a search looks, besides the id: e-mails, references, titles; then amounts (cents)
TEXT_FIELDS = ("$.email", "$.client.email", "$.reference", "$.externalReference",
               "$.payment.reference", "$.title")  # fmt: skip
AMOUNT_FIELDS = ("$.purchase.total", "$.payment.amount", "$.amount", "$.amountCents")
# the fields' values in one parse of the object: ",v1,v2,...," (a JSON array's insides)
_PATHS = ", ".join(f"'{path}'" for path in (*TEXT_FIELDS, *AMOUNT_FIELDS))
_VALUES = f"(',' || substr(json_extract(CAST(data AS TEXT), {_PATHS}), 2, 1e9))"
SORTS = {
    "newest": "seq DESC",
    "oldest": "seq ASC",
    "status": "json_extract(CAST(data AS TEXT), '$.status') ASC, seq DESC",
    "id": "id ASC",
}


def _search(text: str) -> tuple[str, list[Any]]:
    """``text`` anywhere in the id, an e-mail, a reference or a title (any case), or an
    amount (``19.99`` or ``1999``, in cents as stored) equal to it. The object's JSON is
    parsed once per row for the text, once more for an amount."""
    lowered = text.lower()
    parts = ["instr(lower(id), ?) > 0", f"instr(lower({_VALUES}), ?) > 0"]
    params: list[Any] = [lowered, lowered]
    for cents in _cents(text):
        parts.append(f"instr(replace({_VALUES}, ']', ','), ?) > 0")
        params.append(f",{cents},")
    return f"({' OR '.join(parts)})", params


def _cents(text: str) -> list[int]:
    """The amounts ``text`` may mean: ``19.99`` is 1999 cents; ``1999`` is 1999 cents or
    199,900 (R 1,999.00)."""
    whole, dot, fraction = text.strip().partition(".")
    if not whole.isdigit() or len(whole) > 15:
        return []
    if dot and not (fraction.isdigit() and len(fraction) <= 2):
        return []
    if dot:
        return [int(whole) * 100 + int(fraction.ljust(2, "0"))]
    return [int(whole), int(whole) * 100]


def listed(
    tx: Tx,
    merchant_id: str,
    kind: str,
    status: str | None,
    id_part: str | None,
    limit: int,
    offset: int = 0,
    sort: str = "newest",
    search: str | None = None,
) -> tuple[int, list[dict[str, Any]]]:
    """How many match, and a page of them (``sort``: newest first by default); ``status``
    exact, ``id_part`` anywhere in the id (case-insensitive), ``search`` as `_search`."""
    table, has_status = KINDS[kind]
    where, params = ["merchant_id = ?"], [merchant_id]
    if status is not None:
        if not has_status:
            return 0, []
        where.append("json_extract(CAST(data AS TEXT), '$.status') = ?")
        params.append(status)
    if id_part is not None:
        where.append("instr(lower(id), ?) > 0")
        params.append(id_part.lower())
    if search is not None:
        clause, more = _search(search)
        where.append(clause)
        params.extend(more)
    # the matching rows' numbers, in order, in one pass (no object read unless a filter or
    # the sort needs it); then the page's objects by number
    order = tx.all(
        f'SELECT seq FROM "{table}" WHERE {" AND ".join(where)} ORDER BY {SORTS[sort]}',
        tuple(params),
    )
    page = [row[0] for row in order[offset : offset + limit]]
    if not page:
        return len(order), []
    marks = ", ".join("?" * len(page))
    rows = tx.all(f'SELECT seq, data FROM "{table}" WHERE seq IN ({marks})', tuple(page))
    found = {row[0]: row[1] for row in rows}
    return len(order), [_decode.decode(found[seq]) for seq in page]


def kind_of(tx: Tx, object_id: str) -> str | None:
    """The kind of the object with this id (any kind), None when there is none."""
    for kind, (table, _) in KINDS.items():
        if tx.one(f'SELECT 1 FROM "{table}" WHERE id = ?', (object_id,)) is not None:
            return kind
    return None


def one(tx: Tx, kind: str, object_id: str) -> tuple[str, dict[str, Any]] | None:
    """The owning merchant and the object, None when there is no such object."""
    table, _ = KINDS[kind]
    row = tx.one(f'SELECT merchant_id, data FROM "{table}" WHERE id = ?', (object_id,))
    if row is None:
        return None
    return str(row[0]), _decode.decode(row[1])


def events(tx: Tx, merchant_id: str, object_id: str, limit: int) -> list[dict[str, Any]]:
    """The events naming the object, oldest first."""
    rows = tx.all(
        f"SELECT {COLUMNS} FROM {EVENTS} WHERE object_id = ? AND merchant_id = ?"
        " ORDER BY seq LIMIT ?",
        (object_id, merchant_id, limit),
    )
    out = []
    for row in rows:
        event = stored_event(row)
        status = event.payload.get("status")
        out.append(
            {
                "id": event.id,
                "event_type": event.event_type,
                "at": iso(from_us(event.created_us)),
                "status": status if isinstance(status, str) else None,
                "payload": event.payload,
            }
        )
    return out


def copy_message(tx: Tx, attempt_id: int, at_us: int) -> tuple[int, str | None] | None:
    """A fresh copy of the message an attempt sent (same event, URL, headers and body),
    queued at ``at_us`` and holding nothing back: (its id, its merchant), None when there is
    no such attempt."""
    row = tx.one("SELECT message_id FROM delivery_attempts WHERE id = ?", (attempt_id,))
    if row is None:
        return None
    columns = (
        "merchant_id, event_id, event_seq, event_type, object_type, object_id, kind,"
        " target_id, url, headers, body"
    )
    cursor = tx.execute(
        f"INSERT INTO delivery_messages ({columns}, state, fail_attempts, reorder,"
        f" not_before_us, created_us) SELECT {columns}, 'queued', 0, 1, ?, ?"
        " FROM delivery_messages WHERE id = ?",
        (at_us, at_us, row[0]),
    )
    assert cursor.lastrowid is not None
    made = tx.one(
        "SELECT merchant_id, event_id, kind, target_id FROM delivery_messages WHERE id = ?",
        (cursor.lastrowid,),
    )
    assert made is not None
    sends = deliveries.sends_of(tx, made["event_id"], made["kind"], made["target_id"])
    deliveries.mark_copy(tx, cursor.lastrowid, sends, sends, f"replay:{row[0]}")  # a re-send
    return cursor.lastrowid, made["merchant_id"]


def attempt_merchant(tx: Tx, attempt_id: int) -> str | None:
    """The merchant of a delivery attempt ("" for none), None when there is no such attempt."""
    row = tx.one("SELECT merchant_id FROM delivery_attempts WHERE id = ?", (attempt_id,))
    return None if row is None else (row[0] or "")


def attempts_of_message(tx: Tx, message_id: int) -> list[dict[str, Any]]:
    rows = tx.all(
        "SELECT a.id, a.attempt, a.at_us, a.status, a.error, a.success, a.duration_us,"
        " m.id AS message_id, m.merchant_id, m.event_id, m.event_type, m.object_type,"
        " m.object_id, m.kind, m.target_id, m.url, m.headers, m.body, m.copy, m.copies,"
        " m.cause FROM delivery_attempts a"
        " JOIN delivery_messages m ON m.id = a.message_id WHERE m.id = ? ORDER BY a.id",
        (message_id,),
    )
    return [dict(r) for r in rows]
