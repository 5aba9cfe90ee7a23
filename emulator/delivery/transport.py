"""The delivery client's transport: requests to the emulator's own address reach its app
in-process when no server is serving it (``httpx.ASGITransport`` tests), so deliveries to the
built-in sink work there too; with a real server they go over real loopback HTTP."""

from __future__ import annotations

import asyncio
import ssl
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx

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


class SelfRoutingTransport(httpx.AsyncBaseTransport):
    def __init__(
        self, port: int, app: Callable[[], Any | None], trust: tuple[Path, ...] = ()
    ) -> None:
        """``app()`` is the emulator's ASGI app while it is not served by a real server
        (else None); ``port`` the one the settings name; ``trust``: CA files trusted besides
        the system's (``--callback-ca``, the emulator's own CA under ``--tls``)."""
        self._port = port
        self._app = app
        self._network = httpx.AsyncHTTPTransport(verify=verifier(trust))

    def _in_process(self, url: httpx.URL) -> Any | None:
        if url.host not in LOOPBACK or (url.port or 80) != self._port:
            return None
        return self._app()

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if control_path(request.url.path):  # a URL stored before the rule (an old snapshot)
            raise httpx.ConnectError("refused: the emulator's control plane", request=request)
        app = self._in_process(request.url)
        if app is None:
            return await self._network.handle_async_request(request)
        # ASGITransport has no timeouts of its own; a request to the emulator's own API would
        # otherwise wait forever for the job runner that is sending it.
        seconds = request.extensions.get("timeout", {}).get("read") or TIMEOUT_SECONDS
        try:
            async with asyncio.timeout(seconds):
                return await httpx.ASGITransport(app=app).handle_async_request(request)
        except TimeoutError:
            raise httpx.ReadTimeout("no answer in time", request=request) from None

    async def aclose(self) -> None:
        await self._network.aclose()
