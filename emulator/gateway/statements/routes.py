"""Gateway endpoints of /company_statements/, and the download URL the emulator serves."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from emulator.domain.errors import CompanyStatementNotFound
from emulator.domain.validation import is_uuid
from emulator.gateway import body as gateway_body
from emulator.gateway.auth import gateway_caller
from emulator.gateway.paging import page_params, raw_page_response
from emulator.gateway.statements import service as statements
from emulator.gateway.statements.model import StatementInput
from emulator.gateway.statements.rules_files import MEDIA_TYPES
from emulator.http.common import JSON, RawJSON, on_clock_of, runtime


def _statement_id(request: Request) -> str:
    return gateway_body.path_uuid(request, "id")


async def create(request: Request) -> Response:
    """The body is ``format`` and ``timezone``; the purchase filters are the query string, as
    the document has them."""
    caller = await gateway_caller(request)
    data = await gateway_body.read(request, StatementInput, optional=True)
    statement = await statements.create(
        runtime(request),
        caller.merchant_id,
        data,
        request.query_params.multi_items(),
        request.url.query,
        str(request.base_url),
    )
    return JSON(statement, status_code=201)


async def list_(request: Request) -> Response:
    caller = await gateway_caller(request)
    number, size = page_params(request)
    page = await statements.page(runtime(request), caller.merchant_id, number, size)
    return raw_page_response(request, number, page.items, page.has_next)


async def read(request: Request) -> Response:
    caller = await gateway_caller(request)
    sid = _statement_id(request)
    return RawJSON(await statements.get_raw(runtime(request), caller.merchant_id, sid))


async def cancel(request: Request) -> Response:
    caller = await gateway_caller(request)
    sid = _statement_id(request)
    return JSON(await statements.cancel(runtime(request), caller.merchant_id, sid))


async def download(request: Request) -> Response:
    """GET download_url: no bearer header, the URL is the capability."""
    statement_id: str = request.path_params["id"]
    if not is_uuid(statement_id):
        raise CompanyStatementNotFound()
    await on_clock_of(request, "company_statements")
    statement, file = await statements.download(
        runtime(request), statement_id.lower(), request.path_params["token"]
    )
    name = f"statement-{statement.id}.{statement.format}"
    return Response(
        file,
        media_type=MEDIA_TYPES[statement.format],
        headers={"Content-Disposition": f'attachment; filename="{name}"'},
    )
