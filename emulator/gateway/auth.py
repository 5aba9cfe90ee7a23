"""Gateway authentication: ``Authorization: Bearer <API key or access token>``."""

from __future__ import annotations

from starlette.requests import Request

from emulator.core.auth.service import Caller
from emulator.domain.errors import MissingAuthorization
from emulator.http.common import CALLER_KEY, bearer, no_bearer, runtime


async def gateway_caller(request: Request) -> Caller:
    token = bearer(request)
    if token is None:
        raise MissingAuthorization(no_bearer(request, "API key or access token"))
    caller = await runtime(request).credentials.gateway_caller(token)
    request.scope[CALLER_KEY] = caller
    return caller
