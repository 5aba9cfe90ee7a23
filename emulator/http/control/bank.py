"""Control plane: act as the debtor's bank (mandates) and as the bank (collections, payments)."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from emulator.http.common import JSON, on_clock_of, runtime
from emulator.http.control.body import json_body
from emulator.services import collections, mandates, payments
from emulator.services.control import ControlError

STATUSES = ("COMPLETED", "UNPAID", "REJECTED", "DISPUTED")


async def _status(request: Request) -> str:
    """The optional ``{"status": ...}`` body; COMPLETED by default."""
    body = await json_body(request)
    status = body.get("status", "COMPLETED")
    if status not in STATUSES:
        raise ControlError(400, "invalid", f"'status' must be one of {', '.join(STATUSES)}")
    return str(status)


async def authorise(request: Request) -> Response:
    rt = runtime(request)
    await on_clock_of(request, "bank_mandates")
    return JSON(await mandates.decide_now(rt, request.path_params["id"], "AUTHENTICATED"))


async def reject(request: Request) -> Response:
    rt = runtime(request)
    await on_clock_of(request, "bank_mandates")
    return JSON(await mandates.decide_now(rt, request.path_params["id"], "REJECTED"))


async def settle_collection(request: Request) -> Response:
    status = await _status(request)
    await on_clock_of(request, "bank_collections")
    return JSON(await collections.settle(runtime(request), request.path_params["id"], status))


async def settle_payment(request: Request) -> Response:
    status = await _status(request)
    await on_clock_of(request, "bank_payments")
    return JSON(await payments.settle(runtime(request), request.path_params["id"], status))
