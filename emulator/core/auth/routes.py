"""POST /oauth2/token: OAuth 2.0 client credentials, as the provider answers it."""

from __future__ import annotations

import base64
import logging
from urllib.parse import parse_qs

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from emulator.core.auth.service import InvalidClient
from emulator.domain.errors import ApiError, BodyTooLarge
from emulator.http.common import CALLER_KEY, JSON, read_body, runtime
from emulator.http.dialects import Dialect

log = logging.getLogger(__name__)

NO_STORE = {"Cache-Control": "no-store", "Pragma": "no-cache"}


def _error(code: str, description: str, status: int = 400) -> Response:
    return JSON(
        {"error": code, "error_description": description}, status_code=status, headers=NO_STORE
    )


def _basic(request: Request) -> tuple[str, str] | None:
    scheme, _, encoded = request.headers.get("authorization", "").partition(" ")
    if scheme.lower() != "basic" or not encoded:
        return None
    try:
        decoded = base64.b64decode(encoded.strip(), validate=True).decode("utf-8")
    except ValueError:  # binascii.Error, UnicodeDecodeError, or non-ASCII base64 text
        return None
    client_id, sep, secret = decoded.partition(":")
    return (client_id, secret) if sep else None


async def token(request: Request) -> Response:
    content_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if content_type != "application/x-www-form-urlencoded":
        return _error("invalid_request", "Content-Type must be application/x-www-form-urlencoded.")
    try:
        raw = await read_body(request, limit=64 * 1024)
    except BodyTooLarge:
        return _error("invalid_request", "Request body is too large.")
    form = parse_qs(raw.decode("latin-1"), keep_blank_values=True)
    grant_type = form.get("grant_type", [""])[0]
    if not grant_type:
        return _error("invalid_request", "grant_type is required.")
    credentials = _basic(request)
    if credentials is None:
        return _error("invalid_client", "Client authentication failed (HTTP Basic expected).")
    if grant_type != "client_credentials":
        return _error("unsupported_grant_type", f"Grant type '{grant_type}' is not supported.")
    try:
        caller, issued = await runtime(request).credentials.issue_token(*credentials)
    except InvalidClient:
        return _error("invalid_client", "Client authentication failed.")
    request.scope[CALLER_KEY] = caller  # journaled with the merchant whose client asked
    return JSON(issued, headers=NO_STORE)


async def http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    if exc.status_code == 405:
        return _error("invalid_request", "Use POST.", status=405)
    return _error("invalid_request", "Not found.", status=exc.status_code)


# RFC 6749's codes for a server that cannot answer now; a 429 keeps the provider's code.
_UNAVAILABLE = {429: "rate_limit_exceeded", 503: "temporarily_unavailable"}


async def api_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, ApiError)
    if exc.status >= 429:
        code = _UNAVAILABLE.get(exc.status, "server_error")
        return _error(code, exc.detail, status=exc.status)
    return _error("invalid_request", exc.detail, status=exc.status)


async def server_error(request: Request, exc: Exception) -> Response:
    log.error("unhandled error at the token endpoint", exc_info=exc)
    return _error("server_error", "Internal server error.", status=500)


ROUTES = [Route("/token", token, methods=["POST"])]
DIALECT = Dialect(api_error=api_error, http_error=http_error, server_error=server_error)
