"""Each interface answers errors in its own dialect; this picks the dialect by path.

The app is one Starlette application (one middleware stack: a nested app per interface costs
every request a second stack). Each interface still turns errors into its wire format in one
place, its ``errors`` module; here a handler only chooses which one by the path's prefix.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Match

from emulator.http.common import NOTE_KEY

Handler = Callable[[Request, Exception], Awaitable[Response]]


def allowed_methods(request: Request) -> list[str]:
    """Every method some route takes at this path. Each method of a path is its own route, so
    the one Starlette found only knows its own (a 405 must list them all)."""
    methods: set[str] = set()
    for route in request.app.router.routes:
        match, _ = route.matches(request.scope)
        if match is not Match.NONE:
            methods.update(getattr(route, "methods", None) or ())
    return sorted(methods)


@dataclass(frozen=True)
class Dialect:
    api_error: Handler  # emulator.domain.errors.ApiError
    http_error: Handler  # starlette's HTTPException: unknown paths (404), wrong methods (405)
    server_error: Handler  # anything else: a bug, never bad input


class Dialects:
    def __init__(self, by_prefix: list[tuple[str, Dialect]], default: Dialect) -> None:
        self._by_prefix = by_prefix
        self._default = default

    def of(self, path: str) -> Dialect:
        for prefix, dialect in self._by_prefix:
            if path == prefix.rstrip("/") or path.startswith(prefix):
                return dialect
        return self._default

    async def api_error(self, request: Request, exc: Exception) -> Response:
        reason = getattr(exc, "reason", None)
        if reason:  # the journal says why; the answer stays the interface's
            request.scope[NOTE_KEY] = reason
        return await self.of(request.url.path).api_error(request, exc)

    async def http_error(self, request: Request, exc: Exception) -> Response:
        response = await self.of(request.url.path).http_error(request, exc)
        if response.status_code == 405:
            response.headers["Allow"] = ", ".join(allowed_methods(request))
        return response

    async def server_error(self, request: Request, exc: Exception) -> Response:
        return await self.of(request.url.path).server_error(request, exc)
