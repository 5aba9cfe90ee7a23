"""The app's router tries a request only against the routes of its path's first segment:
for every route of the table and every method, it finds what trying them all finds."""

from __future__ import annotations

import re

import pytest
from starlette.routing import BaseRoute, Match, Route

from emulator.http.routing import SegmentRouter
from emulator.serving.app import route_table

METHODS = ("GET", "POST", "PUT", "DELETE", "PATCH")


def _linear(routes: list[BaseRoute], scope: dict) -> tuple[BaseRoute | None, Match]:
    """What Starlette's router picks: the first full match, else the first partial one."""
    partial = None
    for route in routes:
        match, _ = route.matches(scope)
        if match is Match.FULL:
            return route, match
        if match is Match.PARTIAL and partial is None:
            partial = route
    return partial, Match.PARTIAL if partial is not None else Match.NONE


def _segmented(router: SegmentRouter, scope: dict) -> tuple[BaseRoute | None, Match]:
    return _linear(list(router.candidates(scope["path"])), scope)


def _paths() -> list[str]:
    """A concrete path of every route, and a few that match nothing."""
    paths = [
        re.sub(r"\{[^}]+\}", "x1", route.path)
        for route in route_table()
        if isinstance(route, Route)
    ]
    return sorted({*paths, "/", "/nothing/here", "/api", "/_emulator", "/payouts/x1/execute/x1"})


@pytest.fixture(scope="module")
def router() -> SegmentRouter:
    return SegmentRouter(route_table())


def test_every_route_and_method_is_found_as_by_trying_them_all(router):
    routes = route_table()
    checked = 0
    for path in _paths():
        for method in METHODS:
            scope = {"type": "http", "path": path, "method": method, "root_path": ""}
            found, match = _segmented(router, scope)
            expected, expected_match = _linear(routes, scope)
            assert (getattr(found, "path", None), match) == (
                getattr(expected, "path", None),
                expected_match,
            ), (method, path)
            if found is not None:
                assert found.endpoint is expected.endpoint  # type: ignore[union-attr]
            checked += 1
    assert checked >= 5 * 130


def test_a_path_past_the_gateway_is_tried_against_few_routes(router):
    """A payout's execution page no longer waits behind the gateway's whole API."""
    candidates = router.candidates("/payouts/x1/execute/x1/")
    assert len(candidates) < 10
    assert len(router.candidates("/_emulator/purchases/x1/pay")) < len(route_table())
