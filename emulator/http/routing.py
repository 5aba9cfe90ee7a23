"""The app's router: Starlette's, with the route of a path without parameters remembered.

Starlette finds a request's route by trying every route in order, a regular expression each:
``POST /api/v1/purchases/`` tried eleven before its own (about 3 % of a purchase's CPU). The
routes are plain ``Route``s whose match depends on the path and the method alone, so the route
a scan found for a path with no parameters (a create, a list, a page of the console) is the
route every later scan of that (method, path) would find: it is kept, and the next request
with them goes straight to it. Paths with parameters (an object's id) are scanned as before,
and so is anything a scan did not answer with a full match (a 405, a 404, a redirect).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from starlette.routing import BaseRoute, Match, Route, Router
from starlette.types import Receive, Scope, Send

KEPT = 1024  # (method, path, root path) remembered; a client sending junk paths cannot grow it


class StaticRouter(Router):
    """``Router`` for a table of plain ``Route``s (``assert``ed), answering as it does."""

    def __init__(self, routes: Sequence[BaseRoute], **options: Any) -> None:
        assert all(type(route) is Route for route in routes), "plain routes only"
        super().__init__(list(routes), **options)
        self._found: dict[tuple[str, str, str], Route] = {}

    async def app(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await super().app(scope, receive, send)
            return
        # what a Route matches: the path under the root path, and the method
        key = (scope["method"], scope["path"], scope.get("root_path", ""))
        route = self._found.get(key)
        if route is not None:
            child: Scope = {
                "endpoint": route.endpoint,
                "path_params": dict(scope.get("path_params", {})),
            }
        else:
            found = self._scan(scope, key)
            if found is None:  # a 405, a 404 or a redirect: Starlette's own answer
                await super().app(scope, receive, send)
                return
            route, child = found
        if "router" not in scope:
            scope["router"] = self
        scope["route"] = route
        scope.update(child)
        await route.handle(scope, receive, send)

    def _scan(self, scope: Scope, key: tuple[str, str, str]) -> tuple[Route, Scope] | None:
        """The first route that fully matches and what it adds to the scope, as Starlette's
        scan finds them (the route kept for the next request when it has no parameters); None
        when no route fully matches."""
        for route in self.routes:
            match, child = route.matches(scope)
            if match is Match.FULL:
                assert isinstance(route, Route)
                if not route.param_convertors:
                    if len(self._found) >= KEPT:
                        self._found.clear()
                    self._found[key] = route
                return route, child
        return None
