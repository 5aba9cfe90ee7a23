"""The console's access log: one compact line per request, written in batches.

uvicorn's own access log formats and writes a record per request (a quarter of a create's
cost, a third of a read's); the request journal already keeps every request in full. This
log keeps one short line per request (``POST /api/v1/purchases/ 201 1.4 ms``), written in
batches (``kernel.loglines``) by the ``emulator.access`` logger. It costs nothing when that
logger is not enabled at info (``--log-level warning``).
"""

from __future__ import annotations

import logging

from starlette.types import Scope

from emulator.kernel.loglines import BatchedLines

LOGGER = "emulator.access"


class AccessLog(BatchedLines):
    """The access log's lines waiting to be written (``kernel.loglines``), every one with its
    level prefix: the ``emulator.access`` logger's handler writes a record as it is."""

    def __init__(self, logger: logging.Logger | None = None) -> None:
        super().__init__(logger or logging.getLogger(LOGGER))


def line(scope: Scope, status: int, elapsed_ns: int) -> str:
    query = scope.get("query_string", b"")
    target = scope["path"] + ("?" + query.decode("latin-1") if query else "")
    answer = str(status) if status else "dropped"
    return f"{scope['method']} {target} {answer} {elapsed_ns / 1e6:.1f} ms"
