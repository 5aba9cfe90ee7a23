"""Callbacks: register a URL; trigger (re-send) and test (simulate) an EFT collection's."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from emulator.bank.auth import bank_caller
from emulator.bank.body import decode
from emulator.bank.callbacks import service as bank_callbacks
from emulator.bank.callbacks.rules import RegistrationInput, TriggerInput
from emulator.http.common import JSON, runtime


async def register(request: Request) -> Response:
    caller = await bank_caller(request)
    data = await decode(request, RegistrationInput)
    return JSON(await bank_callbacks.register(runtime(request), caller.merchant_id, data))


async def _trigger(request: Request, *, test: bool) -> Response:
    caller = await bank_caller(request)
    data = await decode(request, TriggerInput)
    collection_id = str(request.path_params["collectionId"])
    return JSON(
        await bank_callbacks.trigger(
            runtime(request), caller.merchant_id, collection_id, data, test=test
        )
    )


async def trigger(request: Request) -> Response:
    return await _trigger(request, test=False)


async def test(request: Request) -> Response:
    return await _trigger(request, test=True)
