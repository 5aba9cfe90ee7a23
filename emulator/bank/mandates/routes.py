"""v2 mandates: create (EFT, DebiCheck), reset, status and the EFT list."""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from emulator.bank import query
from emulator.bank.auth import bank_caller
from emulator.bank.body import decode
from emulator.bank.common.model import MANDATE_TRANSITIONS
from emulator.bank.mandates import service as mandates
from emulator.bank.mandates.rules import DebiCheckMandateInput, EftMandateInput
from emulator.domain.errors import NotFound
from emulator.http.common import JSON, runtime

KINDS = {"eft": "EFT", "debicheck": "DEBICHECK"}
STATES = tuple(MANDATE_TRANSITIONS)


async def create_eft(request: Request) -> Response:
    caller = await bank_caller(request)
    data = await decode(request, EftMandateInput)
    return JSON(
        await mandates.create_eft(runtime(request), caller.merchant_id, data), status_code=201
    )


async def create_debicheck(request: Request) -> Response:
    caller = await bank_caller(request)
    data = await decode(request, DebiCheckMandateInput)
    found = await mandates.create_debicheck(runtime(request), caller.merchant_id, data)
    return JSON(found, status_code=201)


async def reset(request: Request) -> Response:
    caller = await bank_caller(request)
    found = await mandates.reset(
        runtime(request), caller.merchant_id, request.path_params["mandateId"]
    )
    return JSON(found, status_code=201)


async def status(request: Request) -> Response:
    caller = await bank_caller(request)
    kind = KINDS.get(request.path_params["type"])
    if kind is None:
        raise NotFound()
    found = await mandates.get(
        runtime(request), caller.merchant_id, kind, request.path_params["id"]
    )
    return JSON(found)


def filters(request: Request) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for name in ("externalReference", "bank", "profileCode"):
        value = query.text_param(request, name)
        if value is not None:
            found[name] = value
    state = query.choice_param(request, "state", STATES)
    if state is not None:
        found["state"] = state
    bulk = query.uuid_param(request, "bulkId")
    if bulk is not None:
        found["bulkId"] = bulk
    return found


async def list_eft(request: Request) -> Response:
    caller = await bank_caller(request)
    skip, take = query.paging(request)
    found = await mandates.list_eft(
        runtime(request), caller.merchant_id, filters(request), skip, take
    )
    return JSON(found)
