"""Control plane: deleting a merchant (creating and listing them: ``routes``)."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from emulator.http.common import JSON, runtime
from emulator.services import merchants


async def delete_merchant(request: Request) -> Response:
    """The merchant and everything of it; its credentials stop working at once."""
    rt = runtime(request)
    company_id = request.path_params["company_id"]
    return JSON(await merchants.delete(rt, company_id, rt.forget_credentials))


ROUTES = [Route("/merchants/{company_id}", delete_merchant, methods=["DELETE"])]
