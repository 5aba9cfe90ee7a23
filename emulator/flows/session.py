"""What the recorder reads of a merchant (``GET .../flow.yaml``): its journaled calls, its
objects' final statuses and the deliveries answered 2xx, gathered into a ``Session`` that
``emulator/flows/record.py`` turns into a flow file. The moves of the other side are kept by
the HTTP layer (``emulator/sandbox/flows/routes_moves.py``) and handed in."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from emulator.core.merchants import service as merchants
from emulator.domain.errors import ControlError
from emulator.flows.record import Call, Final, Move, Session
from emulator.kernel.clock import parse_iso, to_us
from emulator.kernel.journal import KEEP
from emulator.sandbox.deliveries import service as deliveries
from emulator.sandbox.objects import repo as objects_repo
from emulator.sandbox.objects import service as objects

if TYPE_CHECKING:
    from emulator.runtime.runtime import Runtime

MAX_OBJECTS = 1000  # of each kind, the newest
MAX_DELIVERIES = 10_000  # attempts read, the newest
EVENTS = 500  # of each object, read for its statuses


async def gather(rt: Runtime, company_id: str, moves: list[Move], name: str, url: str) -> Session:
    """The merchant's session, once what is due on its clock has happened; a 404 in the
    control plane's dialect for an unknown merchant."""
    found = [m for m in await merchants.list_all(rt) if m["company_id"] == company_id]
    if not found:
        raise ControlError(404, "merchant_not_found", "no merchant with this id")
    timeline = await rt.enter(company_id)  # what is due has happened
    entries = await rt.journal.list(merchant_id=company_id, limit=KEEP, before_id=None, after_id=0)
    calls = [
        Call(
            id=e["id"],
            at_us=to_us(parse_iso(e["time"])),
            interface=e["interface"],
            method=e["method"],
            path=e["path"],
            query=e["query"],
            status=e["status"],
            request_body=e["request_body"],
            response_body=e["response_body"],
        )
        for e in entries
    ]
    now_us = timeline.clock.now_us()
    start_us = min([c.at_us for c in calls] + [m.at_us for m in moves], default=now_us)
    sent: dict[tuple[str, str], int] = {}
    for attempt in await deliveries.recent(rt, company_id, None, None, MAX_DELIVERIES, None):
        if attempt["success"]:
            key = (str(attempt["kind"]), str(attempt["event_type"]))
            sent[key] = sent.get(key, 0) + 1
    finals = await _finals(rt, company_id)
    return Session(name, found[0], calls, moves, start_us, now_us, finals, sent, url)


async def _finals(rt: Any, company_id: str) -> list[Final]:
    """Each object's status now, and whether one of its events shows it."""
    out: list[Final] = []
    for kind, (_, has_status) in objects_repo.KINDS.items():
        if not has_status:
            continue
        for obj in await objects.listed(rt, company_id, kind, None, None, MAX_OBJECTS):
            status, object_id = obj.get("status"), obj.get("id")
            if not isinstance(status, str) or object_id is None:
                continue
            oid = str(object_id)
            events = await rt.db.read(
                lambda tx, oid=oid: objects_repo.events(tx, company_id, oid, EVENTS)
            )
            shown = any(e.get("status") == status for e in events)
            out.append(Final(oid, status, shown))
    return out
