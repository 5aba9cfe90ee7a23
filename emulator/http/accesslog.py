"""The console's access log: one compact line per request, written in batches.

uvicorn's own access log formats and writes a record per request (a quarter of a create's
cost, a third of a read's); the request journal already keeps every request in full. This
log keeps one short line per request (``POST /api/v1/purchases/ 201 1.4 ms``) in a list and
writes what gathered every ``FLUSH_SECONDS`` as one record of the ``emulator.access`` logger.
It costs nothing when that logger is not enabled at info (``--log-level warning``).
"""

from __future__ import annotations

import asyncio
import logging

from starlette.types import Scope

LOGGER = "emulator.access"
FLUSH_SECONDS = 0.1
PREFIX = "INFO:     "  # uvicorn's level prefix, so the lines line up with its own


class AccessLog:
    """Lines waiting to be written, and the timer that writes them."""

    def __init__(self, logger: logging.Logger | None = None) -> None:
        self.logger = logger or logging.getLogger(LOGGER)
        self._lines: list[str] = []
        self._timer: asyncio.TimerHandle | None = None

    def enabled(self) -> bool:
        return self.logger.isEnabledFor(logging.INFO)

    def add(self, line: str) -> None:
        self._lines.append(line)
        if self._timer is None:
            self._timer = asyncio.get_running_loop().call_later(FLUSH_SECONDS, self.flush)

    def flush(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        lines, self._lines = self._lines, []
        if lines:
            self.logger.info("\n".join(PREFIX + line for line in lines))


def line(scope: Scope, status: int, elapsed_ns: int) -> str:
    query = scope.get("query_string", b"")
    target = scope["path"] + ("?" + query.decode("latin-1") if query else "")
    answer = str(status) if status else "dropped"
    return f"{scope['method']} {target} {answer} {elapsed_ns / 1e6:.1f} ms"
