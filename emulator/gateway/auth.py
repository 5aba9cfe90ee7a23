"""Gateway authentication: ``Authorization: Bearer <API key or access token>``."""

from __future__ import annotations

from starlette.requests import Request

from emulator.core.auth.service import Caller
from emulator.domain.errors import MissingAuthorization
from emulator.http.common import CALLER_KEY, header, runtime


def no_bearer(request: Request, what: str) -> str:
    """Why there is no usable ``Bearer`` credential (for the request journal)."""
    header = request.headers.get("authorization")
    if header is None:
        return f"no Authorization header; expected 'Bearer <{what}>'"
    scheme = header.partition(" ")[0]
    if scheme.lower() != "bearer":
        return f"Authorization scheme {scheme[:20]!r}; expected 'Bearer <{what}>'"
    return f"a malformed Bearer credential (empty, or with spaces); expected <{what}>"


def bearer(request: Request) -> str | None:
    """The token of a well-formed ``Bearer`` header, else None."""
    scheme, _, token = (header(request, b"authorization") or "").partition(" ")
    token = token.strip()
    if scheme.lower() != "bearer" or not token or " " in token:
        return None
    return token


async def gateway_caller(request: Request) -> Caller:
    token = bearer(request)
    if token is None:
        raise MissingAuthorization(no_bearer(request, "API key or access token"))
    caller = await runtime(request).credentials.gateway_caller(token)
    request.scope[CALLER_KEY] = caller
    return caller
