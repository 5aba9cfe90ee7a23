"""Control plane: a merchant's DebiCheck authentication windows."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from emulator.http.common import JSON, runtime
from emulator.sandbox.actors import service_windows as debicheck_windows
from emulator.sandbox.body import json_body


async def read_windows(request: Request) -> Response:
    company_id = request.path_params["company_id"]
    return JSON(await debicheck_windows.get(runtime(request), company_id))


async def set_windows(request: Request) -> Response:
    body = await json_body(request)
    company_id = request.path_params["company_id"]
    return JSON(await debicheck_windows.put(runtime(request), company_id, body))


ROUTES = [
    Route("/merchants/{company_id}/debicheck-windows", read_windows, methods=["GET"]),
    Route("/merchants/{company_id}/debicheck-windows", set_windows, methods=["PUT"]),
]
