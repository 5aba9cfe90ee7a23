"""Counting what an expectation asks for in SQL, when its patterns are exact: no rows read
into Python, the count and the last one's id."""

from __future__ import annotations

from emulator.domain.delivery_filters import FINAL_ATTEMPT
from emulator.kernel.storage import Tx
from emulator.sandbox.expectations.model import DeliverySpec, EventSpec, RequestSpec
from emulator.sandbox.expectations.model_records import (
    Records,
)
from emulator.sandbox.expectations.repo import (
    Conditions,
    deliveries_where,
    delivery_conditions,
    event_conditions,
    events_where,
    is_literal,
    joined,
    request_conditions,
    requests_where,
)


def _exact(spec: RequestSpec | DeliverySpec | EventSpec) -> Conditions | None:
    """The item's criteria as SQL that matches exactly what the domain matches (None: some
    criterion needs the domain: a pattern, a body or a field subset)."""
    if isinstance(spec, RequestSpec):
        if spec.body is not None or not is_literal(spec.path):
            return None
        out = [c for c in request_conditions(spec) if not c[0].startswith("path")]
        if spec.path is not None:
            bare = spec.path.rstrip("/")
            out.append(("path IN (?, ?)", [bare, bare + "/"]))
        return out
    if isinstance(spec, DeliverySpec):
        if not is_literal(spec.event) or not is_literal(spec.url):
            return None
        out = [
            c
            for c in delivery_conditions(spec)
            if c[0].startswith(("a.", "m.kind", "m.event", "rtrim"))
        ]
        if spec.url is not None:
            out.append(("m.url = ?", [spec.url]))
        if spec.attempt is not None:
            out.append(("a.attempt = ?", [spec.attempt]))
        if spec.outcome != "any":
            out.append(("a.success = ?", [int(spec.outcome == "ok")]))
        if spec.outcome == "exhausted":
            out.append(("a.attempt >= ?", [FINAL_ATTEMPT]))
        return out
    if spec.fields is not None or not is_literal(spec.event):
        return None
    return event_conditions(spec)


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
        table = joined(where)
    total = tx.conn.execute(f"SELECT count(*) FROM {table} WHERE {where}", values).fetchone()[0]
    rows_where = f"{where} ORDER BY {order}"
    if not total:
        return 0, Records()
    if isinstance(spec, RequestSpec):
        return int(total), Records(requests=requests_where(tx, rows_where, values, "''", first))
    if isinstance(spec, DeliverySpec):
        return int(total), Records(deliveries=deliveries_where(tx, rows_where, values, first))
    return int(total), Records(events=events_where(tx, rows_where, values, False, False, first))
