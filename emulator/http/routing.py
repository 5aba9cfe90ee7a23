"""``SegmentRouter``: Starlette's router, answering as its scan of every route does while trying
only the routes that can match, and going straight to the route of a path it has seen.

The app serves one flat table of some 170 routes (``serving.app.route_table``), and Starlette
tries them in order, a regular expression each: ``POST /api/v1/purchases/`` tried eleven
before its own (about 5 % of a purchase's CPU), a control-plane pay a hundred and eighteen.

- A route whose path begins with a literal segment (``/api/...``, ``/_emulator/...``) can only
  match a path that begins with it; a route that does not (a parameter there, or not a
  ``Route``) may match any. Each first segment gets the routes that may match it, in the
  table's order (``candidates``), so the first full match (and the first partial one, a 405)
  is the one the whole table gives: the answer is the same, found sooner.
- Among those, a ``Route`` is tried only when the path starts with its text before its first
  parameter (its pattern is that text, then the parameters, anchored).
- The route a scan fully matched for a (method, path) when it has no parameters (a create, a
  list, the health check) is what every later scan of them finds: it is kept, and the next
  such request goes straight to it.
"""

from __future__ import annotations

from collections.abc import Sequence

from starlette._utils import get_route_path
from starlette.datastructures import URL
from starlette.responses import RedirectResponse
from starlette.routing import BaseRoute, Match, Route, Router
from starlette.types import Receive, Scope, Send

KEPT = 1024  # (method, path) pairs remembered: only paths of routes without parameters

# (a route's text before its first parameter, "" when it is not a Route: tried always; route)
Candidates = list[tuple[str, BaseRoute]]
# (the table it was made of, the candidates by first segment, those of any, the routes seen)
Index = tuple[tuple[int, int], dict[str, Candidates], Candidates, dict[tuple[str, str], Route]]


def _first_segment(path: str) -> str:
    return path[1:].split("/", 1)[0]


def _literal_segment(route: BaseRoute) -> str | None:
    """The literal first segment every path this route matches begins with, else None."""
    if not isinstance(route, Route) or not route.path.startswith("/"):
        return None
    segment = _first_segment(route.path)
    return None if "{" in segment else segment


def _literal_prefix(route: BaseRoute) -> str:
    """What every path this route matches starts with ("" when that is not known)."""
    return route.path.split("{", 1)[0] if isinstance(route, Route) else ""


class SegmentRouter(Router):
    _indexed: Index | None = None

    def candidates(self, path: str) -> Sequence[BaseRoute]:
        """The routes, in order, that may match ``path`` (a route path: no root path)."""
        _, by_segment, anywhere, _ = self._fresh()
        return [route for _, route in by_segment.get(_first_segment(path), anywhere)]

    def _fresh(self) -> Index:
        """The index of the table as it is (made again if routes were added)."""
        indexed = self._indexed
        if indexed is None or indexed[0] != (id(self.routes), len(self.routes)):
            indexed = self._indexed = self._index()
        return indexed

    def _index(self) -> Index:
        literal = [(route, _literal_segment(route)) for route in self.routes]
        segments = {segment for _, segment in literal if segment is not None}
        by_segment = {
            segment: [(_literal_prefix(r), r) for r, s in literal if s in (segment, None)]
            for segment in segments
        }
        anywhere = [(_literal_prefix(r), r) for r, s in literal if s is None]
        return (id(self.routes), len(self.routes)), by_segment, anywhere, {}

    async def app(self, scope: Scope, receive: Receive, send: Send) -> None:
        """``Router.app`` over ``candidates`` instead of every route, a path seen before
        going straight to its route."""
        if scope["type"] != "http":
            await super().app(scope, receive, send)
            return
        if "router" not in scope:
            scope["router"] = self
        route_path = get_route_path(scope)
        key = (scope["method"], route_path)
        _, by_segment, anywhere, found = self._fresh()
        known = found.get(key)
        if known is not None:
            scope["route"] = known
            scope.update(endpoint=known.endpoint, path_params=dict(scope.get("path_params", {})))
            await known.handle(scope, receive, send)
            return
        partial = None
        partial_scope: Scope = {}
        for prefix, route in by_segment.get(_first_segment(route_path), anywhere):
            if not route_path.startswith(prefix):
                continue
            match, child_scope = route.matches(scope)
            if match is Match.FULL:
                if isinstance(route, Route) and not route.param_convertors:
                    if len(found) >= KEPT:
                        found.clear()
                    found[key] = route
                scope["route"] = route
                scope.update(child_scope)
                await route.handle(scope, receive, send)
                return
            if match is Match.PARTIAL and partial is None:
                partial, partial_scope = route, child_scope
        if partial is not None:  # a route of this path, another method: 405
            scope["route"] = partial
            scope.update(partial_scope)
            await partial.handle(scope, receive, send)
            return
        if self.redirect_slashes and route_path != "/":
            redirect_scope = dict(scope)
            if route_path.endswith("/"):
                redirect_scope["path"] = redirect_scope["path"].rstrip("/")
            else:
                redirect_scope["path"] = redirect_scope["path"] + "/"
            for route in self.candidates(get_route_path(redirect_scope)):
                match, _ = route.matches(redirect_scope)
                if match is not Match.NONE:
                    response = RedirectResponse(url=str(URL(scope=redirect_scope)))
                    await response(scope, receive, send)
                    return
        await self.default(scope, receive, send)
