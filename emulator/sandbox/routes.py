"""The control plane (/_emulator/): a stable, documented JSON contract (DESIGN.md)."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

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
from emulator.http.common import JSON, on_clock_of, parse_int, read_body, runtime
from emulator.kernel.clock import (
    CLOCK_RANGE,
    MODES,
    Mode,
    in_clock_range,
    parse_iso,
    to_us,
)
from emulator.sandbox.actors import routes as bank
from emulator.sandbox.actors.routes_windows import ROUTES as DEBICHECK_ROUTES
from emulator.sandbox.body import json_body
from emulator.sandbox.console.routes import ROUTES as CONSOLE_ROUTES
from emulator.sandbox.control import service as control
from emulator.sandbox.control import service_snapshots as snapshots
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
from emulator.sandbox.sink import service as sink
from emulator.sandbox.state.routes import ROUTES as STATE_ROUTES
from emulator.sandbox.tls.routes import ROUTES as TLS_ROUTES


def _instant(body: dict[str, Any], name: str) -> datetime | None:
    value = body.get(name)
    if value is None:
        return None
    if not isinstance(value, str):
        raise ControlError(400, "invalid", f"'{name}' must be an ISO-8601 string")
    try:
        return parse_iso(value)
    except ValueError:
        raise ControlError(
            400, "invalid", f"'{name}' is not an ISO-8601 instant: {value!r}"
        ) from None


MAX_SECONDS = 10**12  # more than the clock's whole range; the range itself is checked after


def _number(body: dict[str, Any], name: str, unit: int = 1) -> float | None:
    value = body.get(name)
    if value is None:
        return None
    top = MAX_SECONDS // unit
    if (
        isinstance(value, bool)
        or not isinstance(value, int | float)
        or not 0 <= value < top  # also refuses NaN (from 1e400 - 1e400)
    ):
        raise ControlError(400, "invalid", f"'{name}' must be a number of {name} from 0 to {top:,}")
    return float(value)


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
        mode, now = _clock_setting(clock, "clock.")
        own = control.new_clock(rt, mode, now)
    strict = strict_setting(body)
    return JSON(await merchants.create(rt, name, own, strict), status_code=201)


def _clock_setting(body: dict[str, Any], where: str = "") -> tuple[Mode | None, datetime | None]:
    """``{"mode", "now"}``, both optional, of a merchant's own clock."""
    unknown = sorted(set(body) - {"mode", "now"})
    if unknown:
        raise ControlError(
            400, "invalid", f"'{where}{unknown[0]}' is not a clock setting; give 'mode', 'now'"
        )
    mode = body.get("mode")
    if mode is not None and mode not in MODES:
        raise ControlError(400, "invalid", f'\'{where}mode\' must be "frozen" or "real"')
    now = _instant(body, "now")
    if now is not None and not in_clock_range(to_us(now)):
        raise ControlError(400, "invalid", f"'{where}now' must be {CLOCK_RANGE}")
    return mode, now


async def list_merchants(request: Request) -> Response:
    return JSON({"merchants": await merchants.list_all(runtime(request))})


async def clock(request: Request) -> Response:
    return JSON(control.clock_view(runtime(request)))


UNITS = {"seconds": 1, "minutes": 60, "hours": 3600, "days": 86_400}


def _advance_body(body: dict[str, Any]) -> control.Advance:
    """``seconds``/``minutes``/``hours``/``days`` (they add up), or ``to``: an instant or
    ``"next"`` (the next scheduled job)."""
    unknown = sorted(set(body) - {*UNITS, "to"})
    if unknown:
        raise ControlError(
            400,
            "invalid",
            f"'{unknown[0]}' is not an advance; give seconds, minutes, hours, days or 'to'",
        )
    total = 0.0
    given = False
    for name, unit in UNITS.items():
        value = _number(body, name, unit)
        if value is not None:
            total += value * unit
            given = True
    if given == ("to" in body and body["to"] is not None):
        neither = "" if given else "; got neither"
        raise ControlError(
            400,
            "invalid",
            f"give exactly one of a duration (seconds, minutes, hours, days) or 'to'{neither}",
        )
    if given:
        return control.Advance(by_us=round(total * 1_000_000))
    if body["to"] == "next":
        return control.Advance(next=True)
    to = _instant(body, "to")
    assert to is not None
    return control.Advance(to_us=to_us(to))


async def advance(request: Request) -> Response:
    body = await json_body(request)
    return JSON(await control.advance(runtime(request), _advance_body(body)))


async def freeze(request: Request) -> Response:
    body = await json_body(request)
    return JSON(await control.freeze(runtime(request), _instant(body, "at")))


def _system(body: dict[str, Any]) -> bool:
    system = body.get("system", False)
    if not isinstance(system, bool):
        raise ControlError(400, "invalid", "'system' must be true or false")
    return system


async def resume(request: Request) -> Response:
    body = await json_body(request)
    return JSON(await control.resume(runtime(request), _instant(body, "at"), _system(body)))


# -- a merchant's own clock ------------------------------------------------------------------


async def merchant_clock(request: Request) -> Response:
    company_id = request.path_params["company_id"]
    return JSON(await control.merchant_clock(runtime(request), company_id))


async def put_merchant_clock(request: Request) -> Response:
    mode, now = _clock_setting(await json_body(request))
    company_id = request.path_params["company_id"]
    return JSON(await control.give_clock(runtime(request), company_id, mode, now))


async def merchant_advance(request: Request) -> Response:
    rt = runtime(request)
    how = _advance_body(await json_body(request))
    timeline = await control.own_timeline(rt, request.path_params["company_id"])
    return JSON({**await control.advance(rt, how, timeline), "own": True})


async def merchant_freeze(request: Request) -> Response:
    rt = runtime(request)
    at = _instant(await json_body(request), "at")
    timeline = await control.own_timeline(rt, request.path_params["company_id"])
    return JSON({**await control.freeze(rt, at, timeline), "own": True})


async def merchant_resume(request: Request) -> Response:
    rt = runtime(request)
    body = await json_body(request)
    at, system = _instant(body, "at"), _system(body)
    timeline = await control.own_timeline(rt, request.path_params["company_id"])
    return JSON({**await control.resume(rt, at, system, timeline), "own": True})


async def _schedule(request: Request, company_id: str | None) -> Response:
    rt = runtime(request)
    query = request.query_params
    limit = parse_int(query.get("limit", "100"))
    if limit is None or not 1 <= limit <= 1000:
        raise ControlError(400, "invalid", "'limit' must be an integer from 1 to 1000")
    timeline = rt.scheduler.timeline_of(company_id)
    jobs = await control.schedule(rt, timeline, company_id, query.get("object_id"), limit)
    return JSON({**control.clock_view(rt, timeline), "jobs": jobs})


async def server_schedule(request: Request) -> Response:
    """Pending jobs of every merchant that follows the server clock, soonest first."""
    return await _schedule(request, None)


async def merchant_schedule(request: Request) -> Response:
    """The merchant's pending jobs, soonest first, on whichever clock it follows."""
    company_id = request.path_params["company_id"]
    await control.merchant_clock(runtime(request), company_id)  # 404 for an unknown merchant
    return await _schedule(request, company_id)


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


async def sink_post(request: Request) -> Response:
    name = request.path_params["name"]
    raw = await read_body(request)
    headers = {k: v for k, v in request.headers.items()}
    message_id = await sink.receive(
        runtime(request),
        name,
        request.method,
        request.url.path,
        headers,
        raw.decode("utf-8", "replace"),
    )
    return JSON({"received": True, "id": message_id})


async def sink_get(request: Request) -> Response:
    name = request.path_params["name"]
    # what is due to arrive has arrived (sends to other receivers are not waited for)
    await runtime(request).deliveries.flush(sink_path=request.url.path)
    return JSON({"name": name, "messages": await sink.messages(runtime(request), name)})


async def sink_delete(request: Request) -> Response:
    name = request.path_params["name"]
    return JSON({"name": name, "deleted": await sink.clear(runtime(request), name)})


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
