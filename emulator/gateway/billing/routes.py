"""Gateway endpoints of /billing_templates/ (templates, invoices, subscribers) and /billing/."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from emulator.gateway import body as gateway_body
from emulator.gateway.auth import gateway_caller
from emulator.gateway.billing import service as billing
from emulator.gateway.billing import service_subscribers as billing_subscribers
from emulator.gateway.billing.model import InvoicesInput, SubscriberInput, TemplateInput
from emulator.gateway.paging import page_params, raw_page_response
from emulator.gateway.purchases.routes import base_url, purchase_id
from emulator.http.common import JSON, runtime


def _template_id(request: Request) -> str:
    return purchase_id(request, "id")  # a uuid path parameter, lower-cased


def _subscriber_id(request: Request) -> str:
    return purchase_id(request, "subscriber_id")


async def _template_body(request: Request) -> TemplateInput:
    return await gateway_body.read(request, TemplateInput)


async def _subscriber_body(request: Request) -> SubscriberInput:
    return await gateway_body.read(request, SubscriberInput)


# -- templates -------------------------------------------------------------------------------


async def create(request: Request) -> Response:
    caller = await gateway_caller(request)
    t = await billing.create(runtime(request), caller.merchant_id, await _template_body(request))
    return JSON(t, status_code=201)


async def list_(request: Request) -> Response:
    caller = await gateway_caller(request)
    number, size = page_params(request)
    page = await billing.page(runtime(request), caller.merchant_id, number, size)
    return raw_page_response(request, number, page.items, page.has_next)


async def read(request: Request) -> Response:
    caller = await gateway_caller(request)
    return JSON(await billing.get(runtime(request), caller.merchant_id, _template_id(request)))


async def replace(request: Request) -> Response:
    caller = await gateway_caller(request)
    template_id = _template_id(request)
    body = await _template_body(request)
    return JSON(await billing.replace(runtime(request), caller.merchant_id, template_id, body))


async def patch(request: Request) -> Response:
    caller = await gateway_caller(request)
    template_id = _template_id(request)
    body = await _template_body(request)
    return JSON(await billing.patch(runtime(request), caller.merchant_id, template_id, body))


async def delete(request: Request) -> Response:
    caller = await gateway_caller(request)
    await billing.delete(runtime(request), caller.merchant_id, _template_id(request))
    return Response(status_code=204)


# -- invoices --------------------------------------------------------------------------------


async def send_invoice(request: Request) -> Response:
    caller = await gateway_caller(request)
    template_id = _template_id(request)
    body = await _subscriber_body(request)
    p = await billing.send_invoice(
        runtime(request), caller.merchant_id, template_id, body, base_url(request)
    )
    return JSON(p)


async def invoices(request: Request) -> Response:
    """``POST /billing/``: the ids of the purchases made, in the order of the clients."""
    caller = await gateway_caller(request)
    body = await gateway_body.read(request, InvoicesInput)
    ids = await billing.send_invoices(runtime(request), caller.merchant_id, body, base_url(request))
    return JSON(ids)


# -- subscribers -----------------------------------------------------------------------------


async def add_subscriber(request: Request) -> Response:
    caller = await gateway_caller(request)
    template_id = _template_id(request)
    body = await _subscriber_body(request)
    s, p = await billing_subscribers.add(
        runtime(request), caller.merchant_id, template_id, body, base_url(request)
    )
    return JSON({"billing_template_client": s, "purchase": p})


async def subscribers(request: Request) -> Response:
    caller = await gateway_caller(request)
    template_id = _template_id(request)
    number, size = page_params(request)
    page = await billing_subscribers.page(
        runtime(request), caller.merchant_id, template_id, number, size
    )
    return raw_page_response(request, number, page.items, page.has_next)


def _template_of(request: Request) -> str | None:
    """The template the path names (``/billing_templates/{id}/clients/{subscriber_id}/``), or
    None on the OpenAPI document's ``/billing_templates/clients/{subscriber_id}/``."""
    return _template_id(request) if "id" in request.path_params else None


async def subscriber(request: Request) -> Response:
    caller = await gateway_caller(request)
    template_id = _template_of(request)
    s = await billing_subscribers.get(
        runtime(request), caller.merchant_id, _subscriber_id(request), template_id
    )
    return JSON(s)


async def patch_subscriber(request: Request) -> Response:
    caller = await gateway_caller(request)
    template_id = _template_of(request)
    subscriber_id = _subscriber_id(request)
    body = await _subscriber_body(request)
    s = await billing_subscribers.patch(
        runtime(request), caller.merchant_id, subscriber_id, template_id, body
    )
    return JSON(s)


async def delete_subscriber(request: Request) -> Response:
    caller = await gateway_caller(request)
    template_id = _template_of(request)
    subscriber_id = _subscriber_id(request)
    await billing_subscribers.delete(
        runtime(request), caller.merchant_id, subscriber_id, template_id
    )
    return Response(status_code=204)
