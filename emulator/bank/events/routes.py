"""GET /v2/event/mandate and its siblings /v2/event/collection and /v2/event/payment."""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from emulator.bank import query
from emulator.bank.auth import bank_caller
from emulator.bank.common.model import MANDATE_TRANSITIONS, MONEY_TRANSITIONS
from emulator.bank.common.service_events import ObjectType
from emulator.bank.events import service as bank_events
from emulator.http.common import JSON, runtime

INT64_MAX = 2**63 - 1


def filters(request: Request, id_param: str, states: tuple[str, ...]) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for name in ("eventId", "fromEventId", "toEventId"):
        value = query.int_param(request, name, maximum=INT64_MAX)
        if value is not None:
            found[name] = value
    object_id = query.text_param(request, id_param)
    if object_id is not None:
        found["objectId"] = object_id
    for name, key in (("fromTimestamp", "fromUs"), ("toTimestamp", "toUs")):
        at = query.instant_param(request, name)
        if at is not None:
            found[key] = at
    state = query.choice_param(request, "state", states)
    if state is not None:
        found["state"] = state
    return found


async def _feed(
    request: Request, object_type: ObjectType, id_param: str, states: tuple[str, ...]
) -> Response:
    caller = await bank_caller(request)
    skip, take = query.paging(request)
    wanted = filters(request, id_param, states)
    rt = runtime(request)
    return JSON(await bank_events.feed(rt, caller.merchant_id, object_type, wanted, skip, take))


async def mandates(request: Request) -> Response:
    return await _feed(request, "bank_mandate", "mandateId", tuple(MANDATE_TRANSITIONS))


async def collections(request: Request) -> Response:
    return await _feed(request, "bank_collection", "collectionId", tuple(MONEY_TRANSITIONS))


async def payments(request: Request) -> Response:
    return await _feed(request, "bank_payment", "paymentId", tuple(MONEY_TRANSITIONS))
