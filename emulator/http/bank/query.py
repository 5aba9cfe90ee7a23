"""v2 query parameters: typed parsing with the dialect's 400 naming the parameter."""

from __future__ import annotations

from starlette.requests import Request

from emulator.domain.errors import BankBadRequest
from emulator.http.common import parse_int

INT32_MAX = 2**31 - 1
DEFAULT_TAKE = 100
MAX_TAKE = 1000


def int_param(
    request: Request, name: str, *, minimum: int = 0, maximum: int = INT32_MAX
) -> int | None:
    raw = request.query_params.get(name)
    if raw is None or raw == "":
        return None
    value = parse_int(raw)
    if value is None:
        raise BankBadRequest(f"The value '{raw}' is not valid for {name}.")
    if not minimum <= value <= maximum:
        raise BankBadRequest(f"{name} must be between {minimum} and {maximum}.")
    return value


def paging(request: Request) -> tuple[int, int]:
    """(skip, take): skip defaults to 0, take to 100 and is at most 1000."""
    skip = int_param(request, "skip") or 0
    take = int_param(request, "take", minimum=1, maximum=MAX_TAKE)
    return skip, DEFAULT_TAKE if take is None else take
