"""``POST /_emulator/receiver-checks``: score the app's receiver (``emulator/sandbox/
receiver_checks/service.py``). The body: ``url``, ``merchant`` (the default merchant when absent),
``bank`` (bank callbacks instead of gateway webhooks) and ``timeout_seconds`` (5, the
platform's, when absent)."""

from __future__ import annotations

import math

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from emulator.delivery.probe import Probe
from emulator.delivery.transport import TIMEOUT_SECONDS
from emulator.domain.errors import ControlError
from emulator.http.common import JSON, runtime
from emulator.sandbox.body import json_body
from emulator.sandbox.receiver_checks import service as receiver_checks

FIELDS = ("url", "merchant", "bank", "timeout_seconds")
MAX_TIMEOUT = 30.0


async def run_check(request: Request) -> Response:
    body = await json_body(request)
    unknown = sorted(set(body) - set(FIELDS))
    if unknown:
        raise ControlError(
            400, "invalid", f"'{unknown[0][:64]}' is not a field; give {', '.join(FIELDS)}"
        )
    url = body.get("url")
    if not isinstance(url, str) or not url:
        raise ControlError(400, "invalid", "give 'url': the receiver's URL")
    rt = runtime(request)
    merchant = body.get("merchant", rt.default_merchant.company_id)
    if not isinstance(merchant, str) or not merchant:
        raise ControlError(400, "invalid", "'merchant' must be a company_id")
    bank = body.get("bank", False)
    if not isinstance(bank, bool):
        raise ControlError(400, "invalid", "'bank' must be true or false")
    timeout = body.get("timeout_seconds", TIMEOUT_SECONDS)
    if (
        isinstance(timeout, bool)
        or not isinstance(timeout, int | float)
        or not math.isfinite(timeout)
        or not 0 < timeout <= MAX_TIMEOUT
    ):
        raise ControlError(
            400, "invalid", f"'timeout_seconds' must be a number above 0, at most {MAX_TIMEOUT:g}"
        )
    trust = tuple(p for p in (rt.settings.callback_ca, rt.settings.tls_ca) if p)
    base_url = str(request.base_url).rstrip("/")
    async with Probe(
        rt.settings.port, lambda: None if rt.served else rt.app, float(timeout), trust
    ) as probe:
        report = await receiver_checks.check(
            rt, probe.post, merchant, url, base_url, bank=bank, wait_seconds=float(timeout)
        )
    return JSON(report)


ROUTES = [Route("/receiver-checks", run_check, methods=["POST"])]
