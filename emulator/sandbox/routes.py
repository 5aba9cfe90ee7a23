"""The control plane (/_emulator/): a stable, documented JSON contract (DESIGN.md)."""

from __future__ import annotations

from datetime import timedelta

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from emulator import __version__
from emulator.core.merchants import service as merchants
from emulator.domain.cards import DEFAULT_CARD, TEST_CVC
from emulator.domain.errors import ControlError, PayoutNotFound
from emulator.domain.validation import is_uuid
from emulator.gateway.payouts import service as payouts
from emulator.gateway.purchases import service_payer as payer
from emulator.gateway.purchases.service_payer import CardForm
from emulator.http.common import JSON, on_clock_of, runtime
from emulator.sandbox.actors import routes as bank
from emulator.sandbox.actors.routes_windows import ROUTES as DEBICHECK_ROUTES
from emulator.sandbox.body import json_body
from emulator.sandbox.console.routes import ROUTES as CONSOLE_ROUTES
from emulator.sandbox.control import service as control
from emulator.sandbox.control import service_snapshots as snapshots
from emulator.sandbox.control.routes import (
    advance,
    clock,
    clock_setting,
    freeze,
    merchant_advance,
    merchant_clock,
    merchant_freeze,
    merchant_resume,
    merchant_schedule,
    put_merchant_clock,
    resume,
    server_schedule,
)
from emulator.sandbox.deliveries.routes import ROUTES as DELIVERY_OPS_ROUTES
from emulator.sandbox.docs.routes import ROUTES as DOC_ROUTES
from emulator.sandbox.expectations.routes import ROUTES as EXPECTATION_ROUTES
from emulator.sandbox.flows.routes import ROUTES as FLOW_ROUTES
from emulator.sandbox.holds import routes as holds
from emulator.sandbox.merchants import routes as control_merchants
from emulator.sandbox.merchants.routes_settings import ROUTES as SETTING_ROUTES
from emulator.sandbox.merchants.routes_settings import strict_setting
from emulator.sandbox.objects.routes import ROUTES as OBJECT_ROUTES
from emulator.sandbox.paging import page_query
from emulator.sandbox.receiver_checks.routes import ROUTES as RECEIVER_ROUTES
from emulator.sandbox.scenarios.routes import ROUTES as SCENARIO_ROUTES
from emulator.sandbox.sink.routes import sink_delete, sink_get, sink_post
from emulator.sandbox.state.routes import ROUTES as STATE_ROUTES
from emulator.sandbox.tls.routes import ROUTES as TLS_ROUTES

# -- endpoints -------------------------------------------------------------------------------


async def health(request: Request) -> Response:
    return JSON({"status": "ok", "version": __version__})


async def reset(request: Request) -> Response:
    await control.reset(runtime(request))
    return JSON({"reset": True, **control.clock_view(runtime(request))})


async def create_merchant(request: Request) -> Response:
    body = await json_body(request)
    name = control_merchants.merchant_name(body)
    rt = runtime(request)
    own = None
    if body.get("clock") is not None:
        clock = body["clock"]
        if not isinstance(clock, dict):
            raise ControlError(400, "invalid", '\'clock\' must be an object: {"mode", "now"}')
        mode, now = clock_setting(clock, "clock.")
        own = control.new_clock(rt, mode, now)
    strict = strict_setting(body)
    return JSON(await merchants.create(rt, name, own, strict), status_code=201)


async def list_merchants(request: Request) -> Response:
    return JSON({"merchants": await merchants.list_all(runtime(request))})


# -- a merchant's own clock ------------------------------------------------------------------


async def save_snapshot(request: Request) -> Response:
    saved = await snapshots.save_snapshot(runtime(request), request.path_params["name"])
    return JSON(saved, status_code=201)


async def restore_snapshot(request: Request) -> Response:
    return JSON(await snapshots.restore_snapshot(runtime(request), request.path_params["name"]))


async def list_snapshots(request: Request) -> Response:
    return JSON({"snapshots": snapshots.list_snapshots(runtime(request))})


async def requests(request: Request) -> Response:
    query = request.query_params
    limit, before, after = page_query(request)
    entries = await runtime(request).journal.list(
        merchant_id=query.get("merchant"), limit=limit, before_id=before, after_id=after
    )
    return JSON({"requests": entries})


async def settle_payout(request: Request) -> Response:
    """Act as the provider: settle a pending payout now (optional {"status"})."""
    body = await json_body(request)
    status = body.get("status")
    if status is not None and status not in ("success", "failed"):
        raise ControlError(400, "invalid", '\'status\' must be "success" or "failed"')
    await on_clock_of(request, "payouts")
    try:
        payout = await payouts.settle_now(runtime(request), request.path_params["id"], status)
    except PayoutNotFound:
        raise ControlError(404, "payout_not_found", "no payout with this id") from None
    except payouts.NotPending as exc:
        raise ControlError(409, "payout_not_pending", str(exc)) from None
    return JSON(payout)


async def test_values(request: Request) -> Response:
    return JSON(runtime(request).test_values)


async def pay_purchase(request: Request) -> Response:
    """Act as the payer: pay with the default test card or the card given; a 3-D Secure
    challenge completes at once with the card's documented result."""
    body = await json_body(request)
    fields = {}
    for name in ("card_number", "expires", "cvc", "cardholder_name"):
        value = body.get(name)
        if value is not None and not isinstance(value, str):
            raise ControlError(400, "invalid", f"'{name}' must be a string")
        fields[name] = value
    remember = body.get("remember_card", False)
    if not isinstance(remember, bool):
        raise ControlError(400, "invalid", "'remember_card' must be true or false")
    rt = runtime(request)
    purchase_id = request.path_params["id"]
    if not is_uuid(purchase_id):
        raise ControlError(404, "purchase_not_found", "No such object")
    await on_clock_of(request, "purchases")
    expiry = rt.clock.now() + timedelta(days=366 * 3)
    form = CardForm(
        card_number=fields["card_number"] or DEFAULT_CARD,
        expires=fields["expires"] or expiry.strftime("%m/%y"),
        cvc=fields["cvc"] or TEST_CVC,
        cardholder_name=fields["cardholder_name"] or "Test Payer",
        remember_card=remember,
    )
    result = await payer.pay(rt, purchase_id.lower(), form, "payform", auto_3ds=True)
    return JSON(result.purchase)


ROUTES = [
    Route("/health", health, methods=["GET"]),
    Route("/reset", reset, methods=["POST"]),
    Route("/merchants", create_merchant, methods=["POST"]),
    Route("/merchants", list_merchants, methods=["GET"]),
    *control_merchants.ROUTES,
    Route("/clock", clock, methods=["GET"]),
    Route("/clock/advance", advance, methods=["POST"]),
    Route("/clock/freeze", freeze, methods=["POST"]),
    Route("/clock/resume", resume, methods=["POST"]),
    Route("/schedule", server_schedule, methods=["GET"]),
    Route("/merchants/{company_id}/clock", merchant_clock, methods=["GET"]),
    Route("/merchants/{company_id}/clock", put_merchant_clock, methods=["PUT"]),
    Route("/merchants/{company_id}/clock/advance", merchant_advance, methods=["POST"]),
    Route("/merchants/{company_id}/clock/freeze", merchant_freeze, methods=["POST"]),
    Route("/merchants/{company_id}/clock/resume", merchant_resume, methods=["POST"]),
    Route("/merchants/{company_id}/schedule", merchant_schedule, methods=["GET"]),
    *EXPECTATION_ROUTES,
    Route("/snapshots", list_snapshots, methods=["GET"]),
    Route("/snapshots/{name}", save_snapshot, methods=["POST"]),
    Route("/snapshots/{name}/restore", restore_snapshot, methods=["POST"]),
    Route("/requests", requests, methods=["GET"]),
    Route("/sink/{name}", sink_post, methods=["POST"]),
    Route("/sink/{name}", sink_get, methods=["GET"]),
    Route("/sink/{name}", sink_delete, methods=["DELETE"]),
    Route("/test-values", test_values, methods=["GET"]),
    *SCENARIO_ROUTES,
    *DEBICHECK_ROUTES,
    Route("/purchases/{id}/pay", pay_purchase, methods=["POST"]),
    Route("/mandates/{id}/authorise", bank.authorise, methods=["POST"]),
    Route("/mandates/{id}/reject", bank.reject, methods=["POST"]),
    Route("/collections/{id}/settle", bank.settle_collection, methods=["POST"]),
    Route("/payments/{id}/settle", bank.settle_payment, methods=["POST"]),
    *DELIVERY_OPS_ROUTES,
    Route("/payouts/{id}/settle", settle_payout, methods=["POST"]),
    *DOC_ROUTES,
    *SETTING_ROUTES,
    *holds.ROUTES,
    *OBJECT_ROUTES,
    *CONSOLE_ROUTES,
    *TLS_ROUTES,
    *STATE_ROUTES,
    *RECEIVER_ROUTES,
    *FLOW_ROUTES,
]
