"""The clock endpoints, the server's and a merchant's own: read, set, advance, freeze, resume,
and the schedule of what is due; decode, one service call, encode."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from emulator.domain.errors import ControlError
from emulator.http.common import JSON, parse_int, runtime
from emulator.kernel.clock import (
    CLOCK_RANGE,
    MODES,
    Mode,
    in_clock_range,
    parse_iso,
    to_us,
)
from emulator.sandbox.body import json_body
from emulator.sandbox.control import service as control


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


def clock_setting(body: dict[str, Any], where: str = "") -> tuple[Mode | None, datetime | None]:
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


async def merchant_clock(request: Request) -> Response:
    company_id = request.path_params["company_id"]
    return JSON(await control.merchant_clock(runtime(request), company_id))


async def put_merchant_clock(request: Request) -> Response:
    mode, now = clock_setting(await json_body(request))
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
