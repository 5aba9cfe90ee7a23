"""v2 authentication: ``Authorization: Bearer <access token>`` from /oauth2/token."""

from __future__ import annotations

from starlette.requests import Request

from emulator.core.auth.service import Caller
from emulator.domain.errors import InvalidToken
from emulator.http.common import CALLER_KEY, bearer, no_bearer, runtime


async def bank_caller(request: Request) -> Caller:
    token = bearer(request)
    if token is None:
        raise InvalidToken(no_bearer(request, "access token from /oauth2/token"))
    caller = await runtime(request).credentials.bank_caller(token)
    request.scope[CALLER_KEY] = caller
    return caller
