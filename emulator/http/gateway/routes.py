"""The gateway's routes: one table."""

from __future__ import annotations

from typing import TYPE_CHECKING

from starlette.applications import Starlette
from starlette.routing import Route

from emulator.http.gateway import clients
from emulator.http.gateway.errors import HANDLERS

if TYPE_CHECKING:
    from emulator.runtime import Runtime

ROUTES = [
    Route("/clients/", clients.create, methods=["POST"]),
    Route("/clients/", clients.list_, methods=["GET"]),
    Route("/clients/{id}/", clients.read, methods=["GET"]),
    Route("/clients/{id}/", clients.replace, methods=["PUT"]),
    Route("/clients/{id}/", clients.patch, methods=["PATCH"]),
    Route("/clients/{id}/", clients.delete, methods=["DELETE"]),
    Route("/clients/{id}/recurring_tokens/", clients.recurring_tokens, methods=["GET"]),
    Route("/clients/{id}/feed/", clients.feed, methods=["GET"]),
]


def gateway_app(rt: Runtime) -> Starlette:
    app = Starlette(routes=ROUTES, exception_handlers=HANDLERS)
    app.state.runtime = rt
    return app
