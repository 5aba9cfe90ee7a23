"""ASGI middleware around the whole emulator: serve each request on its merchant's clock (having
run what is due on it), journal it, and tell the caller the emulator's time."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from emulator.http.common import CALLER_KEY, NOTE_KEY
from emulator.http.dialects import Dialects
from emulator.http.faults import DROPPED, Decision, Faults, drop_connection
from emulator.kernel.clock import TIME_HEADER, from_us, iso
from emulator.kernel.journal import Entry, body_text

if TYPE_CHECKING:
    from emulator.runtime import Runtime

# Path prefix → interface name, for requests that are journaled and see due work first.
NO_FAULT = Decision()

# Payout execution URLs (/payouts/...) are pages of the gateway.
INTERFACES = (
    ("/api/v1/", "gateway"),
    ("/payouts/", "gateway"),
    ("/v2/", "bank"),
    ("/oauth2/", "auth"),
)


# The authenticated merchant's instant (ISO-8601 UTC) on every interface's answer.
TIME_HEADER_RAW = TIME_HEADER.lower().encode()


def interface_of(path: str) -> str | None:
    for prefix, name in INTERFACES:
        if path.startswith(prefix):
            return name
    return None


class EmulatorMiddleware:
    def __init__(self, app: ASGIApp, runtime: Runtime, dialects: Dialects) -> None:
        self.app = app
        self.rt = runtime
        self.faults = Faults(runtime, dialects)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        # Every request starts on the server clock (pages and the control plane move to an
        # object's merchant's when they name one); whatever it sets is undone when it ends, so
        # nothing leaks into a caller that runs it in-process (a delivery to the sink).
        clocks = self.rt.clock
        token = clocks.use(clocks.server)
        try:
            interface = interface_of(scope["path"])
            if interface is None:
                await self.app(scope, receive, send)
            else:
                await self._interface(scope, receive, send, interface)
        finally:
            clocks.restore_use(token)

    async def _interface(self, scope: Scope, receive: Receive, send: Send, interface: str) -> None:
        # A request made with a merchant's credentials is served on that merchant's clock, and
        # first runs what is already due on it, so observed state is never stale.
        merchant_id = await self._merchant(scope)
        await self.rt.enter(merchant_id)
        started = time.perf_counter_ns()
        at_us = self.rt.clock.now_us()
        request_chunks: list[bytes] = []
        response_chunks: list[bytes] = []
        status = 500

        async def journal_receive() -> Message:
            message = await receive()
            if message["type"] == "http.request":
                request_chunks.append(message.get("body", b""))
            return message

        decision = NO_FAULT

        async def journal_send(message: Message) -> None:
            nonlocal status, at_us
            if message["type"] == "http.response.start":
                status = message["status"]
                # the instant as served (a page that names an object is served on the clock of
                # that object's merchant)
                at_us = self.rt.clock.now_us()
                now = iso(from_us(at_us)).encode()
                message = {
                    **message,
                    "headers": [*message["headers"], *decision.headers, (TIME_HEADER_RAW, now)],
                }
            elif message["type"] == "http.response.body":
                response_chunks.append(message.get("body", b""))
            await send(message)

        try:
            if self.faults.active():
                decision = await self.faults.decide(scope, interface, merchant_id)
            if decision.drop:
                status = 0  # journaled as 0: no answer at all
                if not drop_connection(scope):
                    scope[DROPPED] = True
            elif decision.response is not None:
                await decision.response(scope, journal_receive, journal_send)
            else:
                await self.app(scope, journal_receive, journal_send)
        finally:
            caller = scope.get(CALLER_KEY)
            self.rt.journal.record(
                Entry(
                    at_us=at_us,
                    merchant_id=getattr(caller, "merchant_id", merchant_id),
                    interface=interface,
                    method=scope["method"],
                    path=scope["path"],
                    query=scope.get("query_string", b"").decode("latin-1"),
                    status=status,
                    request_body=body_text(b"".join(request_chunks)),
                    response_body=body_text(b"".join(response_chunks)),
                    duration_us=(time.perf_counter_ns() - started) // 1000,
                    note=scope.get(NOTE_KEY),
                )
            )

    async def _merchant(self, scope: Scope) -> str | None:
        """The merchant the request's credentials name, if any (its handler judges them)."""
        for name, value in scope["headers"]:
            if name == b"authorization":
                return await self.rt.credentials.merchant_of(value.decode("latin-1"))
        return None
