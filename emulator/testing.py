"""Test helpers that need no pytest: a live emulator, its control plane, merchants, sinks.

``emulator.pytest_plugin`` is a thin shim over these classes::

    with EmulatorServer() as server, server.client() as control:
        merchant = control.new_merchant()
        with control.gateway(merchant) as gateway:
            gateway.post("clients/", json={"email": "jane@example.com"})

The in-process emulator's real-mode clock reads ``time.time()``, so freezegun (or time-machine)
in a test moves the emulator too (``emulator.live_server.loop_factory`` says why its event loop
keeps running meanwhile). Waits here poll in real time with ``time.sleep`` and a bounded number
of attempts, never against a deadline read from a clock that a test may have frozen.
"""

from __future__ import annotations

import abc
import re
import time
import uuid
from datetime import UTC, datetime, timedelta
from typing import Any, Self

import httpx
import msgspec

from emulator.kernel.clock import Mode, iso, parse_iso
from emulator.live_server import EmulatorStartError, LiveServer
from emulator.testing_records import (
    ClientCredentials,
    ClockInfo,
    EmulatorError,
    Merchant,
    Profile,
    SinkMessage,
)

__all__ = [
    "ClientCredentials", "ClockInfo", "Emulator", "EmulatorClient", "EmulatorClock",
    "EmulatorError", "EmulatorServer", "EmulatorStartError", "ExternalEmulator", "Merchant",
    "Profile", "Sink", "SinkMessage", "unique_name",
]  # fmt: skip

Instant = datetime | str  # an ISO-8601 string or a datetime (naive means UTC)
POLL = 0.02  # seconds between polls of a starting server or a sink


def _instant(value: Instant) -> str:
    moment = parse_iso(value) if isinstance(value, str) else value
    return iso(moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC))


def unique_name(prefix: str = "sink") -> str:
    """A sink or snapshot name that no other test, or pytest-xdist worker, will pick."""
    cleaned = re.sub(r"[^A-Za-z0-9_.-]+", "-", prefix).strip("-_.")[:48] or "sink"
    return f"{cleaned}-{uuid.uuid4().hex[:12]}"


class Sink:
    """The built-in receiver under one name: register ``url`` as a webhook or callback URL."""

    def __init__(self, client: EmulatorClient, name: str) -> None:
        self.client, self.name = client, name
        self.url = f"{client.url}/_emulator/sink/{name}"

    def messages(self) -> list[SinkMessage]:
        """What arrived so far, oldest first."""
        return msgspec.convert(
            self.client.call("GET", f"sink/{self.name}")["messages"], list[SinkMessage]
        )

    def clear(self) -> int:
        """Forget what arrived; returns how many messages that was."""
        return int(self.client.call("DELETE", f"sink/{self.name}")["deleted"])

    def wait_for(self, count: int = 1, timeout: float = 5.0) -> list[SinkMessage]:
        """Poll (in real time) until at least ``count`` messages arrived; returns them all."""
        for attempt in range(max(1, round(timeout / POLL)) + 1):
            if attempt:
                time.sleep(POLL)
            messages = self.messages()
            if len(messages) >= count:
                return messages
        raise TimeoutError(
            f"sink {self.name!r} received {len(messages)} of {count} message(s) in {timeout}s: "
            f"{[m.body[:200] for m in messages]}"
        )


def _scope(merchant: Merchant | str | None) -> dict[str, Any]:
    if merchant is None:
        return {}
    return {"merchant": merchant.company_id if isinstance(merchant, Merchant) else merchant}


class EmulatorClient:
    """The control plane (``/_emulator/``) of one emulator, over ``httpx``.

    Every method raises ``EmulatorError`` on a non-2xx answer. ``changed_clock`` turns True once
    this client moved the clock or replaced the whole state (reset, restore).
    """

    def __init__(
        self,
        url: str,
        *,
        admin_token: str | None = None,
        timeout: float = 10.0,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        self.url = url.rstrip("/")
        headers = {"Authorization": f"Bearer {admin_token}"} if admin_token else {}
        base_url = f"{self.url}/_emulator/"
        self.http = httpx.Client(
            base_url=base_url, headers=headers, timeout=timeout, transport=transport
        )
        self.changed_clock = False

    def close(self) -> None:
        self.http.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def call(
        self, method: str, path: str, *, json: Any = None, params: Any = None
    ) -> dict[str, Any]:
        """One control-plane request (``path`` relative to ``/_emulator/``); its JSON answer."""
        response = self.http.request(method, path, json=json, params=params)
        if response.is_error:
            raise EmulatorError(response)
        body: dict[str, Any] = response.json()
        return body

    def _clock_call(self, path: str, body: dict[str, Any] | None = None) -> dict[str, Any]:
        self.changed_clock = True
        return self.call("POST", path, json=body)

    def health(self) -> dict[str, Any]:
        return self.call("GET", "health")

    def reset(self) -> ClockInfo:
        """Wipe all state and reseed; the clock goes back to how the emulator was started."""
        return msgspec.convert(self._clock_call("reset"), ClockInfo)

    def new_merchant(self, name: str | None = None) -> Merchant:
        """A fresh merchant that sees nothing of any other."""
        body = {"name": name} if name is not None else None
        return msgspec.convert(self.call("POST", "merchants", json=body), Merchant)

    def snapshot(self, name: str) -> dict[str, Any]:
        return self.call("POST", f"snapshots/{name}")

    def restore(self, name: str) -> ClockInfo:
        """Put back the whole state saved by ``snapshot(name)``, the clock included."""
        return msgspec.convert(self._clock_call(f"snapshots/{name}/restore"), ClockInfo)

    def requests(
        self, merchant: Merchant | str | None = None, limit: int = 100
    ) -> list[dict[str, Any]]:
        """The request journal, newest first (only ``merchant``'s requests when given)."""
        params: dict[str, Any] = {"limit": limit}
        if merchant is not None:
            params["merchant"] = merchant.company_id if isinstance(merchant, Merchant) else merchant
        return list(self.call("GET", "requests", params=params)["requests"])

    def test_values(self) -> dict[str, Any]:
        return self.call("GET", "test-values")

    def clock(self) -> ClockInfo:
        return msgspec.convert(self.call("GET", "clock"), ClockInfo)

    def advance(
        self, seconds: float | timedelta | None = None, to: Instant | None = None
    ) -> tuple[ClockInfo, int]:
        """Move forward by ``seconds`` or to ``to``, running due jobs in order on the way;
        returns the clock and how many jobs ran."""
        if isinstance(seconds, timedelta):
            seconds = seconds.total_seconds()
        body: dict[str, Any] = {"seconds": seconds} if seconds is not None else {}
        if to is not None:
            body["to"] = _instant(to)
        answer = self._clock_call("clock/advance", body)
        return msgspec.convert(answer, ClockInfo), int(answer["jobs_run"])

    def freeze(self, at: Instant | None = None) -> ClockInfo:
        """Stop the clock, now or at ``at`` (a jump: nothing runs on the way)."""
        body = {"at": _instant(at)} if at is not None else None
        return msgspec.convert(self._clock_call("clock/freeze", body), ClockInfo)

    def resume(self, at: Instant | None = None, *, system: bool = False) -> ClockInfo:
        """Real mode again, going on from now (or from ``at``, or exactly on system time)."""
        body: dict[str, Any] | None = None
        if at is not None:
            body = {"at": _instant(at)}
        elif system:
            body = {"system": True}
        return msgspec.convert(self._clock_call("clock/resume", body), ClockInfo)

    def scenarios(self) -> list[dict[str, Any]]:
        """Every scenario (shipped and loaded), each with where it is active."""
        return list(self.call("GET", "scenarios")["scenarios"])

    def load_scenario(self, source: str) -> str:
        """Load (or replace) a scenario from its YAML text; returns its name."""
        response = self.http.post("scenarios", content=source.encode("utf-8"))
        if response.is_error:
            raise EmulatorError(response)
        return str(response.json()["name"])

    def activate_scenario(
        self, name: str, merchant: Merchant | str | None = None
    ) -> dict[str, Any]:
        """Activate ``name`` for one merchant, or for every merchant when none is given."""
        return self.call("POST", f"scenarios/{name}/activate", json=_scope(merchant))

    def deactivate_scenario(
        self, name: str, merchant: Merchant | str | None = None
    ) -> dict[str, Any]:
        return self.call("POST", f"scenarios/{name}/deactivate", json=_scope(merchant))

    def sink(self, name: str | None = None, *, prefix: str = "sink") -> Sink:
        """The receiver ``name``, or a new one with a unique name starting with ``prefix``."""
        return Sink(self, name if name is not None else unique_name(prefix))

    def gateway(self, merchant: Merchant, **client_options: Any) -> httpx.Client:
        return merchant.gateway(self.url, **client_options)

    def bank(self, merchant: Merchant, **client_options: Any) -> httpx.Client:
        return merchant.bank(self.url, **client_options)


class EmulatorClock:
    """A test's clock control, with time-machine's verbs (``shift``, ``move_to``) too."""

    def __init__(self, client: EmulatorClient) -> None:
        self.client = client

    def now(self) -> datetime:
        return self.client.clock().now

    @property
    def mode(self) -> Mode:
        return self.client.clock().mode

    def freeze(self, at: Instant | None = None) -> datetime:
        return self.client.freeze(at).now

    def resume(self, at: Instant | None = None) -> datetime:
        return self.client.resume(at).now

    def advance(
        self, seconds: float | timedelta | None = None, *, to: Instant | None = None
    ) -> int:
        """Move forward, running every job that falls due in order; returns how many ran."""
        return self.client.advance(seconds, to)[1]

    def shift(self, delta: float | timedelta) -> int:
        return self.advance(delta)

    def move_to(self, at: Instant) -> datetime:
        """Jump to ``at``, backwards too, keeping the mode; no jobs run on the way."""
        return self.freeze(at) if self.mode == "frozen" else self.resume(at)


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
    """The real emulator in a background thread of this process (see ``LiveServer``)."""
