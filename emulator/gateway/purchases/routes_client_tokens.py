"""Gateway endpoints of /clients/{id}/recurring_tokens/: the client's saved payment
credentials, which are purchases (decode, one service call, encode)."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from emulator.gateway import body as gateway_body
from emulator.gateway.auth import gateway_caller
from emulator.gateway.clients.routes import client_id_param
from emulator.gateway.paging import page_params, page_response
from emulator.gateway.purchases import service_client_tokens
from emulator.http.common import JSON, runtime


async def recurring_tokens(request: Request) -> Response:
    caller = await gateway_caller(request)
    client_id = client_id_param(request)
    number, size = page_params(request)
    found, has_next = await service_client_tokens.recurring_tokens(
        runtime(request), caller.merchant_id, client_id, number, size
    )
    return page_response(request, number, found, has_next)


def _token_id(request: Request) -> str:
    return gateway_body.path_uuid(request, "token")


async def recurring_token(request: Request) -> Response:
    caller = await gateway_caller(request)
    client_id, token_id = client_id_param(request), _token_id(request)
    token = await service_client_tokens.recurring_token(
        runtime(request), caller.merchant_id, client_id, token_id
    )
    return JSON(token)


async def delete_recurring_token(request: Request) -> Response:
    caller = await gateway_caller(request)
    client_id, token_id = client_id_param(request), _token_id(request)
    await service_client_tokens.delete_recurring_token(
        runtime(request), caller.merchant_id, client_id, token_id
    )
    return Response(status_code=204)
