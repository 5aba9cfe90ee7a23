"""Helpers of the tests of merchants' own clocks and advances: merchants with or without a
clock, their credentials, moving one clock or the server's, reading a schedule, instants, and
a real receiver of webhooks and callbacks on a loopback port."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import msgspec

from tests.conftest import EPOCH, token_for


def iso(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat().replace("+00:00", "Z")


def instant(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def later(text: str, **delta: float) -> str:
    """The ISO instant ``delta`` (timedelta's keywords) after ``text``."""
    return iso(instant(text) + timedelta(**delta))


def unix(text: str) -> int:
    return int(instant(text).timestamp())


SERVER_NOW = iso(EPOCH)  # the tests' server clock: "2026-01-05T09:00:00Z"


async def merchant_with_clock(
    http: httpx.AsyncClient, now: str | None = None, mode: str | None = None
) -> dict[str, Any]:
    """A new merchant that owns its clock (``now``/``mode`` as given, else the defaults)."""
    clock: dict[str, Any] = {}
    if now is not None:
        clock["now"] = now
    if mode is not None:
        clock["mode"] = mode
    response = await http.post("/_emulator/merchants", json={"clock": clock})
    assert response.status_code == 201, response.text
    body: dict[str, Any] = response.json()
    return body


async def follower(http: httpx.AsyncClient) -> dict[str, Any]:
    """A new merchant that follows the server clock."""
    response = await http.post("/_emulator/merchants")
    assert response.status_code == 201, response.text
    body: dict[str, Any] = response.json()
    return body


def gw_of(merchant: dict[str, Any]) -> dict[str, str]:
    return {"Authorization": f"Bearer {merchant['api_key']}"}


async def v2_of(http: httpx.AsyncClient, merchant: dict[str, Any]) -> dict[str, str]:
    """Headers with a fresh access token of the merchant (it lives 24 h on its clock)."""
    token = await token_for(http, merchant["client_id"], merchant["client_secret"])
    return {"Authorization": f"Bearer {token}"}


def clock_path(merchant: dict[str, Any], action: str = "") -> str:
    suffix = f"/{action}" if action else ""
    return f"/_emulator/merchants/{merchant['company_id']}/clock{suffix}"


async def clock_of(http: httpx.AsyncClient, merchant: dict[str, Any]) -> dict[str, Any]:
    response = await http.get(clock_path(merchant))
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


async def now_of(http: httpx.AsyncClient, merchant: dict[str, Any] | None = None) -> str:
    """A merchant's instant, or the server clock's."""
    if merchant is None:
        now: str = (await http.get("/_emulator/clock")).json()["now"]
        return now
    now = (await clock_of(http, merchant))["now"]
    return now


async def advance(
    http: httpx.AsyncClient, merchant: dict[str, Any] | None = None, **body: Any
) -> dict[str, Any]:
    """Advance a merchant's own clock (or the server's, without one); asserts 200."""
    path = clock_path(merchant, "advance") if merchant is not None else "/_emulator/clock/advance"
    response = await http.post(path, json=body)
    assert response.status_code == 200, response.text
    answer: dict[str, Any] = response.json()
    return answer


async def schedule(
    http: httpx.AsyncClient, merchant: dict[str, Any] | None = None, **query: str
) -> dict[str, Any]:
    """A merchant's schedule (or the server's, without one); asserts 200."""
    path = (
        f"/_emulator/merchants/{merchant['company_id']}/schedule"
        if merchant is not None
        else "/_emulator/schedule"
    )
    response = await http.get(path, params=query)
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


async def sink_messages(http: httpx.AsyncClient, name: str) -> list[dict[str, Any]]:
    """What the built-in sink ``name`` received, oldest first."""
    messages: list[dict[str, Any]] = (await http.get(f"/_emulator/sink/{name}")).json()["messages"]
    return messages


def error(response: httpx.Response) -> tuple[int, str]:
    """A control-plane error's status and code."""
    return response.status_code, response.json()["error"]["code"]


# -- a real receiver on a loopback port -----------------------------------------------------------


async def until(condition: Callable[[], bool], seconds: float = 10.0) -> None:
    """Wait (a bounded time) for what a real receiver is doing."""
    for _ in range(int(seconds / 0.01)):
        if condition():
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"not within {seconds} s")


async def stop_accepting(server: asyncio.Server) -> None:
    """Before ``server.close()``: stop accepting, and let the accepts under way make their
    connections. (Python 3.11 drops a connection accepted just before its server closed without
    closing its socket: a ResourceWarning in some later test.)"""
    loop = asyncio.get_running_loop()
    for sock in server.sockets:
        loop.remove_reader(sock.fileno())
    await asyncio.sleep(0.005)


class Receiver:
    """A receiver on 127.0.0.1 (not the emulator's code): for each POST it calls ``on_receipt``
    (body, headers) and keeps what that returns, waits ``delay`` seconds, then answers 200. The
    first ``hang`` requests get no answer at all."""

    def __init__(
        self,
        on_receipt: Callable[[dict[str, Any], dict[str, str]], Awaitable[Any]] | None = None,
        delay: float = 0.0,
        hang: int = 0,
    ) -> None:
        self.on_receipt = on_receipt
        self.delay = delay
        self.hang = hang
        self.received: list[tuple[dict[str, Any], dict[str, str]]] = []
        self.seen: list[Any] = []
        self.failures: list[BaseException] = []
        self._server: asyncio.Server | None = None
        self._writers: list[asyncio.StreamWriter] = []

    @property
    def url(self) -> str:
        assert self._server is not None
        return f"http://127.0.0.1:{self._server.sockets[0].getsockname()[1]}/hook"

    async def __aenter__(self) -> Receiver:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self._server is not None
        await stop_accepting(self._server)
        self._server.close()
        for writer in self._writers:
            writer.close()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self._server.wait_closed(), 2)
        assert self.failures == [], self.failures

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._writers.append(writer)
        try:
            head = await reader.readuntil(b"\r\n\r\n")
            lines = head.decode("latin-1").split("\r\n")[1:]
            headers = {
                k.strip().lower(): v.strip() for k, _, v in (x.partition(":") for x in lines if x)
            }
            body = msgspec.json.decode(await reader.readexactly(int(headers["content-length"])))
            self.received.append((body, headers))
            if len(self.received) <= self.hang:
                return  # no answer: the emulator gives up after its timeout
            if self.on_receipt is not None:
                self.seen.append(await self.on_receipt(body, headers))
            if self.delay:
                await asyncio.sleep(self.delay)
            writer.write(b"HTTP/1.1 200 OK\r\ncontent-length: 0\r\nconnection: close\r\n\r\n")
            await writer.drain()
            writer.close()
        except (asyncio.IncompleteReadError, ConnectionError):
            writer.close()
        except Exception as exc:  # surfaced by __aexit__: a receiver bug must fail the test
            self.failures.append(exc)
            writer.close()
