"""Control-plane calls handed to the in-process emulator's app without httpx's request and
response machinery (``InProcessTransport`` and ``EmulatorClient.call``).

``asgi_exchange`` runs one request through an ASGI app as ``httpx.ASGITransport`` does (the
same scope, the body in one message, a disconnect once the answer is complete, the app's
exceptions raised), without building an ``httpx.Response`` on the server's loop and reading it
back. ``DirectCall`` is ``EmulatorClient.call``'s short path through an in-process transport:
the request httpx would send (its URL, headers and JSON body, byte for byte) and the answer it
would give, without building, merging and parsing ``httpx.Request``/``Response`` objects (half
of a control call's CPU in the test's thread). Whatever it does not cover (a client given event
hooks, auth, cookies, default query parameters or redirects to follow; a path it does not
handle plainly) goes through httpx as before, and so does every error's answer
(``EmulatorError`` carries httpx's response).
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any, NamedTuple
from urllib.parse import unquote

import httpx
import msgspec

Message = MutableMapping[str, Any]
ASGIApp = Callable[
    [Message, Callable[[], Awaitable[Message]], Callable[[Message], Awaitable[None]]],
    Awaitable[None],
]
Headers = list[tuple[bytes, bytes]]
Answer = tuple[int, Headers, bytes]
CLIENT = ("127.0.0.1", 123)  # httpx.ASGITransport's default peer
# A path httpx would send as it is (no quoting to add, no query, not absolute).
_PLAIN_PATH = re.compile(r"(?:[A-Za-z0-9._~!$&'()*+,;=:@/-]|%[0-9A-Fa-f]{2})*\Z")
_BODY_METHODS = ("POST", "PUT", "PATCH")


class NoAnswer(Exception):
    """The app returned without starting a response."""


class Target(NamedTuple):
    """Where a request goes, as an ASGI scope names it."""

    scheme: str
    host: str
    port: int | None
    raw_path: bytes  # without the query
    query: bytes

    @classmethod
    def of(cls, url: httpx.URL) -> Target:
        return cls(url.scheme, url.host, url.port, url.raw_path.split(b"?")[0], url.query)


async def asgi_exchange(
    app: ASGIApp,
    method: str,
    target: Target,
    headers: Headers,
    body: bytes,
) -> Answer:
    """``method target`` with these (lower-case) headers and body through ``app``: its status,
    headers and body, as ``httpx.ASGITransport`` would give them."""
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": method,
        "headers": headers,
        "scheme": target.scheme,
        "path": unquote(target.raw_path.decode("ascii")) or "/",
        "raw_path": target.raw_path,
        "query_string": target.query,
        "server": (target.host, target.port),
        "client": CLIENT,
        "root_path": "",
    }
    complete = asyncio.Event()
    sent = False
    status: int | None = None
    answer_headers: Headers = []
    parts: list[bytes] = []

    async def receive() -> Message:
        nonlocal sent
        if sent:
            await complete.wait()
            return {"type": "http.disconnect"}
        sent = True
        return {"type": "http.request", "body": body, "more_body": False}

    async def send(message: Message) -> None:
        nonlocal status, answer_headers
        kind = message["type"]
        if kind == "http.response.start":
            status = message["status"]
            answer_headers = list(message.get("headers", []))
        elif kind == "http.response.body":
            chunk = message.get("body", b"")
            if chunk and method != "HEAD":
                parts.append(chunk)
            if not message.get("more_body", False):
                complete.set()

    try:
        await app(scope, receive, send)
    finally:
        complete.set()  # a receive waiting for the disconnect ends with the app
    if status is None:
        raise NoAnswer()
    return status, answer_headers, b"".join(parts)


class Exchanger(httpx.BaseTransport):
    """A transport that also exchanges requests without ``httpx.Request`` objects
    (``InProcessTransport``): ``EmulatorClient`` made with one calls through ``DirectCall``."""

    def exchange(
        self,
        method: str,
        target: Target,
        headers: Headers,
        body: bytes,
        timeout: float | None,
        request: Callable[[], httpx.Request],
    ) -> Answer:
        """Status, headers and body of the answer; ``request`` makes the ``httpx.Request`` that
        an error names."""
        raise NotImplementedError


class DirectCall:
    """``EmulatorClient.call`` through an in-process transport: ``call`` returns None when
    the request is one to leave to httpx."""

    def __init__(self, http: httpx.Client, transport: Exchanger) -> None:
        self._http, self._transport = http, transport
        self._base: tuple[httpx.URL, Target, bytes] | None = None  # the base URL's parts

    def _base_of(self, url: httpx.URL) -> tuple[Target, bytes]:
        """The client's base URL as a target, and its netloc (read again if it was changed)."""
        if self._base is None or self._base[0] is not url:
            self._base = (url, Target.of(url), url.netloc)
        return self._base[1], self._base[2]

    def call(self, method: str, path: str, body: Any, params: Any) -> dict[str, Any] | None:
        http = self._http
        hooks = http.event_hooks
        if (
            http.is_closed
            or hooks["request"]
            or hooks["response"]
            or http.auth is not None
            or http.cookies
            or http.params
            or http.follow_redirects
            or path.startswith("/")
            or not _PLAIN_PATH.match(path)
            or any(segment in (".", "..") for segment in path.split("/"))
        ):
            return None
        method = method.upper()
        base_url = http.base_url
        base, netloc = self._base_of(base_url)
        query = str(httpx.QueryParams(params)).encode("ascii") if params is not None else b""
        target = base._replace(raw_path=base.raw_path + path.encode("ascii"), query=query)
        headers: Headers = [(b"host", netloc)]
        content = b""
        if body is not None:
            content = json.dumps(
                body, ensure_ascii=False, separators=(",", ":"), allow_nan=False
            ).encode("utf-8")
        elif method in _BODY_METHODS:
            headers.append((b"content-length", b"0"))
        headers += [(key.lower(), value) for key, value in http.headers.raw]
        if body is not None:
            headers.append((b"content-length", str(len(content)).encode("ascii")))
            headers.append((b"content-type", b"application/json"))

        def request() -> httpx.Request:  # what httpx would have sent: for errors' messages
            url = base_url.copy_with(raw_path=target.raw_path, query=query or None)
            built = httpx.Request(method, url, headers=headers, content=content)
            built.extensions = {"timeout": http.timeout.as_dict()}
            return built

        status, answer_headers, answer = self._transport.exchange(
            method, target, headers, content, http.timeout.read, request
        )
        if 200 <= status < 400:
            try:
                decoded = msgspec.json.decode(answer)
            except msgspec.DecodeError:
                decoded = None  # json's verdict below, as httpx's response.json() gives it
            if isinstance(decoded, dict):
                return decoded
        from emulator.testing.records import json_object

        response = httpx.Response(status, headers=answer_headers, content=answer, request=request())
        return json_object(response)
