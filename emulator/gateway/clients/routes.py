"""Gateway endpoints of /clients/: decode, one service call, encode."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from emulator.gateway import body as gateway_body
from emulator.gateway.auth import gateway_caller
from emulator.gateway.clients import service as clients
from emulator.gateway.clients.rules import ClientInput
from emulator.gateway.paging import page_params, page_response, raw_page_response
from emulator.http.common import JSON, RawJSON, runtime


def client_id_param(request: Request) -> str:
    """The path's client id, lower case; 400 when it is not a UUID."""
    return gateway_body.path_uuid(request, "id")


async def _body(request: Request) -> ClientInput:
    return await gateway_body.read(request, ClientInput)


async def create(request: Request) -> Response:
    caller = await gateway_caller(request)
    client = await clients.create(runtime(request), caller.merchant_id, await _body(request))
    return JSON(client, status_code=201)


async def list_(request: Request) -> Response:
    caller = await gateway_caller(request)
    number, size = page_params(request)
    email = request.query_params.get("email") or None  # empty: no filter, as django-filter
    page = await clients.page(runtime(request), caller.merchant_id, email, number, size)
    return raw_page_response(request, number, page.items, page.has_next)


async def read(request: Request) -> Response:
    caller = await gateway_caller(request)
    raw = await clients.get_raw(runtime(request), caller.merchant_id, client_id_param(request))
    return RawJSON(raw)


async def replace(request: Request) -> Response:
    caller = await gateway_caller(request)
    client_id = client_id_param(request)
    client = await clients.replace(
        runtime(request), caller.merchant_id, client_id, await _body(request)
    )
    return JSON(client)


async def patch(request: Request) -> Response:
    caller = await gateway_caller(request)
    client_id = client_id_param(request)
    client = await clients.patch(
        runtime(request), caller.merchant_id, client_id, await _body(request)
    )
    return JSON(client)


async def delete(request: Request) -> Response:
    caller = await gateway_caller(request)
    await clients.delete(runtime(request), caller.merchant_id, client_id_param(request))
    return Response(status_code=204)


async def feed(request: Request) -> Response:
    caller = await gateway_caller(request)
    client_id = client_id_param(request)
    number, size = page_params(request)
    entries, has_next = await clients.feed(
        runtime(request), caller.merchant_id, client_id, number, size
    )
    return page_response(request, number, entries, has_next)
