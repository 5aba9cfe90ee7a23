"""v2 EFT payments and account verification."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from emulator.bank.auth import bank_caller
from emulator.bank.body import decode
from emulator.bank.payments import service as payments
from emulator.bank.payments.rules import EftPaymentInput
from emulator.bank.verification import service as verification
from emulator.http.common import JSON, runtime


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
