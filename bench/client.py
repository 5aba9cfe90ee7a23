"""One-off HTTP calls from the harness (setup, control plane, health polls): stdlib only."""

from __future__ import annotations

import http.client
import time
from dataclasses import dataclass
from typing import Any

import msgspec

from bench.serving import HOST


class BenchError(Exception):
    """The harness cannot go on (a server did not start, a setup call failed)."""


@dataclass(frozen=True)
class Reply:
    status: int
    body: bytes
    ms: float  # from sending the request to having read the whole response

    def json(self) -> Any:
        return msgspec.json.decode(self.body)


def call(
    port: int,
    method: str,
    path: str,
    body: object = None,
    headers: dict[str, str] | None = None,
    timeout: float = 30.0,
) -> Reply:
    """One request on a new connection; a non-bytes ``body`` is sent as JSON."""
    sent_headers = dict(headers or {})
    payload: bytes | None
    if body is None or isinstance(body, bytes):
        payload = body
    else:
        payload = msgspec.json.encode(body)
        sent_headers.setdefault("Content-Type", "application/json")
    connection = http.client.HTTPConnection(HOST, port, timeout=timeout)
    try:
        started = time.perf_counter()
        connection.request(method, path, body=payload, headers=sent_headers)
        response = connection.getresponse()
        data = response.read()
        elapsed = (time.perf_counter() - started) * 1000
    finally:
        connection.close()
    return Reply(response.status, data, elapsed)


def expect(reply: Reply, status: int, what: str) -> Reply:
    """``reply`` if its status is ``status``; otherwise stop the harness with the details."""
    if reply.status != status:
        text = reply.body[:500].decode("utf-8", "replace")
        raise BenchError(f"{what}: expected {status}, got {reply.status}: {text}")
    return reply
