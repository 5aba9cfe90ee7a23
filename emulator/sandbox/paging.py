"""Paging of the control plane's feeds (journal, deliveries): `limit`, `before`, `after`."""

from __future__ import annotations

from starlette.requests import Request

from emulator.domain.errors import ControlError
from emulator.http.common import parse_int


def page_query(request: Request) -> tuple[int, int | None, int | None]:
    """`limit` (1-1000, default 100), and the optional `before` and `after` ids. Newest first;
    with `after`, the entries after that id, oldest first, so a live tail reads forward."""
    query = request.query_params
    limit = parse_int(query.get("limit", "100"))
    if limit is None or not 1 <= limit <= 1000:
        raise ControlError(400, "invalid", "'limit' must be an integer from 1 to 1000")
    found: list[int | None] = []
    for name in ("before", "after"):
        value = parse_int(query.get(name))
        if name in query and (value is None or value < 0):
            raise ControlError(400, "invalid", f"'{name}' must be an entry id")
        found.append(value)
    return limit, found[0], found[1]
