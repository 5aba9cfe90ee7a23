"""The app's router answers every request as Starlette's scan of the same routes does, the
first time and once it remembers the route of a path (emulator/http/routing.py), through
HTTP: which route answered, 405s, 404s and redirects, under a root path too."""

from __future__ import annotations

import re

import httpx
import pytest
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route, Router

from emulator.http.routing import KEPT, SegmentRouter
from emulator.serving.app import route_table

UNKNOWN = "00000000-0000-4000-8000-000000000000"


def _endpoint(name: str):
    async def answer(request: Request) -> Response:
        return JSONResponse({"route": name, "params": request.path_params})

    return answer


# Overlapping paths in the table's order: a static path after a parameter that matches it, a
# static path before one, the same path under several methods, a typed parameter.
ROUTES = [
    ("/things/", ["POST"]),
    ("/things/", ["GET"]),
    ("/things/{id}/", ["GET"]),
    ("/things/{id}/", ["DELETE"]),
    ("/things/special/", ["GET"]),  # shadowed by /things/{id}/ for GET, not for PUT
    ("/things/special/", ["PUT"]),
    ("/numbers/{n:int}/", ["GET"]),
    ("/numbers/zero/", ["GET"]),
    ("/plain", ["GET"]),
    ("/{section}/x/", ["GET"]),  # a first segment that is a parameter: a candidate everywhere
    ("/p{n:int}/", ["GET"]),  # a prefix that ends inside its first segment
    ("/things/{id}/x/", ["GET"]),
    ("/{section}/y/", ["PUT"]),
    ("/things/y/", ["PUT"]),  # shadowed by /{section}/y/, a route of no first segment
]
REQUESTS = [
    ("POST", "/things/"),
    ("GET", "/things/"),
    ("PUT", "/things/"),  # 405
    ("GET", "/things/special/"),
    ("PUT", "/things/special/"),
    ("DELETE", "/things/special/"),
    ("PATCH", "/things/special/"),  # 405
    ("GET", "/things/abc/"),
    ("GET", "/numbers/7/"),
    ("GET", "/numbers/zero/"),
    ("GET", "/plain"),
    ("GET", "/plain/"),  # a redirect to /plain
    ("GET", "/things"),  # a redirect to /things/
    ("GET", "/nothing/"),  # 404
    ("HEAD", "/things/"),
    ("GET", "/things/x/"),
    ("GET", "/things/abc/x/"),
    ("GET", "/other/x/"),
    ("GET", "/numbers/x/"),  # /{section}/x/, though /numbers/ has routes of its own
    ("PUT", "/things/y/"),
    ("GET", "/p7/"),
    ("GET", "/p/"),  # 404
    ("GET", "/"),  # 404
    ("GET", "/things/special/x/"),
]


def _router(cls: type[Router]) -> Router:
    table = [
        Route(path, _endpoint(f"{i} {path}"), methods=methods)
        for i, (path, methods) in enumerate(ROUTES)
    ]
    return cls(table)


async def _answers(router: Router, root_path: str = "") -> list[tuple[int, str, bytes]]:
    transport = httpx.ASGITransport(app=router, root_path=root_path)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
        out = []
        for method, path in REQUESTS:
            response = await client.request(method, root_path + path)
            out.append(
                (response.status_code, response.headers.get("location", ""), response.content)
            )
        return out


@pytest.mark.parametrize("root_path", ["", "/mounted"])
async def test_answers_as_starlettes_scan_first_and_remembered(root_path):
    starlette = await _answers(_router(Router), root_path)
    router = _router(SegmentRouter)
    first = await _answers(router, root_path)
    again = await _answers(router, root_path)
    assert first == starlette
    assert again == starlette
    assert {status for status, _, _ in starlette} == {200, 307, 404, 405}


async def test_paths_with_parameters_are_not_remembered():
    """Only a path without parameters is kept: ids in paths cannot grow what it keeps."""
    router = _router(SegmentRouter)
    transport = httpx.ASGITransport(app=router)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
        for n in range(KEPT + 10):
            assert (await client.get(f"/things/t{n}/")).json()["params"] == {"id": f"t{n}"}
        assert (await client.get("/plain")).status_code == 200
    assert router._indexed is not None
    assert list(router._indexed[3]) == [("GET", "/plain")]


SAMPLES = {"int": "7", "path": "a/b", "str": "x1", "float": "1.5", "uuid": UNKNOWN}


def _concrete(path: str) -> str:
    """The route's path with each parameter given a sample value of its type."""
    return re.sub(r"{([^}:]+)(?::([^}]+))?}", lambda m: SAMPLES[m.group(2) or "str"], path)


async def test_the_apps_own_table_answers_as_starlettes_scan():
    """Every route of the app's table (echoing which route answered), asked with each method
    at a path of its own: the same route, 405, 404 or redirect as Starlette's scan, twice."""
    table = route_table()
    echo = [
        Route(r.path, _endpoint(f"{i} {r.path}"), methods=sorted(r.methods or ()))
        for i, r in enumerate(table)
        if isinstance(r, Route)
    ]
    assert len(echo) == len(table)  # plain routes only: each echoes which one answered
    paths = [*sorted({_concrete(r.path) for r in echo}), "/api/v1/nothing/", "/_emulator"]
    requests = [(m, p) for p in paths for m in ("GET", "POST", "PUT", "PATCH", "DELETE")]

    async def answers(router: Router) -> list[tuple[int, str, bytes]]:
        transport = httpx.ASGITransport(app=router)
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
            out = []
            for method, path in requests:
                response = await client.request(method, path)
                location = response.headers.get("location", "")
                out.append((response.status_code, location, response.content))
            return out

    starlette = await answers(Router(echo))
    router = SegmentRouter(echo)
    assert await answers(router) == starlette
    assert await answers(router) == starlette
    assert {status for status, _, _ in starlette} >= {200, 404, 405}
