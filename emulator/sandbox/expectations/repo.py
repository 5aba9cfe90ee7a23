"""A merchant's records for expectations (``sandbox.expectations.model_records``): its journal
entries, delivery attempts and outbox events, oldest first, always by merchant (an
expectation never sees another merchant's records).

Each read narrows in SQL by what the items ask: the rows that may match any of them (a
superset: the exact match is the domain's), fetching only the columns the items look at. A
delivery read keeps every attempt of a message it keeps (a late delivery's sentence names the
attempts that failed before it), an event read every event of an object a transition may be
about (a transition is a change from the object's previous status). When an item fails, the
``tail`` reads give the latest records of its kind, bounded, for its closest candidates."""

from __future__ import annotations

import re
from collections.abc import Sequence

from emulator.kernel.outbox import EVENTS
from emulator.kernel.storage import Tx
from emulator.sandbox.expectations.model import DeliverySpec, EventSpec, RequestSpec, TransitionSpec
from emulator.sandbox.expectations.model_records import (
    DeliveryRecord,
    EventRecord,
    RequestRecord,
)

MAX_ROWS = 100_000  # per kind and read: the journal keeps 50,000 entries in all


def _marks(values: Sequence[object]) -> str:
    return ", ".join("?" for _ in values)


def _escape(text: str) -> str:
    """``text`` as a GLOB that matches it literally."""
    return re.sub(r"[\[\]?*]", lambda m: f"[{m.group(0)}]", text)


def path_glob(template: str) -> str:
    """A GLOB that every path the template (or glob) matches also matches: a superset, for
    SQLite to narrow with; the exact match is the domain's."""
    literal = re.sub(r"[\[\]?]", lambda m: f"[{m.group(0)}]", template.rstrip("/"))
    return re.sub(r"\{[^}/]*\}|\*\*", "*", literal) + "*"


def _glob(pattern: str) -> str | None:
    """An fnmatch pattern as a GLOB that matches at least what it matches (None: no
    narrowing; fnmatch's ``[!...]`` is not GLOB's)."""
    return None if "[" in pattern else pattern


class _Where:
    """``merchant = ? AND (item 1 OR item 2 ...)``: an item without a condition of its own
    matches any row, and then so does the whole."""

    def __init__(self) -> None:
        self.items: list[str] = []
        self.params: list[object] = []
        self.everything = False

    def item(self, conditions: list[tuple[str, list[object]]]) -> None:
        if not conditions:
            self.everything = True
            return
        self.items.append(" AND ".join(f"({sql})" for sql, _ in conditions))
        self.params.extend(p for _, params in conditions for p in params)

    def sql(self) -> tuple[str, list[object]]:
        if self.everything or not self.items:
            return "", []
        return " AND (" + " OR ".join(f"({i})" for i in self.items) + ")", self.params


Conditions = list[tuple[str, list[object]]]
# A message's URL without its query or fragment (up to the first "?" or "#").
URL_PATH = (
    "CASE WHEN instr(m.url, '?') > 0 AND (instr(m.url, '#') = 0"
    " OR instr(m.url, '?') < instr(m.url, '#')) THEN substr(m.url, 1, instr(m.url, '?') - 1)"
    " WHEN instr(m.url, '#') > 0 THEN substr(m.url, 1, instr(m.url, '#') - 1) ELSE m.url END"
)


def request_conditions(spec: RequestSpec) -> Conditions:
    out: Conditions = []
    if spec.interface is not None:
        out.append(("interface = ?", [spec.interface]))
    if spec.method is not None:
        out.append(("method = ?", [spec.method]))
    if spec.path is not None:
        out.append(("path GLOB ?", [path_glob(spec.path)]))
    if isinstance(spec.status, int):
        out.append(("status = ?", [spec.status]))
    elif isinstance(spec.status, str):  # "2xx"
        low = int(spec.status[0]) * 100
        out.append(("status BETWEEN ? AND ?", [low, low + 99]))
    return out


def delivery_conditions(spec: DeliverySpec) -> Conditions:
    """Not by outcome nor attempt: every attempt of a message that may match is kept."""
    out: Conditions = []
    if spec.object_id is not None:
        out.append(("a.object_id = ?", [spec.object_id]))
    if spec.event is not None and is_literal(spec.event):
        out.append(("m.event_type = ?", [spec.event]))
    elif spec.event is not None and (event := _glob(spec.event)) is not None:
        out.append(("m.event_type GLOB ?", [event]))
    if spec.kind is not None:
        out.append(("m.kind = ?", [spec.kind]))
    if spec.url is not None and (url := _glob(spec.url)) is not None:
        out.append(("m.url = ? OR m.url GLOB ?", [spec.url, url]))
    if spec.sink is not None:  # exactly the domain's ``to_sink``
        out.append(
            (f"rtrim({URL_PATH}, '/') GLOB ?", ["*" + _escape(f"/_emulator/sink/{spec.sink}")])
        )
    return out


def _object(spec: EventSpec | TransitionSpec) -> Conditions:
    out: Conditions = []
    if spec.object_id is not None:
        out.append(("object_id = ?", [spec.object_id]))
    if spec.object_type is not None:
        out.append(("object_type IN (?, ?)", [spec.object_type, f"bank_{spec.object_type}"]))
    return out


def event_conditions(spec: EventSpec) -> Conditions:
    out = _object(spec)
    if spec.event is not None and is_literal(spec.event):  # "+": the object's index leads
        out.append(("+event_type = ?" if spec.object_id else "event_type = ?", [spec.event]))
    elif spec.event is not None and (event := _glob(spec.event)) is not None:
        out.append(("event_type GLOB ?", [event]))
    return out


def _narrowed(conditions: list[Conditions]) -> tuple[str, list[object]]:
    where = _Where()
    for one in conditions:
        where.item(one)
    return where.sql()


def _object_ids(specs: Sequence[DeliverySpec | EventSpec | TransitionSpec]) -> list[str] | None:
    """The objects asked about, when every item names one (an object index answers)."""
    ids = [s.object_id for s in specs]
    return None if None in ids else sorted({i for i in ids if i is not None})


def requests(tx: Tx, merchant_id: str, specs: Sequence[RequestSpec]) -> list[RequestRecord]:
    """The merchant's journal entries that may match one of ``specs``."""
    narrow, params = _narrowed([request_conditions(s) for s in specs])
    body = "request_body" if any(s.body is not None for s in specs) else "''"
    return requests_where(tx, f"merchant_id = ?{narrow} ORDER BY id", [merchant_id, *params], body)


def requests_where(
    tx: Tx, where: str, params: list[object], body: str, limit: int = MAX_ROWS
) -> list[RequestRecord]:
    rows = tx.conn.execute(
        f"SELECT id, at_us, interface, method, path, status, {body} FROM requests"
        f" WHERE {where} LIMIT {int(limit)}",
        params,
    ).fetchall()
    return [RequestRecord(*r) for r in rows]


def deliveries(tx: Tx, merchant_id: str, specs: Sequence[DeliverySpec]) -> list[DeliveryRecord]:
    """The merchant's delivery attempts that may match one of ``specs``, with their
    messages' event, object and URL (the attempts' object index answers when every item
    names an object)."""
    narrow, params = _narrowed([delivery_conditions(s) for s in specs])
    objects = _object_ids(specs)
    if objects:
        where = f"a.object_id IN ({_marks(objects)}) AND a.merchant_id = ?"
        params = [*objects, merchant_id, *params]
    else:  # the messages' merchant index leads (by event type when the items all say one)
        where, params = (
            "m.merchant_id = ? AND a.merchant_id = ?",
            [merchant_id, merchant_id, *params],
        )
    return deliveries_where(tx, f"{where}{narrow} ORDER BY a.id", params)


def joined(where: str) -> str:
    """Attempts and their messages: from the messages (their merchant index) unless the
    attempts' object index leads."""
    if where.startswith("a."):
        return "delivery_attempts a JOIN delivery_messages m ON m.id = a.message_id"
    return "delivery_messages m CROSS JOIN delivery_attempts a ON a.message_id = m.id"


def deliveries_where(
    tx: Tx, where: str, params: list[object], limit: int = MAX_ROWS
) -> list[DeliveryRecord]:
    rows = tx.conn.execute(
        "SELECT a.id, a.at_us, m.id, m.event_type, m.object_type, m.object_id, m.kind, m.url,"
        f" a.attempt, a.status, a.error, a.success FROM {joined(where)}"
        f" WHERE {where} LIMIT {int(limit)}",
        params,
    ).fetchall()
    return [
        DeliveryRecord(
            r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], r[8], r[9], r[10], bool(r[11])
        )
        for r in rows
    ]


def events(
    tx: Tx,
    merchant_id: str,
    specs: Sequence[EventSpec],
    transitions: Sequence[TransitionSpec],
) -> list[EventRecord]:
    """The merchant's outbox events, in order, that may match one of ``specs`` or be part of
    an object's history one of ``transitions`` may be about; each with its payload's
    ``status`` when a transition asks (the outbox's object index answers when every item
    names an object, its merchant index otherwise)."""
    narrow, params = _narrowed(
        [*(event_conditions(s) for s in specs), *(_object(t) for t in transitions)]
    )
    objects = _object_ids([*specs, *transitions])
    if objects:
        where = f"object_id IN ({_marks(objects)}) AND merchant_id = ? AND object_type <> 'client'"
        params = [*objects, merchant_id, *params]
    else:
        where, params = "merchant_id = ?", [merchant_id, *params]
    status = bool(transitions)
    payloads = any(s.fields is not None for s in specs) or any(
        t.fields is not None for t in transitions
    )
    return events_where(tx, f"{where}{narrow} ORDER BY seq", params, status, payloads)


def events_where(
    tx: Tx, where: str, params: list[object], status: bool, payloads: bool, limit: int = MAX_ROWS
) -> list[EventRecord]:
    state = "json_extract(CAST(payload AS TEXT), '$.status')" if status else "NULL"
    payload = "payload" if payloads else "NULL"
    rows = tx.conn.execute(
        f"SELECT seq, id, created_us, event_type, object_type, object_id, {state}, {payload}"
        f" FROM {EVENTS} WHERE {where} LIMIT {int(limit)}",
        params,
    ).fetchall()
    return [
        EventRecord(
            r[0], r[1], r[2], r[3], r[4], r[5],
            None if r[6] is None else str(r[6]),
            bytes(r[7]) if r[7] is not None else b"{}",
        )
        for r in rows
    ]  # fmt: skip


# -- items SQL decides alone: counted there, their first matches read --------------------

GLOB_SIGNS = frozenset("*?[]{}")


def is_literal(text: str | None) -> bool:
    return text is None or not GLOB_SIGNS & set(text)


# -- the latest records of a kind, for the closest candidates of an item that failed ---------
