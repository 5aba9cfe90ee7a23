"""Delivery operations on the control plane: the delivery log with its filters, replay and
recover in bulk, endpoints switched off and on, a merchant's auto-disable
(``docs/webhooks.md``, "Replay, recover, switch off")."""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from emulator.domain.delivery_filters import DeliveryFilter, FilterError, parse_filter
from emulator.domain.errors import ControlError
from emulator.http.common import JSON, runtime
from emulator.sandbox.body import json_body
from emulator.sandbox.deliveries import service as delivery_ops
from emulator.sandbox.paging import page_query

PAGING = ("limit", "before", "after")


def _filter(fields: dict[str, Any], extra: tuple[str, ...] = ()) -> DeliveryFilter:
    try:
        return parse_filter(fields, extra)
    except FilterError as exc:
        raise ControlError(400, "invalid", str(exc)) from None


async def deliveries_list(request: Request) -> Response:
    """Every delivery attempt of every kind, newest first, narrowed by the filter."""
    limit, before, after = page_query(request)
    found = _filter(dict(request.query_params), PAGING)
    rows = await delivery_ops.log(runtime(request), found, limit, before, after)
    return JSON({"deliveries": rows})


async def replay(request: Request) -> Response:
    found = _filter(await json_body(request))
    if found.kind is not None:
        raise ControlError(400, "invalid", "'kind' is a filter of the log only")
    return JSON(await delivery_ops.replay(runtime(request), found))


async def recover(request: Request) -> Response:
    found = _filter(await json_body(request))
    if found.since_us is None:
        raise ControlError(400, "invalid", "give 'since': recover what failed since then")
    if found.merchant is None and found.url is None:
        raise ControlError(400, "invalid", "give 'merchant' or 'url' (the endpoint's)")
    if found.outcome not in (None, "failed") or found.kind is not None:
        why = "a recover sends the failed only: no 'outcome' or 'kind'"
        raise ControlError(400, "invalid", why)
    return JSON(await delivery_ops.replay(runtime(request), found, recover=True))


async def _switch(request: Request, kind: str) -> Response:
    body = await json_body(request)
    unknown = sorted(set(body) - {"enabled", "drop"})
    if unknown:
        why = f"'{unknown[0][:64]}' is not a key: give 'enabled', 'drop'"
        raise ControlError(400, "invalid", why)
    enabled, drop = body.get("enabled"), body.get("drop", False)
    if not isinstance(enabled, bool):
        raise ControlError(400, "invalid", "'enabled' must be true or false")
    if not isinstance(drop, bool):
        raise ControlError(400, "invalid", "'drop' must be true or false")
    target = request.path_params["id"]
    if not 0 < len(target) <= 64:
        raise ControlError(404, "not_found", "no such endpoint")
    return JSON(await delivery_ops.switch(runtime(request), kind, target, enabled, drop))


async def webhook_state(request: Request) -> Response:
    return await _switch(request, "webhook")


async def callback_state(request: Request) -> Response:
    return await _switch(request, "callback")


async def endpoints(request: Request) -> Response:
    limit, _, _ = page_query(request)
    unknown = sorted(set(request.query_params) - {"merchant", "limit"})
    if unknown:
        raise ControlError(400, "invalid", f"'{unknown[0][:64]}' is not a key: give 'merchant'")
    merchant = request.query_params.get("merchant")
    return JSON(await delivery_ops.endpoint_view(runtime(request), merchant, limit))


async def put_settings(request: Request) -> Response:
    body = await json_body(request)
    unknown = sorted(set(body) - {"auto_disable_after_days"})
    if unknown or "auto_disable_after_days" not in body:
        raise ControlError(400, "invalid", "give 'auto_disable_after_days': N days, or null")
    days = body["auto_disable_after_days"]
    top = delivery_ops.MAX_AUTO_DISABLE_DAYS
    if days is not None and (type(days) is not int or not 1 <= days <= top):
        raise ControlError(
            400, "invalid", f"'auto_disable_after_days' must be an integer from 1 to {top}, or null"
        )
    company_id = request.path_params["company_id"]
    return JSON(await delivery_ops.settings(runtime(request), company_id, days))


async def get_settings(request: Request) -> Response:
    company_id = request.path_params["company_id"]
    return JSON(await delivery_ops.read_settings(runtime(request), company_id))


ROUTES = [
    Route("/deliveries", deliveries_list, methods=["GET"]),
    Route("/deliveries/replay", replay, methods=["POST"]),
    Route("/deliveries/recover", recover, methods=["POST"]),
    Route("/endpoints", endpoints, methods=["GET"]),
    Route("/webhooks/{id}/state", webhook_state, methods=["PUT"]),
    Route("/callbacks/{id}/state", callback_state, methods=["PUT"]),
    Route("/merchants/{company_id}/delivery-settings", put_settings, methods=["PUT"]),
    Route("/merchants/{company_id}/delivery-settings", get_settings, methods=["GET"]),
]
