"""Gateway endpoints of /payouts/, and the execution URL the emulator serves for each."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from emulator.domain.errors import PayoutNotFound
from emulator.domain.validation import is_uuid
from emulator.gateway import body as gateway_body
from emulator.gateway.auth import gateway_caller
from emulator.gateway.paging import page_params, raw_page_response
from emulator.gateway.payouts import service as payouts
from emulator.gateway.payouts.model import PayoutInput
from emulator.gateway.payouts.rules_cards import CardInput
from emulator.http.common import JSON, RawJSON, on_clock_of, runtime
from emulator.http.outcome import forced_of, keep


def _payout_id(request: Request) -> str:
    return gateway_body.path_uuid(request, "id")


async def create(request: Request) -> Response:
    caller = await gateway_caller(request)
    forced = forced_of(request, "payout")
    data = await gateway_body.read(request, PayoutInput)
    payout = await payouts.create(runtime(request), caller.merchant_id, data, str(request.base_url))
    await keep(request, forced, caller.merchant_id, payout.id)
    return JSON(payout, status_code=201)


async def list_(request: Request) -> Response:
    caller = await gateway_caller(request)
    number, size = page_params(request)
    page = await payouts.page(runtime(request), caller.merchant_id, number, size)
    return raw_page_response(request, number, page.items, page.has_next)


async def read(request: Request) -> Response:
    caller = await gateway_caller(request)
    raw = await payouts.get_raw(runtime(request), caller.merchant_id, _payout_id(request))
    return RawJSON(raw)


async def execute(request: Request) -> Response:
    """POST to execution_url: no bearer header, the URL is the capability (FIDELITY.md)."""
    payout_id: str = request.path_params["id"]
    if not is_uuid(payout_id):
        raise PayoutNotFound()
    await on_clock_of(request, "payouts")
    data = await gateway_body.read(request, CardInput)
    payout = await payouts.execute(
        runtime(request), payout_id.lower(), request.path_params["token"], data
    )
    return JSON(payout)
