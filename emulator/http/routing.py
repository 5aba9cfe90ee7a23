"""``SegmentRouter``: Starlette's router, matching a request only against the routes that can
match its path's first segment.

The app serves one flat table of some 170 routes (``serving.app.route_table``), and Starlette
tries them in order: a payout's execution page, after the gateway's API, was matched against
53 routes first (some 100 µs of a request's time), a control-plane action against more than
a hundred. A route whose path begins with a literal segment (``/api/...``, ``/payouts/...``,
``/_emulator/...``) can only match a path that begins with it; a route that does not (a
parameter there, or not a ``Route``) may match any. Each first segment gets the routes that
may match it, in the table's order, so the first full match (and the first partial one, a
405) is the one the whole table gives: the answer is the same, found sooner.
"""

from __future__ import annotations

from collections.abc import Sequence

from starlette._utils import get_route_path
from starlette.datastructures import URL
from starlette.responses import RedirectResponse
from starlette.routing import BaseRoute, Match, Route, Router
from starlette.types import Receive, Scope, Send


def _first_segment(path: str) -> str:
    return path[1:].split("/", 1)[0]


def _literal_segment(route: BaseRoute) -> str | None:
    """The literal first segment every path this route matches begins with, else None."""
    if not isinstance(route, Route) or not route.path.startswith("/"):
        return None
    segment = _first_segment(route.path)
    return None if "{" in segment else segment


class SegmentRouter(Router):
    _indexed: tuple[tuple[int, int], dict[str, list[BaseRoute]], list[BaseRoute]] | None = None

    def candidates(self, path: str) -> Sequence[BaseRoute]:
        """The routes, in order, that may match ``path`` (a route path: no root path)."""
        indexed = self._indexed
        if indexed is None or indexed[0] != (id(self.routes), len(self.routes)):
            indexed = self._indexed = self._index()
        _, by_segment, anywhere = indexed
        return by_segment.get(_first_segment(path), anywhere)

    def _index(self) -> tuple[tuple[int, int], dict[str, list[BaseRoute]], list[BaseRoute]]:
        literal = [(route, _literal_segment(route)) for route in self.routes]
        segments = {segment for _, segment in literal if segment is not None}
        by_segment = {
            segment: [r for r, s in literal if s in (segment, None)] for segment in segments
        }
        anywhere = [r for r, s in literal if s is None]
        return (id(self.routes), len(self.routes)), by_segment, anywhere

    async def app(self, scope: Scope, receive: Receive, send: Send) -> None:
        """``Router.app`` over ``candidates`` instead of every route."""
        if scope["type"] != "http":
            await super().app(scope, receive, send)
            return
        if "router" not in scope:
            scope["router"] = self
        route_path = get_route_path(scope)
        partial = None
        partial_scope: Scope = {}
        for route in self.candidates(route_path):
            match, child_scope = route.matches(scope)
            if match is Match.FULL:
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
