"""The control plane's error dialect, in one place: ``{"error": {"code", "message"}}`` (a
``ControlError`` is an ``ApiError`` like the others)."""

from __future__ import annotations

import logging

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response

from emulator.domain.errors import ApiError
from emulator.http.common import JSON
from emulator.http.dialects import Dialect

log = logging.getLogger(__name__)


def error(status: int, code: str, message: str) -> Response:
    return JSON({"error": {"code": code, "message": message}}, status_code=status)


async def api_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, ApiError)
    return error(exc.status, exc.code, exc.detail)


async def http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    if exc.status_code == 405:
        return error(
            405, "method_not_allowed", f"{request.method} is not allowed on {request.url.path}"
        )
    return error(exc.status_code, "not_found", f"no control-plane endpoint at {request.url.path}")


async def server_error(request: Request, exc: Exception) -> Response:
    log.error("unhandled control-plane error on %s", request.url.path, exc_info=exc)
    return error(500, "server_error", "internal error")


DIALECT = Dialect(api_error=api_error, http_error=http_error, server_error=server_error)
