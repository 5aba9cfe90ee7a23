"""The deliveries' HTTP/1.1 client: one POST of stored bytes, over asyncio streams, with idle
connections kept per origin and reused (keep-alive).

It does what a delivery needs and no more, so an attempt costs a fraction of what a general
client's request and response models and pool cost (httpx took 44 % of a send's time):

- the request is written in one piece: the headers httpx sent (``Host``, ``Accept``,
  ``Accept-Encoding``, ``Connection``, ``User-Agent``, in its order, unchanged for receivers),
  the message's own, ``Content-Length``, then the body;
- the answer's status is what counts: its body is read and dropped (its length framed by
  ``Content-Length``, chunks or the end of the connection), up to ``BODY_CAP`` bytes, past
  which the connection is closed instead of read further; interim (1xx) answers are skipped;
  redirects are not followed;
- a connection is kept for the next request to that origin unless either side said
  ``Connection: close`` (or HTTP/1.0) or the answer was cut short; one found closed when it is
  taken is dropped, and a request that fails on a reused connection before any byte of an
  answer came (the receiver had closed it meanwhile) is sent once more on a new one;
- TLS with the given context (server name checked); one timeout over the whole exchange, set
  by the caller.

Only plain URLs take this path (``simple``): ASCII, no user info, a path and query with
nothing to escape, not the control plane. The rest go through httpx as before
(``transport.Sender``).
"""

from __future__ import annotations

import asyncio
import functools
import re
import ssl
import time
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import urlsplit

import httpx

from emulator.domain.urls import control_path

BODY_CAP = 1 << 20  # bytes of an answer's body read; beyond, the connection is closed
HEAD_LIMIT = 64 * 1024  # bytes of an answer's status line and headers
IDLE_SECONDS = 5.0  # an idle connection is closed after this long (httpx's keep-alive expiry)
IDLE_PER_ORIGIN = 64  # idle connections kept per origin
_DEFAULT_PORT = {"http": 80, "https": 443}
_PLAIN = re.compile(r"(?:[A-Za-z0-9\-._~!$&'()*+,;=:@/?]|%[0-9A-Fa-f]{2})*\Z")
_HOST = re.compile(r"[A-Za-z0-9\-._]+\Z|\[[0-9A-Fa-f:.]+\]\Z")
# The headers every request carries after Host, in httpx's order, with its values.
FIXED_HEADERS = (
    ("Accept", "*/*"),
    ("Accept-Encoding", "gzip, deflate"),
    ("Connection", "keep-alive"),
    ("User-Agent", f"python-httpx/{httpx.__version__}"),
)
_FIXED = "".join(f"{name}: {value}\r\n" for name, value in FIXED_HEADERS).encode()


class ConnectError(Exception):
    """No connection (refused, unreachable, no such host, TLS refused)."""


class WriteError(Exception):
    """The request could not be written."""


class ReadError(Exception):
    """The answer could not be read."""


class RemoteProtocolError(Exception):
    """The receiver broke HTTP/1.1 (or closed the connection without an answer)."""


@dataclass(frozen=True)
class Target:
    scheme: str
    host: str  # as connected to (no brackets)
    port: int
    head: bytes  # "POST path HTTP/1.1", Host and the fixed headers
    authority: str  # the Host header's value


@functools.lru_cache(maxsize=4096)  # a pure function of the URL; the answer is immutable
def simple(url: str) -> Target | None:
    """The parts of ``url`` when this client sends to it as httpx would, else None (kept for
    the next message, or attempt shown, to the same URL)."""
    if not url.isascii():
        return None
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return None
    scheme = parts.scheme.lower()
    netloc_host = parts.netloc.rpartition(":")[0] if port is not None else parts.netloc
    if (
        scheme not in _DEFAULT_PORT
        or "@" in parts.netloc
        or not parts.hostname
        or not _HOST.match(netloc_host)
        or not _PLAIN.match(parts.path)
        or not _PLAIN.match(parts.query)
        or control_path(parts.path)  # refused by the other path, with its message
    ):
        return None
    host = parts.hostname  # lowercased, brackets gone
    default = _DEFAULT_PORT[scheme]
    shown = f"[{host}]" if ":" in host else host
    if port is not None and port != default:
        shown += f":{port}"
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    head = f"POST {path} HTTP/1.1\r\nHost: {shown}\r\n".encode() + _FIXED
    return Target(scheme, host, port if port is not None else default, head, shown)


def wire_headers(url: str, headers: dict[str, str], length: int) -> dict[str, str]:
    """Every header of a POST of ``length`` bytes with ``headers`` to ``url``, in the order
    they go on the wire: Host, ``FIXED_HEADERS``, the given ones, Content-Length (what this
    client writes, and what httpx writes on the other path)."""
    target = simple(url)
    if target is not None:
        authority = target.authority
    else:
        try:
            authority = httpx.URL(url).netloc.decode("ascii")
        except (httpx.InvalidURL, UnicodeError):
            authority = ""
    host = {"Host": authority} if authority else {}
    return {**host, **dict(FIXED_HEADERS), **headers, "Content-Length": str(length)}


class _Connection:
    __slots__ = ("idle_since", "reader", "writer")

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader = reader
        self.writer = writer
        self.idle_since = 0.0

    def usable(self) -> bool:
        return not self.reader.at_eof() and not self.writer.transport.is_closing()

    def close(self) -> None:
        self.writer.transport.abort()  # no goodbye owed on a connection given up


class _Stale(Exception):
    """A reused connection failed before any byte of an answer: send again on a new one."""


Origin = tuple[str, str, int]


class Client:
    def __init__(self, context: ssl.SSLContext | Callable[[], ssl.SSLContext]) -> None:
        """``context``: the TLS context, or what makes it when the first ``https`` URL is
        sent to (loading the system's CAs costs ~40 ms: plain HTTP receivers never pay it)."""
        self._context = context
        self._idle: dict[Origin, list[_Connection]] = {}
        self._targets: dict[str, Target | None] = {}
        self._swept = time.monotonic()

    def target(self, url: str) -> Target | None:
        if url in self._targets:
            return self._targets[url]
        if len(self._targets) > 10_000:
            self._targets.clear()
        found = self._targets[url] = simple(url)
        return found

    async def post(self, target: Target, headers: dict[str, str], body: bytes) -> int:
        """POST ``body`` with ``headers``; the answer's status. Raises one of this module's
        errors (or ``TimeoutError`` from the caller's timeout)."""
        lines = "".join(f"{name}: {value}\r\n" for name, value in headers.items())
        request = b"%s%sContent-Length: %d\r\n\r\n%s" % (
            target.head,
            lines.encode("latin-1"),
            len(body),
            body,
        )
        origin = (target.scheme, target.host, target.port)
        self._sweep()
        while True:
            connection = self._take(origin)
            reused = connection is not None
            if connection is None:
                connection = await self._connect(target)
            try:
                status, keep = await _exchange(connection, request, reused)
            except _Stale:
                connection.close()
                continue
            except BaseException:
                connection.close()
                raise
            if keep:
                self._give_back(origin, connection)
            else:
                connection.close()
            return status

    def _take(self, origin: Origin) -> _Connection | None:
        idle = self._idle.get(origin)
        while idle:
            connection = idle.pop()
            if connection.usable():
                return connection
            connection.close()
        return None

    def _give_back(self, origin: Origin, connection: _Connection) -> None:
        idle = self._idle.setdefault(origin, [])
        if len(idle) >= IDLE_PER_ORIGIN:
            connection.close()
            return
        connection.idle_since = time.monotonic()
        idle.append(connection)

    def _sweep(self) -> None:
        """At most once a second: close connections idle for longer than ``IDLE_SECONDS``."""
        now = time.monotonic()
        if now - self._swept < 1.0:
            return
        self._swept = now
        for origin, idle in list(self._idle.items()):
            keep = [c for c in idle if now - c.idle_since < IDLE_SECONDS and c.usable()]
            for connection in idle:
                if connection not in keep:
                    connection.close()
            if keep:
                self._idle[origin] = keep
            else:
                del self._idle[origin]

    def _tls(self) -> ssl.SSLContext:
        context = self._context
        if not isinstance(context, ssl.SSLContext):
            context = self._context = context()
        return context

    async def _connect(self, target: Target) -> _Connection:
        tls = target.scheme == "https"
        try:
            reader, writer = await asyncio.open_connection(
                target.host,
                target.port,
                ssl=self._tls() if tls else None,
                server_hostname=target.host if tls else None,
                limit=HEAD_LIMIT,
            )
        except (OSError, ssl.SSLError) as exc:
            raise ConnectError(str(exc) or type(exc).__name__) from None
        return _Connection(reader, writer)

    def close(self) -> None:
        for idle in self._idle.values():
            for connection in idle:
                connection.close()
        self._idle.clear()


async def _exchange(connection: _Connection, request: bytes, reused: bool) -> tuple[int, bool]:
    """Write the request, read the answer: (status, whether the connection may be reused)."""
    reader, writer = connection.reader, connection.writer
    try:
        writer.write(request)
        await writer.drain()
    except OSError as exc:
        if reused:
            raise _Stale() from None
        raise WriteError(str(exc) or type(exc).__name__) from None
    try:
        while True:
            try:
                head = await reader.readuntil(b"\r\n\r\n")
            except asyncio.IncompleteReadError as exc:
                if reused and not exc.partial:
                    raise _Stale() from None
                raise RemoteProtocolError(
                    "Server disconnected without sending a response."
                ) from None
            except asyncio.LimitOverrunError:
                raise RemoteProtocolError("the answer's headers are too long") from None
            except ConnectionResetError:
                if reused:
                    raise _Stale() from None
                raise
            status, http10, fields = _parse_head(head)
            if 100 <= status < 200 and status != 101:
                reused = False  # an answer has begun: no second try
                continue
            break
        said = fields.get(b"connection", b"").lower()
        keep = b"keep-alive" in said if http10 else status != 101 and b"close" not in said
        if status in (101, 204, 304):
            return status, keep
        encoding = fields.get(b"transfer-encoding")
        length = fields.get(b"content-length")
        if encoding is not None and b"chunked" in encoding.lower():
            return status, keep and await _drop_chunks(reader)
        if length is not None:
            size = _length(length)
            if size > BODY_CAP:
                return status, False
            await reader.readexactly(size)
            return status, keep
        await _drop_to_end(reader)
        return status, False
    except asyncio.IncompleteReadError:
        raise RemoteProtocolError("the answer ended early") from None
    except (OSError, ssl.SSLError) as exc:
        raise ReadError(str(exc) or type(exc).__name__) from None


def _parse_head(head: bytes) -> tuple[int, bool, dict[bytes, bytes]]:
    lines = head[:-4].split(b"\r\n")
    version, _, rest = lines[0].partition(b" ")
    code = rest[:3]
    if version not in (b"HTTP/1.1", b"HTTP/1.0") or len(code) != 3 or not code.isdigit():
        raise RemoteProtocolError(f"not an HTTP/1.1 status line: {lines[0][:80]!r}")
    fields: dict[bytes, bytes] = {}
    for line in lines[1:]:
        name, colon, value = line.partition(b":")
        if not colon or not name or name != name.strip():
            raise RemoteProtocolError(f"malformed header line: {line[:80]!r}")
        key = name.lower()
        value = value.strip()
        fields[key] = fields[key] + b", " + value if key in fields else value
    return int(code), version == b"HTTP/1.0", fields


def _length(value: bytes) -> int:
    first = value.split(b",")[0].strip()
    if not first.isdigit():
        raise RemoteProtocolError(f"bad Content-Length: {value[:40]!r}")
    return int(first)


async def _drop_chunks(reader: asyncio.StreamReader) -> bool:
    """Read a chunked body and drop it; False when it was cut off at ``BODY_CAP``."""
    total = 0
    while True:
        line = await reader.readuntil(b"\r\n")
        try:
            size = int(line.split(b";")[0].strip(), 16)
        except ValueError:
            raise RemoteProtocolError(f"bad chunk size: {line[:40]!r}") from None
        if size == 0:
            while await reader.readuntil(b"\r\n") != b"\r\n":  # trailers
                pass
            return True
        total += size
        if total > BODY_CAP:
            return False
        await reader.readexactly(size + 2)


async def _drop_to_end(reader: asyncio.StreamReader) -> None:
    total = 0
    while total <= BODY_CAP and (data := await reader.read(65536)):
        total += len(data)
