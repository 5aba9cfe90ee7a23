"""The gateway's error dialect, in one place.

``{"field": {"message": ..., "code": ...}}``, dotted names for nested fields, ``__all__``
for the rest (spec: Errors). Unknown paths and wrong methods get the same shape.
"""

from __future__ import annotations

import logging
from typing import Any

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response

from emulator.domain.errors import ApiError, MethodNotAllowed, NotFound, ValidationFailed
from emulator.http.common import JSON
from emulator.http.dialects import Dialect

log = logging.getLogger(__name__)


def body(error: ApiError) -> dict[str, Any]:
    if isinstance(error, ValidationFailed):
        return {e.field: {"message": e.detail, "code": e.code} for e in error.errors}
    return {error.field: {"message": error.detail, "code": error.code}}


def render(error: ApiError) -> Response:
    headers = {"WWW-Authenticate": "Bearer"} if error.status == 401 else None
    return JSON(body(error), status_code=error.status, headers=headers)


async def api_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, ApiError)
    return render(exc)


async def http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    if exc.status_code == 405:
        error: ApiError = MethodNotAllowed(f'Method "{request.method}" not allowed.')
        return render(error)  # Allow: set by Dialects for every interface
    if exc.status_code == 404:
        return render(NotFound("Not found."))
    return JSON(
        {"__all__": {"message": str(exc.detail), "code": "error"}}, status_code=exc.status_code
    )


async def server_error(request: Request, exc: Exception) -> Response:
    log.error("unhandled error on %s %s", request.method, request.url.path, exc_info=exc)
    return JSON(
        {"__all__": {"message": "Internal server error.", "code": "server_error"}},
        status_code=500,
    )


DIALECT = Dialect(api_error=api_error, http_error=http_error, server_error=server_error)
