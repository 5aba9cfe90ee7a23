"""A merchant's settings on the control plane: ``strict_requests`` (``emulator/http/lint.py``),
given when the merchant is made (``POST /_emulator/merchants``) or changed later
(``PATCH /_emulator/merchants/{company_id}``)."""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from emulator.core.merchants import service as merchants
from emulator.domain.errors import ControlError
from emulator.http.common import JSON, runtime
from emulator.sandbox.body import json_body

SETTINGS = ("strict_requests",)


def strict_setting(body: dict[str, Any]) -> bool:
    """``strict_requests`` of a body (absent or null: false)."""
    value = body.get("strict_requests")
    if value is None:
        return False
    if not isinstance(value, bool):
        raise ControlError(400, "invalid", "'strict_requests' must be true or false")
    return value


async def change(request: Request) -> Response:
    body = await json_body(request)
    unknown = sorted(set(body) - set(SETTINGS))
    if unknown:
        raise ControlError(
            400,
            "invalid",
            f"'{unknown[0][:64]}' is not a merchant setting; give {', '.join(SETTINGS)}",
        )
    if "strict_requests" not in body:
        raise ControlError(400, "invalid", "give 'strict_requests': true or false")
    strict = strict_setting(body)
    company_id = request.path_params["company_id"]
    if not await merchants.set_strict_requests(runtime(request), company_id, strict):
        raise ControlError(
            404, "merchant_not_found", f"no merchant with company_id {company_id[:64]!r}"
        )
    return JSON({"company_id": company_id, "strict_requests": strict})


ROUTES = [Route("/merchants/{company_id}", change, methods=["PATCH"])]
