"""The app's router: Starlette's, answering as its scan does without trying every route.

Starlette finds a request's route by trying every route in order, a regular expression each:
``POST /api/v1/purchases/`` tried eleven before its own (about 5 % of a purchase's CPU), a
control-plane pay a hundred and eighteen. The routes are plain ``Route``s whose match depends
on the path and the method alone, and a route can only match a path that starts with its text
before its first parameter (its pattern is that text, then the parameters, anchored). So:

- the route a scan found for a path with no parameters (a create, a list) is the route every
  later scan of that (method, path) finds: it is kept, and the next such request goes straight
  to it;
- a scan tries only the routes whose text before the first parameter the path starts with, in
  the table's order: those of its first segment (``/_emulator/``), and the few whose first
  segment is itself a parameter.

Anything a scan does not answer with a full match (a 405, a 404, a redirect), and a request
under a root path, goes through Starlette's own scan of every route, as before.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from starlette.routing import BaseRoute, Match, Route, Router
from starlette.types import Receive, Scope, Send

KEPT = 1024  # (method, path, root path) remembered; a client sending junk paths cannot grow it

Candidates = list[tuple[str, Route]]  # (the route's text before its first parameter, route)


def literal_prefix(path: str) -> str:
    """What every path the route matches starts with."""
    return path.split("{", 1)[0]


def _first_segment(path: str) -> str | None:
    """The path's first segment when a "/" follows it (``/a/b`` -> ``a``), else None."""
    rest = path[1:]
    return rest.split("/", 1)[0] if "/" in rest else None


class StaticRouter(Router):
    """``Router`` for a table of plain ``Route``s (``assert``ed), answering as it does."""

    def __init__(self, routes: Sequence[BaseRoute], **options: Any) -> None:
        assert all(type(route) is Route for route in routes), "plain routes only"
        super().__init__(list(routes), **options)
        self._found: dict[tuple[str, str, str], Route] = {}
        prefixed = [(literal_prefix(r.path), r) for r in self.routes if isinstance(r, Route)]
        # a route whose prefix ends inside its first segment may match a path of any first
        # segment: it is a candidate of every bucket, in its place
        keys = {_first_segment(prefix) for prefix, _ in prefixed} - {None}
        self._buckets: dict[str | None, Candidates] = {
            key: [(p, r) for p, r in prefixed if _first_segment(p) in (key, None)]
            for key in (*keys, None)
        }

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
            found = None if key[2] else self._scan(scope, key)
            if found is None:  # a 405, a 404, a redirect or a root path: Starlette's own scan
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
        path = key[1]
        candidates = self._buckets.get(_first_segment(path), self._buckets[None])
        for prefix, route in candidates:
            if not path.startswith(prefix):
                continue
            match, child = route.matches(scope)
            if match is Match.FULL:
                if not route.param_convertors:
                    if len(self._found) >= KEPT:
                        self._found.clear()
                    self._found[key] = route
                return route, child
        return None
