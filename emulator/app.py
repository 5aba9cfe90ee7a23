"""``create_app(runtime)``: the one ASGI app that answers every interface."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Mount

from emulator.http.bank.routes import bank_app
from emulator.http.common import JSON
from emulator.http.control.routes import control_app
from emulator.http.gateway.routes import gateway_app
from emulator.http.middleware import EmulatorMiddleware
from emulator.http.oauth import oauth_app
from emulator.runtime import Runtime


async def _not_found(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    return JSON({"detail": exc.detail}, status_code=exc.status_code)


def create_app(runtime: Runtime) -> Starlette:
    """The emulator's ASGI app. Its lifespan starts and stops ``runtime`` if nobody else did
    (``httpx.ASGITransport`` runs no lifespan: tests start the runtime themselves)."""

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        owned = not runtime.started
        if owned:
            await runtime.start()
        try:
            yield
        finally:
            if owned:
                await runtime.stop()

    app = Starlette(
        routes=[
            Mount("/api/v1", app=gateway_app(runtime)),
            Mount("/v2", app=bank_app(runtime)),
            Mount("/oauth2", app=oauth_app(runtime)),
            Mount("/_emulator", app=control_app(runtime)),
        ],
        middleware=[Middleware(EmulatorMiddleware, runtime=runtime)],
        exception_handlers={HTTPException: _not_found},
        lifespan=lifespan,
    )
    app.state.runtime = runtime
    return app
