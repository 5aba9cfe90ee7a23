"""The bank interface's routes: one table."""

from __future__ import annotations

from typing import TYPE_CHECKING

from starlette.applications import Starlette
from starlette.routing import Route, Router

from emulator.http.bank import profiles
from emulator.http.bank.errors import HANDLERS

if TYPE_CHECKING:
    from emulator.runtime import Runtime

ROUTES = [
    Route("/merchantprofile", profiles.list_, methods=["GET"]),
    Route("/merchantprofile/", profiles.list_, methods=["GET"]),
]


def bank_app(rt: Runtime) -> Starlette:
    app = Starlette(routes=ROUTES, exception_handlers=HANDLERS)
    # Both spellings are real paths here; no redirects between them.
    assert isinstance(app.router, Router)
    app.router.redirect_slashes = False
    app.state.runtime = rt
    return app
