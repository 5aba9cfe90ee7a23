"""Gateway lists: ``{"results": [...], "next": url|null, "previous": url|null}``, no count."""

from __future__ import annotations

from collections.abc import Sequence

from starlette.requests import Request
from starlette.responses import Response

from emulator.domain.errors import NotFound
from emulator.http.common import JSON, RawJSON, parse_int

DEFAULT_PAGE_SIZE = 20
MAX_PAGE_SIZE = 100
MAX_PAGE = 1_000_000


def page_params(request: Request) -> tuple[int, int]:
    """(page number, page size) from ``?page=`` and ``?page_size=``; a bad page is a 404."""
    number = parse_int(request.query_params.get("page", "1"))
    size = parse_int(request.query_params.get("page_size", str(DEFAULT_PAGE_SIZE)))
    if number is None or not 1 <= number <= MAX_PAGE:
        raise NotFound("Invalid page.")
    if size is None or size < 1:
        raise NotFound("Invalid page size.")
    return number, min(size, MAX_PAGE_SIZE)


def _links(request: Request, number: int, has_next: bool) -> tuple[str | None, str | None]:
    next_url = str(request.url.include_query_params(page=number + 1)) if has_next else None
    previous = str(request.url.include_query_params(page=number - 1)) if number > 1 else None
    return next_url, previous


def page_response(
    request: Request, number: int, results: Sequence[object], has_next: bool
) -> Response:
    if number > 1 and not results:
        raise NotFound("Invalid page.")
    next_url, previous = _links(request, number, has_next)
    return JSON({"results": results, "next": next_url, "previous": previous})


def raw_page_response(
    request: Request, number: int, items: list[bytes], has_next: bool
) -> Response:
    """Like ``page_response`` for objects already stored as JSON."""
    if number > 1 and not items:
        raise NotFound("Invalid page.")
    next_url, previous = _links(request, number, has_next)
    links = JSON(None).render({"next": next_url, "previous": previous})
    body = b'{"results":[' + b",".join(items) + b"]," + links[1:]
    return RawJSON(body)
