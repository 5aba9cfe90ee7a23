"""Control plane: act as the debtor's bank (mandates) and as the bank (collections, payments)."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from emulator.bank.collections import service_settle as collection_outcomes
from emulator.bank.mandates import service as mandates
from emulator.bank.payments import service as payments
from emulator.domain.errors import ControlError
from emulator.http.common import JSON, on_clock_of, runtime
from emulator.sandbox.body import json_body

STATUSES = ("COMPLETED", "UNPAID", "REJECTED", "DISPUTED")


async def _status(request: Request) -> tuple[str, str | None]:
    """The optional ``{"status": ..., "reasonCode": ...}`` body; COMPLETED by default."""
    body = await json_body(request)
    status = body.get("status", "COMPLETED")
    if status not in STATUSES:
        raise ControlError(400, "invalid", f"'status' must be one of {', '.join(STATUSES)}")
    code = body.get("reasonCode")
    if code is not None and not isinstance(code, str):
        raise ControlError(400, "invalid", "'reasonCode' must be a string of two digits")
    return str(status), code


async def authorise(request: Request) -> Response:
    rt = runtime(request)
    await on_clock_of(request, "bank_mandates")
    return JSON(await mandates.decide_now(rt, request.path_params["id"], "AUTHENTICATED"))


async def reject(request: Request) -> Response:
    rt = runtime(request)
    await on_clock_of(request, "bank_mandates")
    return JSON(await mandates.decide_now(rt, request.path_params["id"], "REJECTED"))


async def settle_collection(request: Request) -> Response:
    status, code = await _status(request)
    await on_clock_of(request, "bank_collections")
    found = await collection_outcomes.settle(
        runtime(request), request.path_params["id"], status, code
    )
    return JSON(found)


async def settle_payment(request: Request) -> Response:
    status, code = await _status(request)
    await on_clock_of(request, "bank_payments")
    found = await payments.settle(runtime(request), request.path_params["id"], status, code)
    return JSON(found)
