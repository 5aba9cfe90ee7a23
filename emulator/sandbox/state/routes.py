"""State as a readable file: export it, import one, load a named one (``--states DIR``)."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from emulator.domain.errors import ControlError
from emulator.http.common import JSON, read_body, runtime
from emulator.sandbox.state import service_export as state_export
from emulator.sandbox.state import service_load as state_load

MEDIA = {"yaml": "application/yaml", "json": "application/json"}


def _base_url(request: Request) -> str:
    """Where the caller reaches the emulator: the page URLs of purchases a file makes."""
    return str(request.base_url).rstrip("/")


async def export(request: Request) -> Response:
    query = request.query_params
    fmt = query.get("format", "yaml")
    if fmt not in MEDIA:
        raise ControlError(400, "invalid", "'format' must be yaml or json")
    merchant = query.get("merchant") or None
    doc = await state_export.export(runtime(request), merchant)
    text = state_export.render(doc, fmt)
    return Response(text, media_type=f"{MEDIA[fmt]}; charset=utf-8")


async def import_(request: Request) -> Response:
    raw = await read_body(request, limit=state_load.MAX_BYTES)
    if not raw.strip():
        raise ControlError(400, "invalid_state", "the body must be a state file (YAML or JSON)")
    json_hint = "json" in request.headers.get("content-type", "")
    loaded = await state_load.load_bytes(runtime(request), raw, _base_url(request), json_hint)
    return JSON(loaded)


async def states(request: Request) -> Response:
    folder = runtime(request).settings.states
    return JSON({"states": state_load.named_states(folder), "folder": str(folder or "") or None})


async def load_state(request: Request) -> Response:
    rt = runtime(request)
    name = request.path_params["name"]
    return JSON(await state_load.load_named(rt, rt.settings.states, name, _base_url(request)))


ROUTES = [
    Route("/export", export, methods=["GET"]),
    Route("/import", import_, methods=["POST"]),
    Route("/states", states, methods=["GET"]),
    Route("/states/{name}", load_state, methods=["POST"]),
]
