"""v2 EFT payments and account verification."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from emulator.domain.payments import EftPaymentInput
from emulator.http.bank.auth import bank_caller
from emulator.http.bank.body import decode
from emulator.http.common import JSON, runtime
from emulator.services import payments, verification


async def create(request: Request) -> Response:
    caller = await bank_caller(request)
    data = await decode(request, EftPaymentInput)
    return JSON(await payments.create(runtime(request), caller.merchant_id, data), status_code=201)


async def status(request: Request) -> Response:
    caller = await bank_caller(request)
    return JSON(await payments.get(runtime(request), caller.merchant_id, request.path_params["id"]))


async def validate_account(request: Request) -> Response:
    caller = await bank_caller(request)
    data = await decode(request, verification.ValidateInput)
    return JSON(await verification.validate(runtime(request), caller.merchant_id, data))
