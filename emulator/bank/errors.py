"""The v2 error dialect, in one place (FIDELITY.md "Errors").

400 is the provider's serialised result object with a capital-M ``Message``; the other
statuses are ``{"statusCode": N, "message": ...}`` with the provider's fixed words.
"""

from __future__ import annotations

import logging
from typing import Any

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response

from emulator.domain.errors import AccountVerificationFailed, ApiError, ValidationFailed
from emulator.http.common import JSON
from emulator.http.dialects import Dialect

log = logging.getLogger(__name__)

FIXED_MESSAGES = {
    401: "Unauthorized",
    403: "Forbidden",
    404: "Resource not found",
    405: "Method Not Allowed",
    429: "Too Many Requests",
    500: "Internal server error",
    502: "Bad Gateway",
    503: "Service Unavailable",
    504: "Gateway Timeout",
}


def bad_request_body(message: str | dict[str, str]) -> dict[str, Any]:
    return {
        "value": {"Message": message},
        "formatters": [],
        "contentTypes": [],
        "declaredType": None,
        "statusCode": 400,
    }


def status_body(status: int, message: str | None = None) -> dict[str, Any]:
    return {"statusCode": status, "message": message or FIXED_MESSAGES.get(status, "Error")}


def _message(error: ApiError) -> str:
    if isinstance(error, ValidationFailed):
        return "; ".join(_field_message(e) for e in error.errors)
    return _field_message(error)


def _field_message(error: ApiError) -> str:
    if error.field in ("__all__", ""):
        return error.detail
    return f"{error.field}: {error.detail}"


def render(error: ApiError) -> Response:
    if isinstance(error, AccountVerificationFailed):
        return JSON(bad_request_body(error.details), status_code=400)
    if error.status == 400:
        return JSON(bad_request_body(_message(error)), status_code=400)
    fixed = error.status in FIXED_MESSAGES
    return JSON(
        status_body(error.status, None if fixed else _message(error)), status_code=error.status
    )


async def api_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, ApiError)
    return render(exc)


async def http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    return JSON(status_body(exc.status_code), status_code=exc.status_code)


async def server_error(request: Request, exc: Exception) -> Response:
    log.error("unhandled error on %s %s", request.method, request.url.path, exc_info=exc)
    return JSON(status_body(500), status_code=500)


DIALECT = Dialect(api_error=api_error, http_error=http_error, server_error=server_error)
