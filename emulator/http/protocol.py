"""The HTTP/1.1 protocol ``serve`` runs under uvicorn: httptools' with each answer's head and
body written to the socket together.

uvicorn writes an answer's status line and headers (``http.response.start``) and its body as two
``transport.write`` calls, and uvloop makes each one a ``send`` system call, made holding the
GIL. Here the writes of one turn of the event loop are joined and handed to the transport once,
at the end of the turn: one system call per answer instead of two. A streamed body's chunks
still go out as they come, a turn at a time. A large body is not copied to be joined: the
writes go to the transport as a list (``writelines``, which uvloop sends with one ``writev``),
sparing the copy's pages (``serving.memory``).
"""

from __future__ import annotations

import asyncio
from typing import Any

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

JOIN_BELOW = 64 * 1024  # bytes of one turn's writes: joined below, handed over as a list above


class _JoinedWrites:
    """A transport whose writes wait for the end of the event loop's turn, then go out as one;
    everything else is the transport's own. Closing sends what waits first."""

    __slots__ = ("_loop", "_transport", "_waiting")

    def __init__(self, transport: asyncio.Transport, loop: asyncio.AbstractEventLoop) -> None:
        self._transport = transport
        self._loop = loop
        self._waiting: list[bytes] = []

    def write(self, data: bytes) -> None:
        if not self._waiting:
            self._loop.call_soon(self._send)
        self._waiting.append(data)

    def _send(self) -> None:
        waiting, self._waiting = self._waiting, []
        if not waiting or self._transport.is_closing():
            return
        if len(waiting) == 1:
            self._transport.write(waiting[0])
        elif sum(map(len, waiting)) < JOIN_BELOW:
            self._transport.write(b"".join(waiting))
        else:
            self._transport.writelines(waiting)

    def close(self) -> None:
        self._send()
        self._transport.close()

    def is_closing(self) -> bool:  # asked at every answer: not through __getattr__, whose
        # fallback comes after a failed look-up that makes (and drops) an AttributeError
        return self._transport.is_closing()

    def __getattr__(self, name: str) -> Any:  # get_extra_info, pause_reading...
        return getattr(self._transport, name)


class JoinedWritesProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol on a transport whose writes of one turn go out as one."""

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        joined: Any = _JoinedWrites(transport, self.loop)
        super().connection_made(joined)
