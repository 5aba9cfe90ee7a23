"""Three small webhook receivers of our own, for the receiver check (issue 29): each a tiny
``http.server`` on a loopback port, in a thread, that calls the emulator's gateway as an app
would.

- ``careless``: accepts everything, and refunds the purchase of every ``purchase.paid`` it
  gets, duplicates included (through the gateway).
- ``strict``: verifies ``X-Signature`` with the webhook's public key, deduplicates by
  ``X-Event-Id``, and reads the purchase back before acting.
- ``slow``: answers 200 after ``delay`` seconds.
"""

from __future__ import annotations

import base64
import contextlib
import json
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding, rsa

Handle = Callable[[dict[str, str], bytes], int]


def _server(handle: Handle) -> ThreadingHTTPServer:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            status = handle({k.lower(): v for k, v in self.headers.items()}, raw)
            self.send_response(status)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True  # a slow handler still asleep does not hold up the close
    return server


@contextlib.contextmanager
def serving(handle: Handle) -> Iterator[str]:
    """The receiver's URL while it serves."""
    server = _server(handle)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/hook"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def careless(gateway: httpx.Client) -> Handle:
    def handle(headers: dict[str, str], raw: bytes) -> int:
        event = json.loads(raw)
        if event.get("event_type") == "purchase.paid":
            gateway.post(f"purchases/{event['id']}/refund/", json={})
        return 200

    return handle


def strict(gateway: httpx.Client, public_pem: str) -> Handle:
    key = serialization.load_pem_public_key(public_pem.encode())
    assert isinstance(key, rsa.RSAPublicKey)
    seen: set[str] = set()
    lock = threading.Lock()

    def handle(headers: dict[str, str], raw: bytes) -> int:
        try:
            signature = base64.b64decode(headers.get("x-signature", ""))
            key.verify(signature, raw, padding.PKCS1v15(), hashes.SHA256())
        except (InvalidSignature, ValueError):
            return 401
        with lock:
            if headers.get("x-event-id", "") in seen:
                return 200
            seen.add(headers.get("x-event-id", ""))
        event = json.loads(raw)
        if event.get("event_type") == "purchase.paid":
            gateway.get(f"purchases/{event['id']}/")
        return 200

    return handle


def slow(delay: float) -> Handle:
    def handle(headers: dict[str, str], raw: bytes) -> int:
        time.sleep(delay)  # the slow receiver is a receiver that sleeps: the point of it
        return 200

    return handle
