"""Faults before a request reaches its handler: the ``http.request`` decision point and the
rate limiter.

A matching ``http.request`` rule may wait (``delay_ms``, real latency: it is not emulator
time), close the connection without an answer (``drop``), answer 429/5xx in the interface's
own error dialect, or put the request under a limiter of its own (``rate_limit``). The
per-merchant limit of the settings (``--rate-limit``) applies to every request that names a
merchant. A 429 carries ``X-RateLimit-Limit``, ``X-RateLimit-Remaining``, ``X-RateLimit-Reset``
(Unix time on the emulator clock) and ``Retry-After``; requests under a limit carry the first
three too, so clients can pace themselves.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

import msgspec
from starlette.requests import Request
from starlette.responses import Response
from starlette.types import Scope, Send

from emulator.domain.errors import FAULTS, RateLimited
from emulator.http.dialects import Dialects
from emulator.kernel.ratelimit import Verdict
from emulator.scenarios.points import HTTP_REQUEST, HttpRequest

if TYPE_CHECKING:
    from emulator.runtime.runtime import Runtime

SERVER_SEND = "emulator.server_send"  # the server's own ``send``, kept by the app for drops
# X-RateLimit-Limit of an injected 429 when no --rate-limit is set: a limit has to be named.
NOMINAL_LIMIT = 60
DROPPED = "emulator.dropped"  # set when a drop found no connection to close (in-process)


class Decision(msgspec.Struct):
    """What happens to the request: an answer now, a dropped connection, or go on (with the
    rate-limit headers to add, if a limit applies)."""

    merchant_id: str | None = None
    response: Response | None = None
    drop: bool = False
    headers: list[tuple[bytes, bytes]] = []


class Faults:
    def __init__(self, rt: Runtime, dialects: Dialects) -> None:
        self._rt = rt
        self._dialects = dialects

    def active(self) -> bool:
        return self._rt.scenarios.has(HTTP_REQUEST) or self._rt.settings.rate_limit is not None

    async def decide(self, scope: Scope, interface: str, merchant_id: str | None) -> Decision:
        """``merchant_id``: the one the request's credentials name (the middleware found it),
        whose clock the request is served on (rate-limit windows count on it)."""
        rt = self._rt
        subject = {
            "method": scope["method"],
            "path": scope["path"],
            "interface": interface,
            "query": scope.get("query_string", b"").decode("latin-1"),
        }
        # The merchant's own limit first: a throttled request reaches nothing behind it (not
        # even a counted scenario rule), and a faulted one still counted against it.
        setting = rt.settings.rate_limit
        verdict: Verdict | None = None
        if setting is not None and merchant_id is not None:
            verdict = self._hit(("merchant", merchant_id), setting.limit, setting.window_seconds)
            if not verdict.allowed:
                return Decision(merchant_id, response=await self._throttled(scope, verdict))
        chosen = None
        if rt.scenarios.has(HTTP_REQUEST):
            chosen = await rt.scenarios.decide_now(HTTP_REQUEST, merchant_id, subject)
        if chosen is not None:
            outcome = chosen.rule.outcome
            assert isinstance(outcome, HttpRequest)
            if outcome.delay_ms:
                await asyncio.sleep(outcome.delay_ms / 1000)
            if outcome.drop:
                return Decision(merchant_id, drop=True)
            if outcome.rate_limit is not None:
                limit = outcome.rate_limit
                key = ("scenario", chosen.activation_id, chosen.rule.index, merchant_id)
                verdict = self._hit(key, limit.limit, limit.window_seconds)
                if not verdict.allowed:
                    return Decision(merchant_id, response=await self._throttled(scope, verdict))
            elif outcome.status is not None:
                response = await self._fault(scope, outcome)
                if verdict is not None and outcome.status != 429:
                    response.headers.update(_rate_headers(verdict))  # it counted
                return Decision(merchant_id, response=response)
        if verdict is None:
            return Decision(merchant_id)
        headers = _rate_headers(verdict)
        encoded = [(k.lower().encode(), v.encode()) for k, v in headers.items()]
        return Decision(merchant_id, headers=encoded)

    async def _throttled(self, scope: Scope, verdict: Verdict) -> Response:
        retry = max(verdict.reset_s - self._rt.clock.now_us() // 1_000_000, 1)
        error = RateLimited(
            f"Request was throttled: more than {verdict.limit} requests in the window."
            f" Expected available in {retry} seconds."
        )
        response = await self._dialects.api_error(Request(scope), error)
        response.headers.update({**_rate_headers(verdict), "Retry-After": str(retry)})
        return response

    def _hit(self, key: Any, limit: int, window_s: int) -> Verdict:
        return self._rt.limiter.hit(key, limit, window_s, self._rt.clock.now_us() // 1_000_000)

    async def _fault(self, scope: Scope, outcome: HttpRequest) -> Response:
        assert outcome.status is not None
        response = await self._dialects.api_error(Request(scope), FAULTS[outcome.status]())
        retry = outcome.retry_after_seconds
        if retry is None and outcome.status in (429, 503):
            retry = 1
        if retry is not None:
            response.headers["Retry-After"] = str(retry)
        if outcome.status == 429:
            now_s = self._rt.clock.now_us() // 1_000_000
            setting = self._rt.settings.rate_limit
            limit = setting.limit if setting is not None else NOMINAL_LIMIT
            response.headers.update(_rate_headers(Verdict(False, limit, 0, now_s + (retry or 1))))
        return response


def _rate_headers(verdict: Verdict) -> dict[str, str]:
    return {
        "X-RateLimit-Limit": str(verdict.limit),
        "X-RateLimit-Remaining": str(max(verdict.remaining, 0)),
        "X-RateLimit-Reset": str(verdict.reset_s),
    }


def drop_connection(scope: Scope) -> bool:
    """Close the client's connection without an answer. Under uvicorn the server's ``send``
    belongs to the request's protocol cycle, which holds the transport: abort it, and tell the
    cycle the client is gone so it writes no 500 of its own. Elsewhere (in-process transports)
    there is no connection to close: returns False, and the app raises what an HTTP client
    raises for a dropped connection."""
    send: Send | None = scope.get(SERVER_SEND)
    cycle = getattr(send, "__self__", None)
    transport = getattr(cycle, "transport", None)
    if transport is None or not hasattr(cycle, "disconnected"):
        return False
    transport.abort()
    cycle.disconnected = True  # type: ignore[union-attr]
    return True
