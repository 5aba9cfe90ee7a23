"""``create_app(runtime)``: the one ASGI app that answers every interface."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware.exceptions import ExceptionMiddleware
from starlette.requests import ClientDisconnect, Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route
from starlette.types import ASGIApp, Receive, Scope, Send

from emulator.bank import errors as bank_errors
from emulator.bank.routes import ROUTES as BANK
from emulator.core.auth import routes as oauth
from emulator.domain.errors import ApiError
from emulator.gateway import errors as gateway_errors
from emulator.gateway.purchases.routes_pages import ROUTES as PAYER_PAGES
from emulator.gateway.routes import PAGES as GATEWAY_PAGES
from emulator.gateway.routes import ROUTES as GATEWAY
from emulator.http.accesslog import AccessLog
from emulator.http.common import JSON
from emulator.http.dialects import Dialect, Dialects
from emulator.http.faults import DROPPED, Faults
from emulator.http.middleware import Front
from emulator.http.routing import SegmentRouter
from emulator.runtime.runtime import Runtime
from emulator.sandbox import errors as control_errors
from emulator.sandbox.console.routes import ROOT as CONSOLE_ROOT
from emulator.sandbox.flows.routes import abandon_runs
from emulator.sandbox.guard import AdminGuard
from emulator.sandbox.routes import ROUTES as CONTROL
from emulator.serving import memory


async def _plain_http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    return JSON({"detail": exc.detail}, status_code=exc.status_code)


async def _plain_server_error(request: Request, exc: Exception) -> Response:
    return JSON({"detail": "Internal Server Error"}, status_code=500)


# Outside every interface (e.g. GET /): Starlette's own plain shape.
PLAIN = Dialect(
    api_error=_plain_http_error, http_error=_plain_http_error, server_error=_plain_server_error
)

DIALECTS = Dialects(
    [
        ("/api/v1/", gateway_errors.DIALECT),
        ("/payouts/", gateway_errors.DIALECT),  # execution_url: a gateway page
        ("/company_statements/", gateway_errors.DIALECT),  # download_url: a gateway page
        ("/v2/", bank_errors.DIALECT),
        ("/oauth2/", oauth.DIALECT),
        ("/_emulator/", control_errors.DIALECT),
    ],
    default=PLAIN,
)


def _under(prefix: str, routes: list[Route]) -> list[BaseRoute]:
    """One flat routing table: a Mount per interface costs every request a second router."""
    return [
        Route(prefix + r.path, r.endpoint, methods=list(r.methods or ()), name=r.name)
        for r in routes
    ]


class EmulatorApp(Starlette):
    """Starlette with one layer of its own in front (``emulator.http.middleware.Front``) instead
    of Starlette's server-error middleware and a stack of middlewares, then Starlette's
    exception layer and the routes. Front keeps the server's own ``send`` in the scope: a
    scenario's ``drop`` closes the connection through it. Where there is no connection (an
    in-process transport), a drop raises what an HTTP client raises when a server hangs up
    without answering."""

    def __init__(self, runtime: Runtime, access_log: AccessLog, **options: Any) -> None:
        super().__init__(**options)
        # the same routes, each request tried only against those of its first path segment
        self.router = SegmentRouter(self.router.routes, lifespan=self.router.lifespan_context)
        self.runtime = runtime
        self.access_log = access_log

    def build_middleware_stack(self) -> ASGIApp:
        handlers = {k: v for k, v in self.exception_handlers.items() if k not in (500, Exception)}
        app: ASGIApp = ExceptionMiddleware(self.router, handlers=handlers, debug=self.debug)
        token = self.runtime.settings.admin_token
        # given on loopback too, it is enforced
        guarded = app if token is None else AdminGuard(app, token=token)
        return Front(
            app,
            guarded,
            runtime=self.runtime,
            faults=Faults(self.runtime, DIALECTS),
            access_log=self.access_log,
            server_error=DIALECTS.server_error,
            api_error=DIALECTS.api_error,
        )

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await super().__call__(scope, receive, send)
        if scope.get(DROPPED):
            raise httpx.RemoteProtocolError("Server disconnected without sending a response.")


# nginx's "client closed request": what the journal says of a client that left in the middle of
# its body (no answer can reach it; nothing went wrong on our side, so nothing is logged).
CLIENT_GONE = 499


async def _client_gone(request: Request, exc: Exception) -> Response:
    return Response(status_code=CLIENT_GONE)


def route_table() -> list[BaseRoute]:
    """Every route the app serves, in matching order (the OpenAPI documents are built from
    it)."""
    return [
        *_under("/api/v1", GATEWAY),
        *GATEWAY_PAGES,
        *_under("/v2", BANK),
        *_under("/oauth2", oauth.ROUTES),
        *_under("/_emulator", CONTROL),
        *_under("/p", PAYER_PAGES),
        *CONSOLE_ROOT,
    ]


def create_app(runtime: Runtime) -> Starlette:
    """The emulator's ASGI app. Its lifespan starts and stops ``runtime`` if nobody else did
    (``httpx.ASGITransport`` runs no lifespan: tests start the runtime themselves)."""

    access_log = AccessLog()

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        owned = not runtime.started
        if owned:
            await runtime.start()
        runtime.served = True  # a real server: deliveries to it go over real HTTP
        # A long-running server hands what it freed back to the system (emulator.serving.memory).
        trimmer = asyncio.get_running_loop().create_task(memory.trim_forever(), name="trim")
        try:
            yield
        finally:
            trimmer.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await trimmer
            await abandon_runs(app)  # flow runs under way stop before the runtime does
            runtime.served = False
            if owned:
                await runtime.stop()
            access_log.flush()

    app = EmulatorApp(
        runtime,
        access_log,
        routes=route_table(),
        exception_handlers={
            ApiError: DIALECTS.api_error,
            HTTPException: DIALECTS.http_error,
            ClientDisconnect: _client_gone,
            Exception: DIALECTS.server_error,
        },
        lifespan=lifespan,
    )
    app.state.runtime = runtime
    runtime.app = app
    return app
