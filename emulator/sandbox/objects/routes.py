"""A merchant's objects as the QA console reads them: a kind's list (filter by status and
id, search, sort, counted and paged), one object with its status history, events, deliveries
and jobs (by kind and id, or by id alone: Find by id); re-send a delivery."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from emulator.domain.errors import ControlError
from emulator.http.common import JSON, parse_int, runtime
from emulator.sandbox.objects import service as objects

MAX_FILTER = 128  # characters of a status, id or search filter
MAX_OFFSET = 10**9


def _filter(request: Request, name: str) -> str | None:
    value = request.query_params.get(name)
    if value is None or value == "":
        return None
    if len(value) > MAX_FILTER:
        raise ControlError(400, "invalid", f"'{name}' must be at most {MAX_FILTER} characters")
    return value


async def listed(request: Request) -> Response:
    query = request.query_params
    limit = parse_int(query.get("limit", "100"))
    if limit is None or not 1 <= limit <= 1000:
        raise ControlError(400, "invalid", "'limit' must be an integer from 1 to 1000")
    offset = parse_int(query.get("offset", "0"))
    if offset is None or not 0 <= offset <= MAX_OFFSET:
        raise ControlError(400, "invalid", f"'offset' must be an integer from 0 to {MAX_OFFSET}")
    sort = query.get("sort", "newest")
    if sort not in objects.SORTS:
        raise ControlError(400, "invalid", f"'sort' must be one of {', '.join(objects.SORTS)}")
    kind = request.path_params["kind"]
    asked = {"status": _filter(request, "status"), "id": _filter(request, "id"),
             "q": _filter(request, "q"), "limit": limit, "offset": offset,
             "sort": sort}  # fmt: skip
    count, found = await objects.paged(
        runtime(request), request.path_params["company_id"], kind, asked
    )
    return JSON({"kind": kind, "count": count, "offset": offset, "objects": found})


async def any_kind(request: Request) -> Response:
    return JSON(await objects.found(runtime(request), request.path_params["id"]))


async def find(request: Request) -> Response:
    """Find by id as a search: a miss is an answer (``object`` null), not an error."""
    object_id = request.query_params.get("id", "")
    try:
        found = await objects.found(runtime(request), object_id)
    except ControlError as error:
        if error.status != 404:
            raise
        return JSON({"id": object_id, "object": None})
    return JSON({"id": object_id, "object": found})


async def detail(request: Request) -> Response:
    object_id = request.path_params["id"]
    if not 0 < len(object_id) <= MAX_FILTER:
        raise ControlError(404, "not_found", "no object with this id")
    return JSON(await objects.detail(runtime(request), request.path_params["kind"], object_id))


async def resend(request: Request) -> Response:
    attempt_id = parse_int(request.path_params["id"])
    if attempt_id is None or not 0 < attempt_id < 2**63:
        raise ControlError(404, "not_found", "no delivery attempt with this id")
    return JSON(await objects.resend(runtime(request), attempt_id), status_code=201)


ROUTES = [
    Route("/merchants/{company_id}/objects/{kind}", listed, methods=["GET"]),
    Route("/objects/{id}", any_kind, methods=["GET"]),
    Route("/find", find, methods=["GET"]),
    Route("/objects/{kind}/{id}", detail, methods=["GET"]),
    Route("/deliveries/{id}/resend", resend, methods=["POST"]),
]
