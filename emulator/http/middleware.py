"""The one ASGI layer around the whole emulator (``Front``): for every HTTP request it catches
server errors (answered in the interface's dialect), writes the compact access-log line, serves
the request on its merchant's clock (having run what is due on it), journals it, and tells the
caller the emulator's time and the keys of its body the platform ignores (``http/lint.py``).
One layer instead of four (Starlette's server-error middleware, the access log, the admin guard
and the clock and journal each wrapped ``send``): each costs every request a coroutine and a
``send`` wrapper."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from starlette.requests import Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from emulator.core.merchants import service as merchants
from emulator.domain.errors import InvalidToken
from emulator.http.accesslog import AccessLog, line
from emulator.http.common import CALLER_KEY, NOTE_KEY
from emulator.http.dialects import Handler
from emulator.http.faults import DROPPED, SERVER_SEND, Decision, Faults, drop_connection
from emulator.http.lint import HEADER as WARNINGS_HEADER
from emulator.http.lint import WARNINGS_KEY, header_value
from emulator.kernel.clock import TIME_HEADER
from emulator.kernel.journal import Entry, body_text
from emulator.sandbox.flows import routes_moves as flow_moves

if TYPE_CHECKING:
    from emulator.runtime.runtime import Runtime

NO_FAULT = Decision()

# Path prefix → interface name, for requests that are journaled and see due work first.
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


class _Instants:
    """``iso(from_us(us))`` as bytes, the second's part kept from the last call: under load
    most answers fall in the same second as the one before."""

    def __init__(self) -> None:
        self._second = -1
        self._prefix = ""

    def encode(self, us: int) -> bytes:
        second, micro = divmod(us, 1_000_000)
        if second != self._second:
            self._prefix = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(second))
            self._second = second
        if micro:
            return f"{self._prefix}.{micro:06d}Z".encode()
        return f"{self._prefix}Z".encode()


class Front:
    """``app``: the routes behind Starlette's exception layer (domain errors in each dialect);
    ``guarded``: the same behind the admin guard (the control plane's paths); ``server_error``:
    the handler of anything else raised (answered if nothing was sent yet, then re-raised so the
    server logs it, as Starlette's own server-error middleware does)."""

    def __init__(
        self,
        app: ASGIApp,
        guarded: ASGIApp,
        runtime: Runtime,
        faults: Faults,
        access_log: AccessLog,
        server_error: Handler,
        api_error: Handler,
    ) -> None:
        self.app = app
        self.guarded = guarded
        self.rt = runtime
        self.faults = faults
        self.log = access_log
        self.server_error = server_error
        self.api_error = api_error
        self.instants = _Instants()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter_ns()
        scope[SERVER_SEND] = send  # a scenario's drop closes the connection through it
        status = 0
        # Every request starts on the server clock (pages and the control plane move to an
        # object's merchant's when they name one); whatever it sets is undone when it ends, so
        # nothing leaks into a caller that runs it in-process (a delivery to the sink).
        clocks = self.rt.clock
        token = clocks.use(clocks.server)

        async def logged_send(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        try:
            interface = interface_of(scope["path"])
            try:
                if flow_moves.watched(scope):  # a move of the other side, for the recorder
                    await flow_moves.watch(self.rt, self._serve, scope, receive, logged_send)
                elif interface is None:
                    await self.guarded(scope, receive, logged_send)
                else:
                    await self._interface(scope, receive, logged_send, interface)
            except Exception as exc:
                if not status:
                    response = await self.server_error(Request(scope), exc)
                    await response(scope, receive, logged_send)
                raise
        finally:
            # The scope holds the server's send, a method of the cycle that holds the scope: a
            # reference cycle per request, left to the garbage collector, whose young
            # collections then freed a thousand requests at a time (5-20 ms stalls).
            scope.pop(SERVER_SEND, None)
            clocks.restore_use(token)
            if self.log.enabled():
                self.log.add(line(scope, status, time.perf_counter_ns() - started))

    async def _serve(self, scope: Scope, receive: Receive, send: Send) -> None:
        interface = interface_of(scope["path"])
        if interface is None:
            await self.guarded(scope, receive, send)
        else:
            await self._interface(scope, receive, send, interface)

    async def _caller_deleted(self, scope: Scope, exc: Exception) -> bool:
        """A write refused by a foreign key because the caller's merchant is gone (deleted
        between its authentication and its commit)."""
        caller = scope.get(CALLER_KEY)
        return caller is not None and await merchants.gone_under(self.rt, caller.merchant_id, exc)

    async def _interface(self, scope: Scope, receive: Receive, send: Send, interface: str) -> None:
        # A request made with a merchant's credentials is served on that merchant's clock, and
        # first runs what is already due on it, so observed state is never stale.
        merchant_id = await self._merchant(scope)
        await self.rt.enter(merchant_id)
        started = time.perf_counter_ns()
        at_us = self.rt.clock.now_us()
        request_chunks: list[bytes] = []
        response_chunks: list[bytes] = []
        status = 500  # journaled when nothing was answered
        answered = False
        decision = NO_FAULT

        async def journal_receive() -> Message:
            message = await receive()
            if message["type"] == "http.request":
                request_chunks.append(message.get("body", b""))
            return message

        async def journal_send(message: Message) -> None:
            nonlocal status, at_us, answered
            if message["type"] == "http.response.start":
                status = message["status"]
                answered = True
                # the instant as served (a page that names an object is served on the clock of
                # that object's merchant)
                at_us = self.rt.clock.now_us()
                headers = [
                    *message["headers"],
                    *decision.headers,
                    (TIME_HEADER_RAW, self.instants.encode(at_us)),
                ]
                warnings = scope.get(WARNINGS_KEY)
                if warnings:  # keys the platform ignores (emulator/http/lint.py)
                    headers.append((WARNINGS_HEADER, header_value(warnings)))
                message = {**message, "headers": headers}
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
        except Exception as exc:
            if not answered and await self._caller_deleted(scope, exc):
                # its merchant was deleted after it authenticated: its key is no longer valid
                gone = InvalidToken("the merchant was deleted while its request ran")
                response = await self.api_error(Request(scope), gone)
                await response(scope, journal_receive, journal_send)
                return
            if not answered:  # the dialect's 500, journaled
                response = await self.server_error(Request(scope), exc)
                await response(scope, journal_receive, journal_send)
            raise
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
                    warnings="\n".join(scope.get(WARNINGS_KEY) or ()) or None,
                )
            )

    async def _merchant(self, scope: Scope) -> str | None:
        """The merchant the request's credentials name, if any (its handler judges them)."""
        for name, value in scope["headers"]:
            if name == b"authorization":
                return await self.rt.credentials.merchant_of(value.decode("latin-1"))
        return None
