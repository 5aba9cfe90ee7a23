"""How deliveries are sent (``Sender``): over the network by the lean keep-alive client
(``delivery.client``); through httpx a URL that client leaves alone (``client.simple``), a test's
own transport, and requests to the emulator's own address while no server is serving it: those
reach its app in-process (``httpx.ASGITransport`` tests), so deliveries to the built-in sink work
there too; with a real server they go over real loopback HTTP."""

from __future__ import annotations

import asyncio
import functools
import ssl
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx

from emulator.delivery.client import Client
from emulator.domain.urls import control_path

TIMEOUT_SECONDS = 5.0
LOOPBACK = frozenset({"127.0.0.1", "localhost", "::1"})


def verifier(trust: tuple[Path, ...]) -> ssl.SSLContext | bool:
    if not trust:
        return True  # httpx's default: the system's (certifi's) CAs
    context = ssl.create_default_context()
    for path in trust:
        context.load_verify_locations(cafile=path)
    return context


def ssl_context(trust: tuple[Path, ...]) -> ssl.SSLContext:
    """The TLS context deliveries verify with: made once per process for the same trusted files
    (as they are now), since loading the system's CAs costs ~30 ms, most of a runtime's start."""
    return _context_of(tuple((path, *_stamp(path)) for path in trust))


def _stamp(path: Path) -> tuple[int, int]:
    try:
        stat = path.stat()
    except OSError:
        return (-1, -1)  # loading it fails below, as it would have
    return (stat.st_mtime_ns, stat.st_size)


@functools.lru_cache(maxsize=16)
def _context_of(files: tuple[tuple[Path, int, int], ...]) -> ssl.SSLContext:
    return httpx.create_ssl_context(verify=verifier(tuple(path for path, _, _ in files)))


class SelfRoutingTransport(httpx.AsyncBaseTransport):
    def __init__(
        self,
        port: int,
        app: Callable[[], Any | None],
        trust: tuple[Path, ...] = (),
        context: ssl.SSLContext | None = None,
    ) -> None:
        """``app()`` is the emulator's ASGI app while it is not served by a real server
        (else None); ``port`` the one the settings name; ``trust``: CA files trusted besides
        the system's (``--callback-ca``, the emulator's own CA under ``--tls``), or the
        ``context`` made of them."""
        self._port = port
        self._app = app
        self._trust, self._context = trust, context
        # Made by the first request over the network (importing httpcore, loading the CAs:
        # most of what a runtime's start did before its first answer).
        self._network: httpx.AsyncHTTPTransport | None = None

    def network(self) -> httpx.AsyncHTTPTransport:
        if self._network is None:
            verify = self._context or ssl_context(self._trust)
            self._network = httpx.AsyncHTTPTransport(verify=verify)
        return self._network

    def _in_process(self, url: httpx.URL) -> Any | None:
        return self.in_process(url.host, url.port or 80)

    def in_process(self, host: str, port: int) -> Any | None:
        """The app, when a request to ``host:port`` is served in-process."""
        if host not in LOOPBACK or port != self._port:
            return None
        return self._app()

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if control_path(request.url.path):  # a URL stored before the rule (an old snapshot)
            raise httpx.ConnectError("refused: the emulator's control plane", request=request)
        app = self._in_process(request.url)
        if app is None:
            return await self.network().handle_async_request(request)
        # ASGITransport has no timeouts of its own; a request to the emulator's own API would
        # otherwise wait forever for the job runner that is sending it.
        seconds = request.extensions.get("timeout", {}).get("read") or TIMEOUT_SECONDS
        try:
            async with asyncio.timeout(seconds):
                return await httpx.ASGITransport(app=app).handle_async_request(request)
        except TimeoutError:
            raise httpx.ReadTimeout("no answer in time", request=request) from None

    async def aclose(self) -> None:
        if self._network is not None:
            await self._network.aclose()


class Sender:
    """Sends a delivery's POST; ``transport``: a test's own (everything goes through it)."""

    def __init__(
        self,
        port: int,
        app: Callable[[], Any | None],
        trust: tuple[Path, ...] = (),
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        # The lean client is made by the first delivery, not before the server's first answer;
        # the TLS context (the system's CAs loaded) by its first https one.
        self._routing = SelfRoutingTransport(port, app, trust)
        self._trust, self._lean = trust, transport is None
        self._client: Client | None = None
        self._http = httpx.AsyncClient(
            transport=transport or self._routing, timeout=TIMEOUT_SECONDS
        )

    async def post(self, url: str, body: bytes, headers: dict[str, str]) -> int:
        """The status of the answer. Raises when there was none: ``TimeoutError`` or
        ``httpx.TimeoutException`` after ``TIMEOUT_SECONDS``, else why (refused, reset...)."""
        client = self._client
        if client is None and self._lean:
            client = self._client = Client(functools.partial(ssl_context, self._trust))
        target = client.target(url) if client is not None else None
        if target is None or self._routing.in_process(target.host, target.port) is not None:
            response = await self._http.post(url, content=body, headers=headers)
            return response.status_code
        assert client is not None
        async with asyncio.timeout(TIMEOUT_SECONDS):
            return await client.post(target, headers, body)

    async def aclose(self) -> None:
        if self._client is not None:
            self._client.close()
        await self._http.aclose()
