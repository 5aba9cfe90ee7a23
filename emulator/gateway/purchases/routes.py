"""Gateway endpoints of /purchases/: decode, one service call, encode."""

from __future__ import annotations

from typing import TypeVar

import msgspec
from starlette.requests import Request
from starlette.responses import Response

from emulator.domain.errors import InvalidRecurringToken, ValidationFailed
from emulator.domain.validation import invalid, is_uuid
from emulator.gateway import body as gateway_body
from emulator.gateway.auth import gateway_caller
from emulator.gateway.purchases import service as purchases
from emulator.gateway.purchases import service_money
from emulator.gateway.purchases.input import PurchaseInput
from emulator.gateway.purchases.input_actions import AmountBody, ChargeBody, MarkAsPaidBody
from emulator.http.common import JSON, RawJSON, runtime
from emulator.http.outcome import forced_of, keep

T = TypeVar("T")


def purchase_id(request: Request, name: str = "id") -> str:
    return gateway_body.path_uuid(request, name)


def base_url(request: Request) -> str:
    """The URL of the app's root as this request reached it; kept by what it is made of
    (``Runtime.base_urls``): Starlette builds it anew, parsing the Host header and the URL,
    on each call."""
    scope = request.scope
    host = next((value for name, value in scope["headers"] if name == b"host"), None)
    key = (
        scope.get("scheme"),
        host,
        scope.get("server"),
        scope.get("app_root_path"),
        scope.get("root_path"),
    )
    known = runtime(request).base_urls
    found = known.get(key)
    if found is None:
        found = known[key] = str(request.base_url).rstrip("/")
    return found


async def _optional(request: Request, model: type[T]) -> T:
    """An optional JSON body: none (or whitespace) means the defaults."""
    return await gateway_body.read(request, model, optional=True)


async def create(request: Request) -> Response:
    caller = await gateway_caller(request)
    forced = forced_of(request, "purchase")
    data = await gateway_body.read(request, PurchaseInput)
    raw = await purchases.create(runtime(request), caller.merchant_id, data, base_url(request))
    if forced is not None:
        await keep(request, forced, caller.merchant_id, _created_id.decode(raw).id)
    return RawJSON(raw, status_code=201)


class _Created(msgspec.Struct):
    id: str


_created_id = msgspec.json.Decoder(_Created)


async def read(request: Request) -> Response:
    caller = await gateway_caller(request)
    raw = await purchases.get_raw(runtime(request), caller.merchant_id, purchase_id(request))
    return RawJSON(raw)


async def cancel(request: Request) -> Response:
    caller = await gateway_caller(request)
    return JSON(await purchases.cancel(runtime(request), caller.merchant_id, purchase_id(request)))


async def release(request: Request) -> Response:
    caller = await gateway_caller(request)
    p = await purchases.release(runtime(request), caller.merchant_id, purchase_id(request))
    return JSON(p)


async def capture(request: Request) -> Response:
    caller = await gateway_caller(request)
    pid = purchase_id(request)
    body = await _optional(request, AmountBody)
    return JSON(await service_money.capture(runtime(request), caller.merchant_id, pid, body.amount))


async def charge(request: Request) -> Response:
    caller = await gateway_caller(request)
    pid = purchase_id(request)
    body = await _optional(request, ChargeBody)
    token = body.recurring_token
    if not isinstance(token, str) or not is_uuid(token):
        raise InvalidRecurringToken(field="recurring_token")
    p = await service_money.charge(runtime(request), caller.merchant_id, pid, token.lower())
    return JSON(p)


async def refund(request: Request) -> Response:
    caller = await gateway_caller(request)
    pid = purchase_id(request)
    body = await _optional(request, AmountBody)
    payment = await service_money.refund(runtime(request), caller.merchant_id, pid, body.amount)
    return JSON(payment)


async def delete_recurring_token(request: Request) -> Response:
    caller = await gateway_caller(request)
    pid = purchase_id(request)
    return JSON(await purchases.delete_recurring_token(runtime(request), caller.merchant_id, pid))


async def mark_as_paid(request: Request) -> Response:
    caller = await gateway_caller(request)
    pid = purchase_id(request)
    body = await _optional(request, MarkAsPaidBody)
    paid_on = body.paid_on
    if paid_on is not None and not 0 <= paid_on <= 253_402_300_799:
        raise ValidationFailed([invalid("paid_on", "Enter a Unix timestamp (seconds).")])
    when = int(paid_on) if paid_on is not None else None
    return JSON(await purchases.mark_as_paid(runtime(request), caller.merchant_id, pid, when))


async def resend_invoice(request: Request) -> Response:
    caller = await gateway_caller(request)
    pid = purchase_id(request)
    return JSON(await purchases.resend_invoice(runtime(request), caller.merchant_id, pid))
