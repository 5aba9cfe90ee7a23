"""``GET /_emulator/merchants/{company_id}/flow.yaml``: what happened to a merchant as a flow
file that replays it on a fresh merchant (what is read: ``emulator/flows/session.py``; the
transformation: ``emulator/flows/record.py``)."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from emulator.flows.record import record
from emulator.flows.session import gather
from emulator.http.common import runtime
from emulator.sandbox.flows.routes_moves import moves_of


async def flow_yaml(request: Request) -> Response:
    rt = runtime(request)
    company_id = request.path_params["company_id"]
    name = request.query_params.get("name") or f"recorded-{company_id[:8]}"
    url = str(request.base_url).rstrip("/")
    session = await gather(rt, company_id, moves_of(rt).of(company_id), name, url)
    return Response(
        record(session),
        media_type="application/yaml",
        headers={"Content-Disposition": f'attachment; filename="{company_id}.flow.yaml"'},
    )


ROUTES = [Route("/merchants/{company_id}/flow.yaml", flow_yaml, methods=["GET"])]
