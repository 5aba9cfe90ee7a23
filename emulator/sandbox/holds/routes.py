"""``/_emulator/merchants/{company_id}/holds``: stop a delivery or a decision before it
happens, look at it, then release it (edited), drop, duplicate or delay it
(``emulator/sandbox/holds/service.py``)."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from emulator.http.common import JSON, runtime
from emulator.sandbox.body import json_body
from emulator.sandbox.holds import service as holds
from emulator.sandbox.holds import service_act

ACTIONS = ("release", "drop", "duplicate", "delay")


async def create(request: Request) -> Response:
    body = await json_body(request)
    company_id = request.path_params["company_id"]
    return JSON(await holds.create(runtime(request), company_id, body), status_code=201)


async def list_holds(request: Request) -> Response:
    return JSON(await holds.list_holds(runtime(request), request.path_params["company_id"]))


async def show(request: Request) -> Response:
    company_id, hold_id = request.path_params["company_id"], request.path_params["id"]
    return JSON(await holds.show(runtime(request), company_id, hold_id))


def _action(action: str) -> Route:
    async def act(request: Request) -> Response:
        body = await json_body(request)
        company_id, hold_id = request.path_params["company_id"], request.path_params["id"]
        return JSON(await service_act.act(runtime(request), company_id, hold_id, action, body))

    path = "/merchants/{company_id}/holds/{id}/" + action
    return Route(path, act, methods=["POST"], name=f"hold_{action}")


ROUTES = [
    Route("/merchants/{company_id}/holds", create, methods=["POST"]),
    Route("/merchants/{company_id}/holds", list_holds, methods=["GET"]),
    Route("/merchants/{company_id}/holds/{id}", show, methods=["GET"]),
    *[_action(action) for action in ACTIONS],
]
