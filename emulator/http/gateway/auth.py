"""Gateway authentication: ``Authorization: Bearer <API key or access token>``."""

from __future__ import annotations

from starlette.requests import Request

from emulator.domain.errors import MissingAuthorization
from emulator.http.common import CALLER_KEY, runtime
from emulator.services.auth import Caller


def bearer(request: Request) -> str | None:
    """The token of a well-formed ``Bearer`` header, else None."""
    header = request.headers.get("authorization", "")
    scheme, _, token = header.partition(" ")
    token = token.strip()
    if scheme.lower() != "bearer" or not token or " " in token:
        return None
    return token


async def gateway_caller(request: Request) -> Caller:
    token = bearer(request)
    if token is None:
        raise MissingAuthorization()
    caller = await runtime(request).credentials.gateway_caller(token)
    request.scope[CALLER_KEY] = caller
    return caller
