"""POST /v2/clientcallbackurl/: register a callback URL."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from emulator.domain.callbacks import RegistrationInput
from emulator.http.bank.auth import bank_caller
from emulator.http.bank.body import decode
from emulator.http.common import JSON, runtime
from emulator.services import bank_callbacks


async def register(request: Request) -> Response:
    caller = await bank_caller(request)
    data = await decode(request, RegistrationInput)
    return JSON(await bank_callbacks.register(runtime(request), caller.merchant_id, data))
