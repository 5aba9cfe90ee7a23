"""``GET /_emulator/merchants/{company_id}/flow.yaml``: what happened to a merchant as a flow
file that replays it on a fresh merchant (the transformation: ``emulator/flows/record.py``)."""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from emulator.domain.errors import ControlError
from emulator.flows.record import Call, Final, Session, record
from emulator.http.common import runtime
from emulator.http.control.flow_moves import moves_of
from emulator.kernel.clock import parse_iso, to_us
from emulator.kernel.journal import KEEP
from emulator.repos import objects as objects_repo
from emulator.services import deliveries, merchants, objects

MAX_OBJECTS = 1000  # of each kind, the newest
MAX_DELIVERIES = 10_000  # attempts read, the newest
EVENTS = 500  # of each object, read for its statuses


async def flow_yaml(request: Request) -> Response:
    rt = runtime(request)
    company_id = request.path_params["company_id"]
    found = [m for m in await merchants.list_all(rt) if m["company_id"] == company_id]
    if not found:
        raise ControlError(404, "merchant_not_found", "no merchant with this id")
    merchant = found[0]
    timeline = await rt.enter(company_id)  # what is due has happened
    entries = await rt.journal.list(merchant_id=company_id, limit=KEEP, before_id=None, after_id=0)
    calls = [
        Call(
            id=e["id"],
            at_us=_us(e["time"]),
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
    moves = moves_of(rt).of(company_id)
    now_us = timeline.clock.now_us()
    instants = [c.at_us for c in calls] + [m.at_us for m in moves]
    start_us = min(instants, default=now_us)
    finals = await _finals(rt, company_id)
    sent: dict[tuple[str, str], int] = {}
    for attempt in await deliveries.recent(rt, company_id, None, None, MAX_DELIVERIES, None):
        if attempt["success"]:
            key = (str(attempt["kind"]), str(attempt["event_type"]))
            sent[key] = sent.get(key, 0) + 1
    name = request.query_params.get("name") or f"recorded-{company_id[:8]}"
    url = str(request.base_url).rstrip("/")
    session = Session(name, merchant, calls, moves, start_us, now_us, finals, sent, url)
    return Response(
        record(session),
        media_type="application/yaml",
        headers={"Content-Disposition": f'attachment; filename="{company_id}.flow.yaml"'},
    )


def _us(iso_text: str) -> int:
    return to_us(parse_iso(iso_text))


async def _finals(rt: Any, company_id: str) -> list[Final]:
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


ROUTES = [Route("/merchants/{company_id}/flow.yaml", flow_yaml, methods=["GET"])]
