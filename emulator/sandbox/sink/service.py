"""The built-in receiver (``/_emulator/sink/{name}``): what was POSTed to it, by name."""

from __future__ import annotations

import asyncio
import math
from typing import TYPE_CHECKING, Any

from emulator.domain.errors import ControlError
from emulator.kernel.clock import TIME_HEADER, in_clock_range, parse_iso, to_us
from emulator.kernel.notices import sink_key
from emulator.sandbox.control.service_snapshots import SNAPSHOT_NAME
from emulator.sandbox.sink import repo

if TYPE_CHECKING:
    from emulator.kernel.context import Context

SINK_NAME = SNAPSHOT_NAME
MAX_WAIT_SECONDS = 600.0
MAX_WAIT_COUNT = 10_000


def _sent_at(value: str | None) -> int | None:
    if value is None or len(value) > 64:
        return None
    try:
        at = to_us(parse_iso(value))
    except ValueError:
        return None
    return at if in_clock_range(at) else None


def _check_sink(name: str) -> None:
    if not SINK_NAME.match(name):
        raise ControlError(400, "invalid", "sink names are 1-64 letters, digits, '.', '_' or '-'")


async def receive(
    rt: Context, name: str, method: str, path: str, headers: dict[str, str], body: str
) -> int:
    """Record a message; stamped with the instant its sender says it was sent at (the
    emulator's deliveries say it, on their merchant's clock), else the server clock's now."""
    _check_sink(name)
    at = _sent_at(headers.get(TIME_HEADER.lower())) or rt.clock.server.now_us()
    found = await rt.db.write(lambda tx: repo.insert(tx, name, at, method, path, headers, body))
    rt.notices.notify(sink_key(name), "sink")  # committed: its waits look again
    return found


async def messages(rt: Context, name: str) -> list[dict[str, Any]]:
    _check_sink(name)
    await rt.db.barrier()
    return await rt.db.read(lambda tx: repo.messages(tx, name))


async def clear(rt: Context, name: str) -> int:
    _check_sink(name)
    return await rt.db.write(lambda tx: repo.clear(tx, name))


def wait_bounds(count: Any, timeout: Any) -> tuple[int, float]:
    """``count`` and ``timeout_seconds`` of a sink's wait, or a 400."""
    if isinstance(count, bool) or not isinstance(count, int) or not 1 <= count <= MAX_WAIT_COUNT:
        raise ControlError(400, "invalid", f"'count' must be an integer from 1 to {MAX_WAIT_COUNT}")
    if (
        isinstance(timeout, bool)
        or not isinstance(timeout, int | float)
        or not math.isfinite(timeout)
        or not 0 <= timeout <= MAX_WAIT_SECONDS
    ):
        raise ControlError(
            400, "invalid", f"'timeout_seconds' must be a number from 0 to {MAX_WAIT_SECONDS:g}"
        )
    return count, float(timeout)


async def wait(rt: Context, name: str, count: int, seconds: float) -> dict[str, Any]:
    """What arrived, once at least ``count`` messages have (woken by each message the sink
    receives: nothing polls), or when ``seconds`` of real time have passed (``timed_out``)."""
    _check_sink(name)
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    await rt.deliveries.flush(sink_path=f"/_emulator/sink/{name}")  # what is due has arrived
    with rt.notices.watch(sink_key(name), frozenset({"sink"})) as noticed:
        while True:
            noticed.clear()  # before the look: a message during it is not lost
            found = await messages(rt, name)
            left = deadline - loop.time()
            if len(found) >= count or left <= 0:
                break
            try:
                await asyncio.wait_for(noticed.wait(), timeout=left)
            except TimeoutError:
                found = await messages(rt, name)
                break
    return {"name": name, "messages": found, "timed_out": len(found) < count}
