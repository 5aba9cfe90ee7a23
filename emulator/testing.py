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
import base64
import re
import time
import uuid
from collections.abc import Generator
from datetime import UTC, datetime, timedelta
from typing import Any, Self

import httpx
import msgspec

from emulator.kernel.clock import Mode, iso, parse_iso
from emulator.live_server import EmulatorStartError, LiveServer

__all__ = [
    "ClientCredentials", "ClockInfo", "Emulator", "EmulatorClient", "EmulatorClock",
    "EmulatorError", "EmulatorServer", "EmulatorStartError", "ExternalEmulator", "Merchant",
    "Profile", "Sink", "SinkMessage", "unique_name",
]  # fmt: skip

Instant = datetime | str  # an ISO-8601 string or a datetime (naive means UTC)
POLL = 0.02  # seconds between polls of a starting server or a sink


class EmulatorError(Exception):
    """The emulator answered with an error status; ``code`` and ``message`` come from its body
    (control plane ``{"error": {code, message}}`` or OAuth ``{error, error_description}``)."""

    def __init__(self, response: httpx.Response) -> None:
        try:
            body: Any = response.json()
        except ValueError:
            body = response.text
        error = body.get("error") if isinstance(body, dict) else None
        if isinstance(error, dict):
            self.code, self.message = str(error.get("code")), str(error.get("message"))
        elif isinstance(error, str):
            self.code, self.message = error, str(body.get("error_description", ""))
        else:
            self.code, self.message = "http_error", str(body)[:500]
        self.status, self.body = response.status_code, body
        request = response.request
        super().__init__(
            f"{request.method} {request.url} -> {self.status} {self.code}: {self.message}"
        )


def _instant(value: Instant) -> str:
    moment = parse_iso(value) if isinstance(value, str) else value
    return iso(moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC))


class ClockInfo(msgspec.Struct, frozen=True):
    now: datetime
    mode: Mode


class Profile(msgspec.Struct, frozen=True, rename="camel"):
    """A merchant profile of the bank interface (v2)."""

    profile_code: str
    id: int
    created_by_client: int


class ClientCredentials(httpx.Auth):
    """OAuth 2.0 client credentials for ``/v2``: a token from ``/oauth2/token`` on first use and
    a new one after a 401 (tokens expire after 24 hours of emulator time, and one ``advance``
    can pass that). To test token handling itself, make your own requests."""

    requires_response_body = True

    def __init__(self, token_url: str, client_id: str, client_secret: str) -> None:
        self.token_url = token_url
        self._basic = "Basic " + base64.b64encode(f"{client_id}:{client_secret}".encode()).decode()
        self.access_token: str | None = None

    def auth_flow(self, request: httpx.Request) -> Generator[httpx.Request, httpx.Response, None]:
        fresh = self.access_token is None
        if self.access_token is None:
            self.access_token = yield from self._fetch()
        request.headers["Authorization"] = f"Bearer {self.access_token}"
        response = yield request
        if response.status_code == 401 and not fresh:
            self.access_token = yield from self._fetch()
            request.headers["Authorization"] = f"Bearer {self.access_token}"
            yield request

    def _fetch(self) -> Generator[httpx.Request, httpx.Response, str]:
        form = {"grant_type": "client_credentials"}
        headers = {"Authorization": self._basic}
        response = yield httpx.Request("POST", self.token_url, headers=headers, data=form)
        if response.status_code != 200:
            raise EmulatorError(response)
        token: str = response.json()["access_token"]
        return token


class Merchant(msgspec.Struct, frozen=True):
    """An isolated merchant's credentials, as ``POST /_emulator/merchants`` returns them."""

    company_id: str
    name: str
    brand_id: str
    api_key: str
    production_api_key: str
    client_id: str
    client_secret: str
    profiles: tuple[Profile, ...] = ()

    def gateway(self, server_url: str, **client_options: Any) -> httpx.Client:
        """httpx client for ``<url>/api/v1/`` with this merchant's sandbox API key."""
        headers = {"Authorization": f"Bearer {self.api_key}", **client_options.pop("headers", {})}
        base_url = f"{server_url.rstrip('/')}/api/v1/"
        return httpx.Client(base_url=base_url, headers=headers, **client_options)

    def bank(self, server_url: str, **client_options: Any) -> httpx.Client:
        """httpx client for ``<url>/v2/`` with an access token of this merchant's OAuth client."""
        url = server_url.rstrip("/")
        auth = ClientCredentials(f"{url}/oauth2/token", self.client_id, self.client_secret)
        return httpx.Client(base_url=f"{url}/v2/", auth=auth, **client_options)


class SinkMessage(msgspec.Struct, frozen=True):
    """One request the built-in receiver recorded; ``json`` is the parsed body or None."""

    id: int
    received_at: datetime
    method: str
    path: str
    headers: dict[str, str]
    body: str
    json: Any


# msgspec resolves a struct's (string) annotations on first use and keeps the result. Resolve
# them now, at import: if the first use came inside freezegun's freeze_time, "datetime" would
# resolve to its FakeDatetime and every later decode in the process would fail.
for _struct in (ClockInfo, Profile, Merchant, SinkMessage):
    msgspec.json.Decoder(_struct)


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
