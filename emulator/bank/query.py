"""v2 query parameters: typed parsing with the dialect's 400 naming the parameter."""

from __future__ import annotations

from datetime import date

from starlette.requests import Request

from emulator.bank.calendar.rules import parse_instant, sast_date
from emulator.domain.errors import BankBadRequest
from emulator.domain.validation import is_uuid
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


def text_param(request: Request, name: str, *, limit: int = 128) -> str | None:
    raw = request.query_params.get(name)
    if raw is None or raw == "":
        return None
    if len(raw) > limit:
        raise BankBadRequest(f"{name} must be at most {limit} characters.")
    return raw


def bool_param(request: Request, name: str) -> bool | None:
    raw = request.query_params.get(name)
    if raw is None or raw == "":
        return None
    if raw.lower() not in ("true", "false"):
        raise BankBadRequest(f"The value '{raw[:40]}' is not valid for {name}.")
    return raw.lower() == "true"


def choice_param(request: Request, name: str, allowed: tuple[str, ...]) -> str | None:
    raw = text_param(request, name)
    if raw is not None and raw not in allowed:
        raise BankBadRequest(f"{name}: '{raw[:40]}' is not one of {', '.join(allowed)}.")
    return raw


def uuid_param(request: Request, name: str) -> str | None:
    raw = text_param(request, name)
    if raw is not None and not is_uuid(raw):
        raise BankBadRequest(f"The value '{raw[:40]}' is not valid for {name}.")
    return raw


def date_param(request: Request, name: str) -> date | None:
    """A date-time (or date) query value, as its South African date."""
    raw = text_param(request, name)
    if raw is None:
        return None
    parsed = parse_instant(raw)
    if parsed is None:
        raise BankBadRequest(f"The value '{raw[:40]}' is not valid for {name}.")
    return sast_date(parsed)


def instant_param(request: Request, name: str) -> int | None:
    """A date-time query value in epoch microseconds."""
    raw = text_param(request, name)
    if raw is None:
        return None
    parsed = parse_instant(raw)
    if parsed is None:
        raise BankBadRequest(f"The value '{raw[:40]}' is not valid for {name}.")
    return int(parsed.timestamp()) * 1_000_000
