"""The OpenAPI documents of what this app serves, and their reference page. The documents' modules
are imported by the first request for one (a fifth of what `serve` imported before its first
answer), not when the app starts."""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import Route

from emulator.domain.errors import ControlError
from emulator.http.common import JSON

_CACHE = "openapi_documents"


def _served(request: Request) -> list[tuple[str, str]]:
    return [
        (method, route.path)
        for route in request.app.router.routes
        if isinstance(route, Route)
        for method in route.methods or ()
    ]


def _document(request: Request, name: str | None) -> dict[str, Any]:
    """Built once per app and document; the server is the address the request came to."""
    state = request.app.state
    cache: dict[str | None, dict[str, Any]] | None = getattr(state, _CACHE, None)
    if cache is None:
        cache = {}
        setattr(state, _CACHE, cache)
    if name not in cache:
        from emulator.openapi import document

        cache[name] = document.build(_served(request), name)
    return {**cache[name], "servers": [{"url": str(request.base_url).rstrip("/")}]}


async def openapi(request: Request) -> Response:
    return JSON(_document(request, None))


async def openapi_of(request: Request) -> Response:
    from emulator.openapi import document

    name = request.path_params["name"]
    if name not in document.DOCUMENTS:
        raise ControlError(404, "not_found", f"no document {name[:64]!r}: gateway, bank or control")
    return JSON(_document(request, name))


async def docs(request: Request) -> Response:
    from emulator.openapi import render

    return HTMLResponse(render.page(_document(request, None)))


ROUTES = [
    Route("/openapi.json", openapi, methods=["GET"]),
    Route("/openapi/{name}.json", openapi_of, methods=["GET"]),
    Route("/docs", docs, methods=["GET"]),
]
