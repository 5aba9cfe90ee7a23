"""The built-in receiver (``/_emulator/sink/{name}``): what was POSTed to it, by name."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from emulator.domain.errors import ControlError
from emulator.kernel.clock import TIME_HEADER, in_clock_range, parse_iso, to_us
from emulator.repos import sink as repo
from emulator.services.control import SNAPSHOT_NAME

if TYPE_CHECKING:
    from emulator.kernel.context import Context

SINK_NAME = SNAPSHOT_NAME


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
    return await rt.db.write(lambda tx: repo.insert(tx, name, at, method, path, headers, body))


async def messages(rt: Context, name: str) -> list[dict[str, Any]]:
    _check_sink(name)
    await rt.db.barrier()
    return await rt.db.read(lambda tx: repo.messages(tx, name))


async def clear(rt: Context, name: str) -> int:
    _check_sink(name)
    return await rt.db.write(lambda tx: repo.clear(tx, name))
