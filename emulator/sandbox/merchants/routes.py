"""Control plane: a merchant's name, as ``POST /_emulator/merchants`` takes it (``routes``
creates and lists them), and deleting a merchant."""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from emulator.core.merchants import service as merchants
from emulator.core.merchants.model import control_character
from emulator.domain.errors import ControlError
from emulator.http.common import JSON, runtime
from emulator.sandbox.flows.routes_moves import moves_of
from emulator.sandbox.flows.routes_record import ROUTES as FLOW_RECORD_ROUTES


def merchant_name(body: dict[str, Any]) -> str | None:
    """The body's ``name``: 1 to 128 characters, none a control character (it is printed by
    the CLI and shown in the console); None when not given."""
    name = body.get("name")
    if name is not None and (not isinstance(name, str) or not 0 < len(name) <= 128):
        raise ControlError(400, "invalid", "'name' must be a string of 1 to 128 characters")
    if name is not None and control_character(name) is not None:
        raise ControlError(400, "invalid", "'name' must not contain control characters")
    return name


async def delete_merchant(request: Request) -> Response:
    """The merchant and everything of it; its credentials stop working at once."""
    rt = runtime(request)
    company_id = request.path_params["company_id"]

    def forget() -> None:  # what is kept of it in memory
        rt.forget_credentials()
        moves_of(rt).drop(company_id)

    return JSON(await merchants.delete(rt, company_id, forget))


ROUTES = [
    Route("/merchants/{company_id}", delete_merchant, methods=["DELETE"]),
    *FLOW_RECORD_ROUTES,  # GET /merchants/{company_id}/flow.yaml
]
