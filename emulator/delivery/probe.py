"""``Probe``: one POST of a receiver check (``emulator/sandbox/receiver_checks/service.py``), with
the check's own timeout, measured.

The check's timeout is a real wait on the HTTP client, the one place a real wait is right: the
platform gives up on an answer after ``transport.TIMEOUT_SECONDS`` of wall time, whatever the
merchant's clock says. Requests to the emulator's own address while no server serves it reach
its app in-process, as deliveries do (``transport.SelfRoutingTransport``).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import msgspec

from emulator.delivery.transport import SelfRoutingTransport, ssl_context


class Answer(msgspec.Struct, frozen=True):
    """What came back: the status (None: no answer in time, or none at all), the seconds it
    took, and why there was none."""

    status: int | None
    seconds: float
    error: str = ""


class Probe:
    """Sends the checks' messages to one receiver; use ``async with``."""

    def __init__(
        self,
        port: int,
        app: Callable[[], Any | None],
        timeout: float,
        trust: tuple[Path, ...] = (),
    ) -> None:
        self.timeout = timeout
        routing = SelfRoutingTransport(port, app, context=ssl_context(trust))
        self._http = httpx.AsyncClient(transport=routing, timeout=timeout)

    async def post(self, url: str, body: bytes, headers: dict[str, str]) -> Answer:
        started = time.monotonic()
        try:
            response = await self._http.post(url, content=body, headers=headers)
        except httpx.TimeoutException:
            return Answer(None, time.monotonic() - started, f"no answer in {self.timeout:g} s")
        except (httpx.HTTPError, OSError) as exc:
            why = str(exc) or type(exc).__name__
            return Answer(None, time.monotonic() - started, why[:200])
        return Answer(response.status_code, time.monotonic() - started)

    async def __aenter__(self) -> Probe:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self._http.aclose()
