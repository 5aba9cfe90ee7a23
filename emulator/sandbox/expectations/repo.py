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

from emulator.domain.delivery_filters import FINAL_ATTEMPT
from emulator.kernel.outbox import EVENTS
from emulator.kernel.storage import Tx
from emulator.sandbox.expectations.model import DeliverySpec, EventSpec, RequestSpec, TransitionSpec
from emulator.sandbox.expectations.model_records import (
    DeliveryRecord,
    EventRecord,
    Records,
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


def _request(spec: RequestSpec) -> Conditions:
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


def _delivery(spec: DeliverySpec) -> Conditions:
    """Not by outcome nor attempt: every attempt of a message that may match is kept."""
    out: Conditions = []
    if spec.object_id is not None:
        out.append(("a.object_id = ?", [spec.object_id]))
    if spec.event is not None and _literal(spec.event):
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


def _event(spec: EventSpec) -> Conditions:
    out = _object(spec)
    if spec.event is not None and _literal(spec.event):  # "+": the object's index leads
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
    narrow, params = _narrowed([_request(s) for s in specs])
    body = "request_body" if any(s.body is not None for s in specs) else "''"
    return _requests(tx, f"merchant_id = ?{narrow} ORDER BY id", [merchant_id, *params], body)


def _requests(
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
    narrow, params = _narrowed([_delivery(s) for s in specs])
    objects = _object_ids(specs)
    if objects:
        where = f"a.object_id IN ({_marks(objects)}) AND a.merchant_id = ?"
        params = [*objects, merchant_id, *params]
    else:  # the messages' merchant index leads (by event type when the items all say one)
        where, params = (
            "m.merchant_id = ? AND a.merchant_id = ?",
            [merchant_id, merchant_id, *params],
        )
    return _deliveries(tx, f"{where}{narrow} ORDER BY a.id", params)


def _joined(where: str) -> str:
    """Attempts and their messages: from the messages (their merchant index) unless the
    attempts' object index leads."""
    if where.startswith("a."):
        return "delivery_attempts a JOIN delivery_messages m ON m.id = a.message_id"
    return "delivery_messages m CROSS JOIN delivery_attempts a ON a.message_id = m.id"


def _deliveries(
    tx: Tx, where: str, params: list[object], limit: int = MAX_ROWS
) -> list[DeliveryRecord]:
    rows = tx.conn.execute(
        "SELECT a.id, a.at_us, m.id, m.event_type, m.object_type, m.object_id, m.kind, m.url,"
        f" a.attempt, a.status, a.error, a.success FROM {_joined(where)}"
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
    narrow, params = _narrowed([*(_event(s) for s in specs), *(_object(t) for t in transitions)])
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
    return _events(tx, f"{where}{narrow} ORDER BY seq", params, status, payloads)


def _events(
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


def _literal(text: str | None) -> bool:
    return text is None or not GLOB_SIGNS & set(text)


def _exact(spec: RequestSpec | DeliverySpec | EventSpec) -> Conditions | None:
    """The item's criteria as SQL that matches exactly what the domain matches (None: some
    criterion needs the domain: a pattern, a body or a field subset)."""
    if isinstance(spec, RequestSpec):
        if spec.body is not None or not _literal(spec.path):
            return None
        out = [c for c in _request(spec) if not c[0].startswith("path")]
        if spec.path is not None:
            bare = spec.path.rstrip("/")
            out.append(("path IN (?, ?)", [bare, bare + "/"]))
        return out
    if isinstance(spec, DeliverySpec):
        if not _literal(spec.event) or not _literal(spec.url):
            return None
        out = [c for c in _delivery(spec) if c[0].startswith(("a.", "m.kind", "m.event", "rtrim"))]
        if spec.url is not None:
            out.append(("m.url = ?", [spec.url]))
        if spec.attempt is not None:
            out.append(("a.attempt = ?", [spec.attempt]))
        if spec.outcome != "any":
            out.append(("a.success = ?", [int(spec.outcome == "ok")]))
        if spec.outcome == "exhausted":
            out.append(("a.attempt >= ?", [FINAL_ATTEMPT]))
        return out
    if spec.fields is not None or not _literal(spec.event):
        return None
    return _event(spec)


def counted(
    tx: Tx, merchant_id: str, spec: RequestSpec | DeliverySpec | EventSpec, first: int
) -> tuple[int, Records] | None:
    """How many of the merchant's records match ``spec``, and the first ``first`` of them;
    None when SQL cannot decide it alone."""
    conditions = _exact(spec)
    if conditions is None:
        return None
    narrow = "".join(f" AND ({sql})" for sql, _ in conditions)
    params: list[object] = [p for _, ps in conditions for p in ps]
    table, order = "outbox", "seq"
    if isinstance(spec, RequestSpec):
        table, order = "requests", "id"
    elif isinstance(spec, DeliverySpec):
        order = "a.id"
    column = "a." if isinstance(spec, DeliverySpec) else ""
    if not isinstance(spec, RequestSpec) and spec.object_id is not None:
        # the object's index leads (as in ``deliveries`` and ``events``)
        where = f"{column}object_id = ? AND {column}merchant_id = ?"
        if isinstance(spec, EventSpec):
            where += " AND object_type <> 'client'"
        values = [spec.object_id, merchant_id, *params]
    elif isinstance(spec, DeliverySpec):
        where, values = (
            "m.merchant_id = ? AND a.merchant_id = ?",
            [merchant_id, merchant_id, *params],
        )
    else:
        where, values = "merchant_id = ?", [merchant_id, *params]
    where += narrow
    if isinstance(spec, DeliverySpec):
        table = _joined(where)
    total = tx.conn.execute(f"SELECT count(*) FROM {table} WHERE {where}", values).fetchone()[0]
    rows_where = f"{where} ORDER BY {order}"
    if not total:
        return 0, Records()
    if isinstance(spec, RequestSpec):
        return int(total), Records(requests=_requests(tx, rows_where, values, "''", first))
    if isinstance(spec, DeliverySpec):
        return int(total), Records(deliveries=_deliveries(tx, rows_where, values, first))
    return int(total), Records(events=_events(tx, rows_where, values, False, False, first))


# -- the latest records of a kind, for the closest candidates of an item that failed ---------


def tail_requests(tx: Tx, merchant_id: str, limit: int) -> list[RequestRecord]:
    where = f"merchant_id = ? ORDER BY id DESC LIMIT {int(limit)}"
    return _requests(tx, f"id IN (SELECT id FROM requests WHERE {where}) ORDER BY id",
                     [merchant_id], "request_body")  # fmt: skip


def tail_deliveries(tx: Tx, merchant_id: str, limit: int) -> list[DeliveryRecord]:
    latest = (
        "SELECT id FROM delivery_attempts WHERE merchant_id = ?"
        f" ORDER BY id DESC LIMIT {int(limit)}"
    )
    return _deliveries(tx, f"a.id IN ({latest}) ORDER BY a.id", [merchant_id])


def tail_events(tx: Tx, merchant_id: str, limit: int) -> list[EventRecord]:
    latest = f"SELECT seq FROM outbox WHERE merchant_id = ? ORDER BY seq DESC LIMIT {int(limit)}"
    return _events(tx, f"seq IN ({latest}) ORDER BY seq", [merchant_id], True, True)


def created_us(tx: Tx, merchant_id: str) -> int | None:
    row = tx.one("SELECT created_us FROM merchants WHERE id = ?", (merchant_id,))
    return None if row is None else int(row[0])


def journal_rows(tx: Tx, merchant_id: str, limit: int) -> list[dict[str, object]]:
    """The merchant's latest journal entries, whole (for an HTTP Archive), oldest first."""
    rows = tx.all(
        "SELECT id, at_us, interface, method, path, query, status, request_body, response_body,"
        " duration_us FROM requests WHERE merchant_id = ? ORDER BY id DESC LIMIT ?",
        (merchant_id, limit),
    )
    return [dict(r) for r in reversed(rows)]


def delivery_rows(tx: Tx, merchant_id: str, limit: int) -> list[dict[str, object]]:
    """The merchant's latest delivery attempts with what they sent, oldest first."""
    rows = tx.all(
        "SELECT a.id, a.at_us, a.attempt, a.status, a.error, a.success, a.duration_us,"
        " m.event_type, m.object_id, m.kind, m.url, m.headers, m.body"
        " FROM delivery_attempts a JOIN delivery_messages m ON m.id = a.message_id"
        " WHERE a.merchant_id = ? ORDER BY a.id DESC LIMIT ?",
        (merchant_id, limit),
    )
    return [dict(r) for r in reversed(rows)]
