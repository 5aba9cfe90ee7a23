"""Control-plane endpoints of scenarios: list, load (YAML body), activate, deactivate."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from emulator.domain.errors import ControlError
from emulator.http.common import JSON, read_body, runtime
from emulator.sandbox.body import json_body
from emulator.sandbox.scenarios import service as scenarios
from emulator.scenarios.rules import NAME

SCENARIO_BODY_LIMIT = 256 * 1024


async def list_(request: Request) -> Response:
    return JSON(await scenarios.listing(runtime(request)))


async def load(request: Request) -> Response:
    raw = await read_body(request, limit=SCENARIO_BODY_LIMIT)
    if not raw.strip():
        raise ControlError(400, "invalid_scenario", "the body must be a scenario in YAML")
    scenario = await scenarios.define(runtime(request), raw)
    return JSON(
        {
            "name": scenario.name,
            "description": scenario.description,
            "rules": len(scenario.rules),
            "points": sorted({r.point for r in scenario.rules}),
            "active": False,
            "notes": list(scenario.notes),
        },
        status_code=201,
    )


async def _merchant(request: Request) -> str | None:
    body = await json_body(request)
    unknown = set(body) - {"merchant"}
    if unknown:
        raise ControlError(400, "invalid", f"unknown field(s): {', '.join(sorted(unknown))}")
    merchant = body.get("merchant")
    if merchant is not None and (not isinstance(merchant, str) or not merchant):
        raise ControlError(400, "invalid", "'merchant' must be a company_id (a string)")
    return merchant


def _name(request: Request) -> str:
    name: str = request.path_params["name"]
    if not NAME.match(name):
        raise ControlError(
            400, "invalid", "scenario names are 1-64 lowercase letters, digits, '.', '_' or '-'"
        )
    return name


async def activate(request: Request) -> Response:
    merchant = await _merchant(request)
    name = _name(request)
    return JSON(await scenarios.activate(runtime(request), name, merchant))


async def deactivate(request: Request) -> Response:
    merchant = await _merchant(request)
    name = _name(request)
    return JSON(await scenarios.deactivate(runtime(request), name, merchant))


ROUTES = [
    Route("/scenarios", list_, methods=["GET"]),
    Route("/scenarios", load, methods=["POST"]),
    Route("/scenarios/{name}/activate", activate, methods=["POST"]),
    Route("/scenarios/{name}/deactivate", deactivate, methods=["POST"]),
]
