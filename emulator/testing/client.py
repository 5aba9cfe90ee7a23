"""The control plane's client (``EmulatorClient``), a merchant's clock (``EmulatorClock``) and
sinks (``Sink``): what a test calls on an emulator, in process or elsewhere."""

from __future__ import annotations

import re
import uuid
import warnings
from datetime import UTC, datetime, timedelta
from typing import Any, Self

import httpx
import msgspec

from emulator.kernel.clock import Mode, iso, parse_iso
from emulator.testing.actors import Actors
from emulator.testing.direct import DirectCall, Exchanger
from emulator.testing.expectations import ExpectationsMixin
from emulator.testing.records import (
    ClockInfo,
    Merchant,
    ScheduledJob,
    SinkMessage,
    json_object,
    merchant_path,
    path_segment,
    with_tls_context,
)
from emulator.testing.state import StateMixin

Instant = datetime | str  # an ISO-8601 string or a datetime (naive means UTC)
WAIT_SLICE = 5.0  # seconds of one wait request (under the client's request timeout)


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
        self.segment = path_segment(name, "sink name")
        self.url = f"{client.url}/_emulator/sink/{self.segment}"

    def messages(self) -> list[SinkMessage]:
        """What arrived so far, oldest first."""
        return msgspec.convert(
            self.client.call("GET", f"sink/{self.segment}")["messages"], list[SinkMessage]
        )

    def clear(self) -> int:
        """Forget what arrived; returns how many messages that was."""
        return int(self.client.call("DELETE", f"sink/{self.segment}")["deleted"])

    def wait_for(self, count: int = 1, timeout: float = 5.0) -> list[SinkMessage]:
        """Until at least ``count`` messages arrived; returns them all. The emulator answers
        as soon as they have (``GET /_emulator/sink/{name}/wait``: woken by each message,
        nothing polls), asked in slices shorter than a request's timeout."""
        left = max(0.0, timeout)
        while True:
            part = min(left, WAIT_SLICE)
            answer = self.client.call(
                "GET",
                f"sink/{self.segment}/wait",
                params={"count": max(1, count), "timeout_seconds": part},
            )
            messages = msgspec.convert(answer["messages"], list[SinkMessage])
            if len(messages) >= count:
                return messages
            left -= part
            if left <= 0:
                raise TimeoutError(
                    f"sink {self.name!r} received {len(messages)} of {count} message(s) in"
                    f" {timeout}s: {[m.body[:200] for m in messages]}"
                )


MerchantRef = Merchant | str  # a Merchant or its company_id
NEXT = "next"  # advance(to=NEXT): to the next scheduled job


def _company_id(merchant: MerchantRef) -> str:
    return merchant.company_id if isinstance(merchant, Merchant) else merchant


def _scope(merchant: MerchantRef | None) -> dict[str, Any]:
    return {} if merchant is None else {"merchant": _company_id(merchant)}


class EmulatorClient(Actors, ExpectationsMixin, StateMixin):
    """The control plane (``/_emulator/``) of one emulator, over ``httpx``; acting for the payer,
    provider, debtor and bank, and reading deliveries: see ``emulator.testing.actors``;
    verifying and waiting for expectations: see ``emulator.testing.expectations``.

    Every method raises ``EmulatorError`` on a non-2xx answer (``NotTheEmulator`` on one that
    is not JSON: something else answers at the URL); a name or id that cannot be one path
    segment (empty, ``..``, control characters) is ``BadPathSegment``, before any request.
    ``changed_clock`` turns True once this client moved the server clock or replaced the whole
    state (reset, restore); moving a merchant's own clock (``merchant=``) does not count: no
    other merchant sees it.
    """

    def __init__(
        self,
        url: str,
        *,
        admin_token: str | None = None,
        timeout: float | httpx.Timeout = 10.0,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        self.url = url.rstrip("/")
        headers = {"Authorization": f"Bearer {admin_token}"} if admin_token else {}
        base_url = f"{self.url}/_emulator/"
        self.http = httpx.Client(
            base_url=base_url,
            headers=headers,
            timeout=timeout,
            **with_tls_context({} if transport is None else {"transport": transport}),
        )
        self.changed_clock = False
        # in process: calls skip httpx's request and response objects (testing.direct)
        self._direct = (
            DirectCall(self.http, transport) if isinstance(transport, Exchanger) else None
        )

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
        if self._direct is not None:
            answer = self._direct.call(method, path, json, params)
            if answer is not None:
                return answer
        return json_object(self.http.request(method, path, json=json, params=params))

    def page(self, method: str, url: str, *, json: Any = None) -> dict[str, Any]:
        """A request to one of the emulator's own pages (a payout's ``execution_url``), sent to
        this client's emulator whatever host the URL names (behind a proxy or a container's
        port mapping it names the public one); its JSON answer."""
        path = httpx.URL(url).raw_path.decode("ascii")
        return json_object(self.http.request(method, f"{self.url}{path}", json=json))

    def _clock_call(
        self, path: str, body: dict[str, Any] | None = None, merchant: MerchantRef | None = None
    ) -> dict[str, Any]:
        """POST a clock verb to the server clock, or to ``merchant``'s own clock. Only the
        server clock counts as ``changed_clock``: a merchant's own clock is that merchant's."""
        if merchant is None:
            self.changed_clock = True
            return self.call("POST", path, json=body)
        answer = self.call("POST", merchant_path(merchant, path), json=body)
        return {**answer, "own": True}  # a merchant's clock verbs act on its own clock only

    def health(self) -> dict[str, Any]:
        return self.call("GET", "health")

    def reset(self) -> ClockInfo:
        """Wipe all state and reseed; the clock goes back to how the emulator was started."""
        return msgspec.convert(self._clock_call("reset"), ClockInfo)

    def new_merchant(
        self,
        name: str | None = None,
        *,
        clock: Mode | None = None,
        now: Instant | None = None,
        strict_requests: bool = False,
    ) -> Merchant:
        """A fresh merchant that sees nothing of any other. With ``clock`` ("frozen" or "real")
        or ``now``, it owns a clock of its own, in that mode (frozen by default) at ``now`` (the
        server clock's instant by default); without either it follows the server clock. With
        ``strict_requests=True``, keys the platform would ignore in its requests are refused
        (400) instead of only warned of (``X-Emulator-Warnings``); a server started with
        ``--strict-requests`` refuses them for every merchant."""
        body: dict[str, Any] = {"name": name} if name is not None else {}
        if strict_requests:
            body["strict_requests"] = True
        if clock is not None or now is not None:
            setting: dict[str, Any] = {"mode": clock} if clock is not None else {}
            if now is not None:
                setting["now"] = _instant(now)
            body["clock"] = setting
        return msgspec.convert(self.call("POST", "merchants", json=body or None), Merchant)

    def delete_merchant(self, merchant: MerchantRef) -> dict[str, Any]:
        """Delete a merchant and everything of it (its keys and tokens stop working at once);
        the answer counts the rows removed by table. The default merchant cannot be."""
        return self.call("DELETE", merchant_path(merchant))

    def snapshot(self, name: str) -> dict[str, Any]:
        return self.call("POST", f"snapshots/{path_segment(name, 'snapshot name')}")

    def restore(self, name: str) -> ClockInfo:
        """Put back the whole state saved by ``snapshot(name)``, the clock included."""
        path = f"snapshots/{path_segment(name, 'snapshot name')}/restore"
        return msgspec.convert(self._clock_call(path), ClockInfo)

    def requests(
        self, merchant: MerchantRef | None = None, limit: int = 100
    ) -> list[dict[str, Any]]:
        """The request journal, newest first (only ``merchant``'s requests when given)."""
        params: dict[str, Any] = {"limit": limit}
        if merchant is not None:
            params["merchant"] = _company_id(merchant)
        return list(self.call("GET", "requests", params=params)["requests"])

    def test_values(self) -> dict[str, Any]:
        return self.call("GET", "test-values")

    def clock(self, merchant: MerchantRef | None = None) -> ClockInfo:
        """The server clock, or the clock ``merchant``'s time is read from (``own`` says whether
        it is its own or the server's)."""
        path = "clock" if merchant is None else merchant_path(merchant, "clock")
        return msgspec.convert(self.call("GET", path), ClockInfo)

    def set_clock(
        self, merchant: MerchantRef, mode: Mode | None = None, now: Instant | None = None
    ) -> ClockInfo:
        """Give ``merchant`` a clock of its own (or set its own anew): in ``mode`` (frozen by
        default) at ``now`` (the server clock's instant by default). A jump: nothing runs on
        the way, only what is then due."""
        body: dict[str, Any] = {"mode": mode} if mode is not None else {}
        if now is not None:
            body["now"] = _instant(now)
        answer = self.call("PUT", merchant_path(merchant, "clock"), json=body)
        return msgspec.convert(answer, ClockInfo)

    def _advance(
        self,
        seconds: float | timedelta | None,
        to: Instant | None,
        merchant: MerchantRef | None,
    ) -> dict[str, Any]:
        if isinstance(seconds, timedelta):
            seconds = seconds.total_seconds()
        body: dict[str, Any] = {"seconds": seconds} if seconds is not None else {}
        if to is not None:
            body["to"] = "next" if to == NEXT else _instant(to)
        return self._clock_call("clock/advance", body, merchant)

    def advance(
        self,
        seconds: float | timedelta | None = None,
        to: Instant | None = None,
        *,
        merchant: MerchantRef | None = None,
    ) -> tuple[ClockInfo, int]:
        """Move forward by ``seconds`` or to ``to`` (an instant, or ``"next"``: the next
        scheduled job's due time), running due jobs in order on the way; returns the clock and
        how many jobs ran. The server clock, or ``merchant``'s own clock (``EmulatorError``
        409 ``clock_not_own`` if it follows the server clock)."""
        answer = self._advance(seconds, to, merchant)
        return msgspec.convert(answer, ClockInfo), int(answer["jobs_run"])

    def freeze(
        self, at: Instant | None = None, *, merchant: MerchantRef | None = None
    ) -> ClockInfo:
        """Stop the clock, now or at ``at`` (a jump: nothing runs on the way)."""
        body = {"at": _instant(at)} if at is not None else None
        return msgspec.convert(self._clock_call("clock/freeze", body, merchant), ClockInfo)

    def resume(
        self,
        at: Instant | None = None,
        *,
        system: bool = False,
        merchant: MerchantRef | None = None,
    ) -> ClockInfo:
        """Real mode again, going on from now (or from ``at``, or exactly on system time)."""
        body: dict[str, Any] | None = None
        if at is not None:
            body = {"at": _instant(at)}
        elif system:
            body = {"system": True}
        return msgspec.convert(self._clock_call("clock/resume", body, merchant), ClockInfo)

    def schedule(
        self, merchant: MerchantRef | None = None, object_id: str | None = None, limit: int = 100
    ) -> list[ScheduledJob]:
        """Pending jobs, soonest first: of the server clock (every merchant that follows it),
        or of ``merchant``'s clock; only those acting on ``object_id`` when given."""
        path = "schedule" if merchant is None else merchant_path(merchant, "schedule")
        params: dict[str, Any] = {"limit": limit}
        if object_id is not None:
            params["object_id"] = object_id
        jobs = self.call("GET", path, params=params)["jobs"]
        return msgspec.convert(jobs, list[ScheduledJob])

    def scenarios(self) -> list[dict[str, Any]]:
        """Every scenario (shipped and loaded), each with where it is active."""
        return list(self.call("GET", "scenarios")["scenarios"])

    def load_scenario(self, source: str) -> str:
        """Load (or replace) a scenario from its YAML text; returns its name. A file in an
        older form still loads; each note saying what is preferred now is a ``UserWarning``."""
        loaded = self.load_scenario_answer(source)
        for note in loaded.get("notes", []):
            warnings.warn(f"scenario {loaded['name']}: {note}", UserWarning, stacklevel=2)
        return str(loaded["name"])

    def load_scenario_answer(self, source: str) -> dict[str, Any]:
        """Load (or replace) a scenario from its YAML text; the emulator's whole answer (its
        name, rules, and ``notes`` on older forms)."""
        response = self.http.post("scenarios", content=source.encode("utf-8"))
        return json_object(response)

    def activate_scenario(self, name: str, merchant: MerchantRef | None = None) -> dict[str, Any]:
        """Activate ``name`` for one merchant, or for every merchant when none is given."""
        path = f"scenarios/{path_segment(name, 'scenario name')}/activate"
        return self.call("POST", path, json=_scope(merchant))

    def deactivate_scenario(self, name: str, merchant: MerchantRef | None = None) -> dict[str, Any]:
        path = f"scenarios/{path_segment(name, 'scenario name')}/deactivate"
        return self.call("POST", path, json=_scope(merchant))

    def sink(self, name: str | None = None, *, prefix: str = "sink") -> Sink:
        """The receiver ``name``, or a new one with a unique name starting with ``prefix``."""
        return Sink(self, name if name is not None else unique_name(prefix))

    def gateway(self, merchant: Merchant, **client_options: Any) -> httpx.Client:
        return merchant.gateway(self.url, **client_options)

    def bank(self, merchant: Merchant, **client_options: Any) -> httpx.Client:
        return merchant.bank(self.url, **client_options)


class EmulatorClock:
    """A test's clock control, with time-machine's verbs (``shift``, ``move_to``) too: the
    server clock, or with ``merchant`` that merchant's own clock (it moves nothing else)."""

    def __init__(self, client: EmulatorClient, merchant: MerchantRef | None = None) -> None:
        self.client = client
        self.merchant = merchant

    def info(self) -> ClockInfo:
        return self.client.clock(self.merchant)

    def now(self) -> datetime:
        return self.info().now

    @property
    def mode(self) -> Mode:
        return self.info().mode

    def freeze(self, at: Instant | None = None) -> datetime:
        return self.client.freeze(at, merchant=self.merchant).now

    def resume(self, at: Instant | None = None, *, system: bool = False) -> datetime:
        return self.client.resume(at, system=system, merchant=self.merchant).now

    def advance(
        self, seconds: float | timedelta | None = None, *, to: Instant | None = None
    ) -> int:
        """Move forward, running every job that falls due in order; returns how many ran.
        ``to`` is an instant or ``"next"`` (the next scheduled job's due time)."""
        return self.client.advance(seconds, to, merchant=self.merchant)[1]

    def shift(self, delta: float | timedelta) -> int:
        return self.advance(delta)

    def move_to(self, at: Instant) -> datetime:
        """Jump to ``at``, backwards too, keeping the mode; no jobs run on the way."""
        return self.freeze(at) if self.mode == "frozen" else self.resume(at)

    def next(self) -> ScheduledJob:
        """Advance to the next scheduled job and run it (with any others due then); returns
        that job. ``EmulatorError`` 409 ``nothing_scheduled`` when there is none."""
        answer = self.client._advance(None, NEXT, self.merchant)
        return msgspec.convert(answer["next"], ScheduledJob)

    def schedule(self, object_id: str | None = None, limit: int = 100) -> list[ScheduledJob]:
        """This clock's pending jobs, soonest first (only ``object_id``'s when given)."""
        return self.client.schedule(self.merchant, object_id, limit)
