"""GET /v2/merchantprofile: the profiles the token's merchant owns, filtered and paged."""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from emulator.bank.auth import bank_caller
from emulator.bank.profiles import service as profiles
from emulator.bank.query import int_param, paging
from emulator.core.merchants.model import INSTRUMENTS
from emulator.domain.errors import BankBadRequest
from emulator.http.common import JSON, runtime

TEXT_FILTERS = ("abbreviatedName", "accountNumber", "profileCode")


def _instruments(raw: str, name: str) -> list[str]:
    values = [v.strip().upper() for v in raw.split(",") if v.strip()]
    for value in values:
        if value not in INSTRUMENTS:
            allowed = ", ".join(INSTRUMENTS)
            raise BankBadRequest(f"{name}: '{value}' is not one of {allowed}.")
    return values


def filters(request: Request) -> dict[str, Any]:
    query = request.query_params
    found: dict[str, Any] = {}
    profile_id = int_param(request, "creditorProfileId")
    if profile_id is not None:
        found["creditorProfileId"] = profile_id
    for name in TEXT_FILTERS:
        if query.get(name):
            found[name] = query[name]
    for name in ("instrument", "instruments"):
        if query.get(name):
            found[name] = _instruments(query[name], name)
    return found


async def list_(request: Request) -> Response:
    caller = await bank_caller(request)
    skip, take = paging(request)
    found = await profiles.list_profiles(
        runtime(request), caller.merchant_id, filters(request), skip, take
    )
    return JSON(found)
