"""Control plane: flows. ``GET /_emulator/flows`` lists the library (``--flows DIR``, else the
shipped ``flows/``); ``POST /_emulator/flows/runs`` starts a run in the background (the body:
the flow's YAML, or JSON ``{"name": <library name>}`` or ``{"yaml": <text>}``, optionally
``"keep": true``) and answers 202 with its id; ``GET /_emulator/flows/runs`` lists the runs,
numbered, newest first; ``GET /_emulator/flows/runs/{id}`` is one run's state and its steps so
far. A bad flow is a 400 ``invalid_flow`` naming its line, column and key path."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from emulator.domain.errors import ControlError, MalformedBody
from emulator.flows import library
from emulator.flows.model import Flow
from emulator.flows.parse import FlowError, parse
from emulator.flows.runs import Runs, view
from emulator.http.common import JSON, parse_json, read_body, runtime

_STATE = "flow_runs"
JSON_TYPES = ("application/json", "")


def runs_of(app: Any) -> Runs:
    """The app's runs (made on first use)."""
    found: Runs | None = getattr(app.state, _STATE, None)
    if found is None:
        found = Runs()
        setattr(app.state, _STATE, found)
    return found


async def abandon_runs(app: Any) -> None:
    """What a stopping server does with its runs under way (see ``emulator.flows.runs``)."""
    found: Runs | None = getattr(app.state, _STATE, None)
    if found is not None:
        await found.abandon()


def _folder(request: Request) -> Path:
    return runtime(request).settings.flows or library.default_folder()


def _routes(request: Request) -> dict[str, list[tuple[str, str]]]:
    return library.routes_of(request.app.router.routes)


async def listing(request: Request) -> Response:
    folder = _folder(request)
    flows = library.listing(folder, _routes(request))
    return JSON({"folder": str(folder), "flows": flows})


async def _flow(request: Request) -> tuple[Flow, bool]:
    raw = await read_body(request)
    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    routes = _routes(request)
    if kind not in JSON_TYPES or not raw.lstrip().startswith(b"{"):
        return _parsed(raw, routes), False
    try:
        body = parse_json(raw)
    except MalformedBody as exc:
        raise ControlError(400, "malformed_json", exc.detail) from exc
    if not isinstance(body, dict) or len(set(body) & {"name", "yaml"}) != 1:
        raise ControlError(400, "invalid", 'give {"name": <a library flow>} or {"yaml": <text>}')
    unknown = sorted(set(body) - {"name", "yaml", "keep"})
    if unknown:
        message = f"'{unknown[0]}' is not a field: give name or yaml, and keep"
        raise ControlError(400, "invalid", message)
    keep = body.get("keep", False)
    if not isinstance(keep, bool):
        raise ControlError(400, "invalid", "'keep' must be true or false")
    if "yaml" in body:
        if not isinstance(body["yaml"], str):
            raise ControlError(400, "invalid", "'yaml' must be the flow's text")
        return _parsed(body["yaml"], routes), keep
    name = body["name"]
    if not isinstance(name, str) or not name:
        raise ControlError(400, "invalid", "'name' must be a flow's name in the library")
    try:
        found = library.find(_folder(request), name, routes)
    except FlowError as exc:
        raise ControlError(400, "invalid_flow", str(exc)) from None
    if found is None:
        raise ControlError(404, "flow_not_found", f"no flow {name[:64]!r} in the library")
    return found, keep


def _parsed(raw: str | bytes, routes: dict[str, list[tuple[str, str]]]) -> Flow:
    try:
        return parse(raw, routes)
    except FlowError as exc:
        raise ControlError(400, "invalid_flow", str(exc)) from None


async def start(request: Request) -> Response:
    flow, keep = await _flow(request)
    rt = runtime(request)
    runs = runs_of(request.app)
    run = runs.start(flow, request.app, rt.settings.admin_token, rt.settings.base_url, keep)
    return JSON(view(run), status_code=202)


async def runs_list(request: Request) -> Response:
    return JSON({"runs": runs_of(request.app).listing()})


async def one_run(request: Request) -> Response:
    run = runs_of(request.app).get(request.path_params["id"])
    if run is None:
        raise ControlError(404, "run_not_found", "no such flow run on this server")
    return JSON(view(run))


ROUTES = [
    Route("/flows", listing, methods=["GET"]),
    Route("/flows/runs", start, methods=["POST"]),
    Route("/flows/runs", runs_list, methods=["GET"]),
    Route("/flows/runs/{id}", one_run, methods=["GET"]),
]
