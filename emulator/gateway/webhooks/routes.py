"""Gateway endpoints of /webhooks/, their delivery log and /public_key/."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from emulator.domain import validation
from emulator.domain.errors import ValidationFailed
from emulator.gateway import body as gateway_body
from emulator.gateway.auth import gateway_caller
from emulator.gateway.paging import page_params, page_response, raw_page_response
from emulator.gateway.webhooks import service as webhooks
from emulator.gateway.webhooks import service_deliveries as deliveries_service
from emulator.gateway.webhooks.rules import SOURCE_TYPES, WebhookInput
from emulator.http.common import JSON, runtime


def _webhook_id(request: Request) -> str:
    value: str = request.path_params["id"]
    problem = validation.uuid_field("id", value)
    if problem is not None:
        raise ValidationFailed([problem])
    return value.lower()


async def _body(request: Request) -> WebhookInput:
    return await gateway_body.read(request, WebhookInput)


async def create(request: Request) -> Response:
    caller = await gateway_caller(request)
    webhook = await webhooks.create(runtime(request), caller.merchant_id, await _body(request))
    return JSON(webhook, status_code=201)


async def list_(request: Request) -> Response:
    caller = await gateway_caller(request)
    number, size = page_params(request)
    page = await webhooks.page(runtime(request), caller.merchant_id, number, size)
    return raw_page_response(request, number, page.items, page.has_next)


async def read(request: Request) -> Response:
    caller = await gateway_caller(request)
    webhook = await webhooks.get(runtime(request), caller.merchant_id, _webhook_id(request))
    return JSON(webhook)


async def replace(request: Request) -> Response:
    caller = await gateway_caller(request)
    webhook_id = _webhook_id(request)
    webhook = await webhooks.replace(
        runtime(request), caller.merchant_id, webhook_id, await _body(request)
    )
    return JSON(webhook)


async def patch(request: Request) -> Response:
    caller = await gateway_caller(request)
    webhook_id = _webhook_id(request)
    webhook = await webhooks.patch(
        runtime(request), caller.merchant_id, webhook_id, await _body(request)
    )
    return JSON(webhook)


async def delete(request: Request) -> Response:
    caller = await gateway_caller(request)
    await webhooks.delete(runtime(request), caller.merchant_id, _webhook_id(request))
    return Response(status_code=204)


async def deliveries(request: Request) -> Response:
    """``?id=&source_type=``: the delivery attempts for one object, oldest first."""
    caller = await gateway_caller(request)
    query = request.query_params
    object_id, source_type = query.get("id"), query.get("source_type")
    errors = []
    if not object_id:
        errors.append(validation.required("id"))
    elif (problem := validation.uuid_field("id", object_id)) is not None:
        errors.append(problem)
    if not source_type:
        errors.append(validation.required("source_type"))
    elif source_type not in SOURCE_TYPES:
        allowed = ", ".join(SOURCE_TYPES)
        errors.append(validation.invalid("source_type", f"Must be one of: {allowed}."))
    if errors:
        raise ValidationFailed(errors)
    assert object_id is not None and source_type is not None
    number, size = page_params(request)
    results, has_next = await deliveries_service.of_object(
        runtime(request), caller.merchant_id, object_id.lower(), source_type, number, size
    )
    return page_response(request, number, results, has_next)


async def public_key(request: Request) -> Response:
    """The company key as a JSON string of PEM (signs success callbacks)."""
    caller = await gateway_caller(request)
    return JSON(await webhooks.public_key(runtime(request), caller.merchant_id))
