"""``LiveServer``: the real emulator under uvicorn in a background thread of this process.

The socket is bound in the calling thread (127.0.0.1, a free port), so ``url`` is known before
the thread starts; ``start()`` returns once uvicorn serves and the health check answers.
``emulator.testing.EmulatorServer`` adds the test conveniences on top.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import shutil
import socket
import tempfile
import threading
import time
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Literal, Self, TypeVar

import httpx
import uvicorn

from emulator.http.protocol import JoinedWritesProtocol
from emulator.kernel.clock import Mode, parse_iso
from emulator.testing.direct import (
    Answer,
    ASGIApp,
    Exchanger,
    Headers,
    NoAnswer,
    Target,
    asgi_exchange,
)

if TYPE_CHECKING:
    from emulator.runtime.runtime import Runtime

T = TypeVar("T")
LoopKind = Literal["auto", "uvloop", "asyncio"]


class EmulatorStartError(RuntimeError):
    """An emulator did not come up, or does not answer."""


def loop_factory(kind: LoopKind = "auto") -> Callable[[], asyncio.AbstractEventLoop]:
    """The server thread's event loop.

    freezegun replaces ``time.monotonic`` process-wide and a plain asyncio loop reads its timers
    through it, so inside ``freeze_time`` no ``sleep`` or ``timeout`` of the server would ever
    fall due (the scheduler's ticker, uvicorn's shutdown). uvloop keeps time in libuv, out of
    freezegun's reach; without uvloop (Windows, PyPy), ``RealTimeLoop`` reads the real monotonic
    clock. Both leave ``time.time`` to freezegun, so the emulator's real-mode clock follows it.
    (``freezegun.configure(extend_ignore_list=["asyncio"])`` would work too, but it changes
    freezegun for the whole test session.)
    """
    if kind != "asyncio":
        try:
            import uvloop
        except ImportError:
            if kind == "uvloop":
                raise
        else:
            return uvloop.new_event_loop
    return RealTimeLoop


class RealTimeLoop(asyncio.SelectorEventLoop):
    """An asyncio loop whose timers keep real time while freezegun is active."""

    def __init__(self) -> None:
        super().__init__()
        try:
            from freezegun.api import real_monotonic
        except ImportError:
            real_monotonic = time.monotonic
        self._monotonic = real_monotonic

    def time(self) -> float:
        return self._monotonic()


class _Server(uvicorn.Server):
    """uvicorn, telling the waiting thread when it serves."""

    def __init__(self, config: uvicorn.Config, ready: threading.Event) -> None:
        super().__init__(config)
        self.ready = ready

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets)
        self.ready.set()


class InProcessTransport(Exchanger):
    """An httpx transport that hands each request to the in-process emulator's app on the
    server's own event loop (as ``httpx.ASGITransport`` would: ``direct.asgi_exchange``): the
    same app, the same answers, without encoding and parsing HTTP/1.1 on both sides of a
    loopback socket (httpcore and h11 in the caller's thread, httptools and uvicorn in the
    server's: a third of a control-plane call's CPU). ``EmulatorClient`` calls it without
    httpx's request and response objects (``direct.DirectCall``). ``EmulatorServer.client()``
    uses it; the clients a test gets for the merchant's interfaces (``gateway``, ``bank``)
    stay on real HTTP.

    What an HTTP client sees stays: the client's read timeout bounds the wait for an answer
    (``httpx.ReadTimeout``); a server that is not running is ``httpx.ConnectError``, one that
    stops before answering ``httpx.RemoteProtocolError``; an answer is read whole, as every
    control-plane answer is JSON (none streams)."""

    def __init__(self, server: LiveServer) -> None:
        self._server = server

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        body = request.read()  # its body, as the sync client built it
        headers = [(key.lower(), value) for key, value in request.headers.raw]
        timeout = request.extensions.get("timeout", {}).get("read")
        status, answer_headers, answer = self.exchange(
            request.method, Target.of(request.url), headers, body, timeout, lambda: request
        )
        return httpx.Response(status, headers=answer_headers, content=answer)

    def exchange(
        self,
        method: str,
        target: Target,
        headers: Headers,
        body: bytes,
        timeout: float | None,
        request: Callable[[], httpx.Request],
    ) -> Answer:
        server = self._server
        loop, app = server._event_loop, server.app
        if loop is None or app is None or not server.running or loop.is_closed():
            raise httpx.ConnectError("the in-process emulator is not running", request=request())
        try:
            future = asyncio.run_coroutine_threadsafe(
                asgi_exchange(app, method, target, headers, body), loop
            )
        except RuntimeError:  # the loop closed meanwhile
            raise httpx.ConnectError(
                "the in-process emulator is not running", request=request()
            ) from None
        try:
            return future.result(timeout)
        except TimeoutError:  # concurrent.futures'
            future.cancel()
            raise httpx.ReadTimeout(f"no answer in {timeout} s", request=request()) from None
        except (concurrent.futures.CancelledError, NoAnswer):  # the server stopped under it
            raise httpx.RemoteProtocolError(
                "Server disconnected without sending a response.", request=request()
            ) from None


class LiveServer:
    """``create_app(Runtime(Settings(...)))`` served by uvicorn in a daemon thread.

    ``db_path`` defaults to a fresh temporary directory that ``stop`` deletes; ``clock`` and
    ``start`` set the clock (default: real mode on system time); ``seed`` makes ids repeatable;
    ``admin_token`` makes the control plane require it (as ``--admin-token`` does).
    """

    def __init__(
        self,
        *,
        db_path: Path | str | None = None,
        clock: Mode | None = None,
        start: datetime | str | None = None,
        seed: int | None = None,
        admin_token: str | None = None,
        ticker_interval: float = 1.0,
        loop: LoopKind = "auto",
        timeout: float = 10.0,
    ) -> None:
        self.db_path = Path(db_path) if db_path is not None else None
        if isinstance(start, str):
            start = parse_iso(start)
        elif start is not None and start.tzinfo is None:
            start = start.replace(tzinfo=UTC)  # naive means UTC, as everywhere in the emulator
        self.clock, self.start_at, self.seed = clock, start, seed
        self.admin_token = admin_token
        self.ticker_interval, self.loop, self.timeout = ticker_interval, loop, timeout
        self.url = ""
        self._tmpdir: str | None = None
        self._sock: socket.socket | None = None
        self._runtime: Runtime | None = None
        self._app: ASGIApp | None = None
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None
        self._event_loop: asyncio.AbstractEventLoop | None = None
        self._failure: BaseException | None = None

    @property
    def app(self) -> ASGIApp | None:
        """The emulator's ASGI app while it is built (``InProcessTransport`` calls it)."""
        return self._app

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def start(self) -> Self:
        if self._thread is not None:
            return self
        ready = threading.Event()
        try:
            self._server = self._build(ready)
        except BaseException:
            self._release()
            raise
        self._thread = threading.Thread(
            target=self._run, args=(ready,), name=f"emulator {self.url}", daemon=True
        )
        self._thread.start()
        problem = self._await_health(ready)
        if problem:
            failure = self._shutdown()
            detail = f": {failure!r}" if failure is not None else ""
            raise EmulatorStartError(
                f"the in-process emulator at {self.url} did not start ({problem}{detail})"
            ) from failure
        return self

    def _build(self, ready: threading.Event) -> _Server:
        """Bind the socket, make the database directory, the runtime, the app and uvicorn."""
        # Imported here: importing this module (or a pytest run that never starts a server)
        # does not load the whole app.
        from emulator.runtime.runtime import Runtime
        from emulator.runtime.settings import Settings
        from emulator.serving.app import create_app

        self._sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._sock.bind(("127.0.0.1", 0))
        if self.db_path is None:
            self._tmpdir = tempfile.mkdtemp(prefix="payments-emulator-")
        settings = Settings(
            port=self._sock.getsockname()[1],
            db_path=self.db_path or Path(self._tmpdir or ".") / "emulator.sqlite3",
            clock=self.clock or "real",
            start=self.start_at,
            clock_explicit=self.clock is not None or self.start_at is not None,
            seed=self.seed,
            admin_token=self.admin_token,
            ticker_interval=self.ticker_interval,
        )
        self.url = settings.base_url
        self._runtime = Runtime(settings)
        app = self._app = create_app(self._runtime)
        # log_config=None: the test process's logging stays as it is.
        config = uvicorn.Config(
            app,
            http=JoinedWritesProtocol,  # serve's
            lifespan="on",
            ws="none",
            log_config=None,
            timeout_graceful_shutdown=5,
        )
        return _Server(config, ready)  # built before the thread, so stop() can always reach it

    def _await_health(self, ready: threading.Event) -> str:
        """'' once uvicorn serves and ``GET /_emulator/health`` answers 200, else the problem.
        (threading waits keep real time: freezegun leaves that module alone.)"""
        if not ready.wait(self.timeout):
            return f"not serving after {self.timeout}s"
        if self._failure is not None or not self.running:
            return "the server thread stopped"
        try:
            headers = {"Authorization": f"Bearer {self.admin_token}"} if self.admin_token else {}
            response = httpx.get(
                f"{self.url}/_emulator/health", headers=headers, timeout=self.timeout
            )
        except httpx.TransportError as exc:
            return f"health check: {exc!r}"
        return "" if response.status_code == 200 else f"health check: HTTP {response.status_code}"

    def _run(self, ready: threading.Event) -> None:
        """The server thread: its own event loop, the runtime, then uvicorn."""
        try:
            with asyncio.Runner(loop_factory=loop_factory(self.loop)) as runner:
                runner.run(self._serve())
        except BaseException as exc:  # reported by start() or stop(), in the calling thread
            self._failure = exc
        finally:
            ready.set()

    async def _serve(self) -> None:
        assert self._runtime is not None and self._server is not None and self._sock is not None
        self._event_loop = asyncio.get_running_loop()
        # Started here rather than by the app's lifespan, so that a failure to start surfaces
        # as the runtime's own exception rather than as uvicorn's exit code.
        async with self._runtime:
            await self._server.serve(sockets=[self._sock])

    def call(self, fn: Callable[[Runtime], Awaitable[T]], timeout: float = 10.0) -> T:
        """Run ``await fn(runtime)`` on the server's event loop; its result."""
        loop, runtime = self._event_loop, self._runtime
        if loop is None or runtime is None or not self.running:
            raise RuntimeError("the in-process emulator is not running")

        async def invoke() -> T:
            return await fn(runtime)

        return asyncio.run_coroutine_threadsafe(invoke(), loop).result(timeout)

    def stop(self) -> None:
        """Stop uvicorn and the runtime, join the thread, delete the temporary database; raises
        if the server failed while it ran."""
        if self._thread is not None and (failure := self._shutdown()) is not None:
            raise RuntimeError(f"the in-process emulator failed: {failure!r}") from failure

    def _shutdown(self) -> BaseException | None:
        assert self._thread is not None and self._server is not None
        self._server.should_exit = True
        self._thread.join(self.timeout)
        if self._thread.is_alive():
            self._server.force_exit = True
            self._thread.join(self.timeout)
        if self._thread.is_alive():
            raise RuntimeError(f"the in-process emulator at {self.url} did not stop")
        failure, self._failure = self._failure, None
        self._release()
        return failure

    def _release(self) -> None:
        if self._sock is not None:
            self._sock.close()  # uvicorn has closed it, unless the start failed before
        if self._tmpdir is not None:
            shutil.rmtree(self._tmpdir, ignore_errors=True)
        self._thread = self._server = self._sock = self._event_loop = self._runtime = None
        self._app = None
        self._tmpdir = None

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()
