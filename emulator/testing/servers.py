"""The emulators a test can use: one started in this process (``EmulatorServer``) or one
already running elsewhere (``ExternalEmulator``); ``emulator.testing`` re-exports both."""

from __future__ import annotations

import abc
import time
from typing import Self

import httpx

from emulator.testing.client import EmulatorClient
from emulator.testing.live_server import EmulatorStartError, InProcessTransport, LiveServer
from emulator.testing.records import EmulatorError

POLL = 0.02  # seconds between polls of a starting server


class Emulator(abc.ABC):
    """An emulator reachable over HTTP: ``EmulatorServer`` or ``ExternalEmulator``."""

    url: str  # base URL of every interface, e.g. http://127.0.0.1:8400
    admin_token: str | None = None

    @abc.abstractmethod
    def start(self) -> Self: ...

    @abc.abstractmethod
    def stop(self) -> None: ...

    def client(self, *, timeout: float = 10.0) -> EmulatorClient:
        return EmulatorClient(self.url, admin_token=self.admin_token, timeout=timeout)

    def follow_system_time(self) -> None:
        """Real mode with the clock on system time, as a fresh emulator has it."""
        with self.client() as client:
            client.resume(system=True)

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()


class ExternalEmulator(Emulator):
    """An emulator that is already running elsewhere (``make run``, a service in CI)."""

    def __init__(self, url: str, *, admin_token: str | None = None, timeout: float = 5.0) -> None:
        self.url, self.admin_token, self.timeout = url.rstrip("/"), admin_token, timeout

    def start(self) -> Self:
        """Wait (up to ``timeout``) until it answers the health check; starts nothing."""
        with self.client(timeout=2.0) as client:
            for attempt in range(max(1, round(self.timeout / POLL))):
                if attempt:
                    time.sleep(POLL)
                try:
                    client.health()
                    return self
                except (httpx.TransportError, EmulatorError) as exc:
                    problem = f"{type(exc).__name__}: {exc}"
        raise EmulatorStartError(
            f"no emulator answers GET {self.url}/_emulator/health ({problem}); "
            "start one with `make run` or `payments-emulator serve`"
        )

    def stop(self) -> None:
        """Nothing to stop: it belongs to someone else."""


class EmulatorServer(LiveServer, Emulator):
    """The real emulator in a background thread of this process (see ``LiveServer``). Its
    control clients (``client()``) call the app on the server's loop (``InProcessTransport``);
    the merchant's clients (``gateway``, ``bank``) and any client given ``url`` use HTTP."""

    def client(self, *, timeout: float = 10.0) -> EmulatorClient:
        return EmulatorClient(
            self.url,
            admin_token=self.admin_token,
            timeout=timeout,
            transport=InProcessTransport(self),
        )
