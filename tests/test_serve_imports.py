"""``serve`` starts fast (issue 32: cold start ≤ 0.5 s): what its first answer does not need is
not imported on the way to it. Run as users run it: ``serve`` in a process of its own, its
modules read once ``/_emulator/health`` has answered 200."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.test_cli import free_port

pytestmark = pytest.mark.slow  # a `serve` process of its own

# What the first answer needs none of: the RSA keys' library (the first webhook imports it),
# the WebSocket library uvicorn picks by default (no route is a WebSocket one), the OpenAPI
# documents (built when first served), the test helpers.
NOT_AT_START = ("cryptography", "websockets", "importlib.metadata", "emulator.openapi",
                "emulator.testing", "pytest", "openpyxl")  # fmt: skip

PROBE = """
import json, os, signal, socket, sys, threading, time
port = int(sys.argv[1])

def ask(request):
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=5) as conn:
            conn.sendall(request)
            return conn.recv(64).split(b"\\r\\n")[0].decode()
    except OSError:
        return ""

def probe():
    health = b"GET /_emulator/health HTTP/1.1\\r\\nHost: e\\r\\n\\r\\n"
    deadline = time.monotonic() + 60
    while ask(health) != "HTTP/1.1 200 OK" and time.monotonic() < deadline:
        time.sleep(0.01)
    modules = sorted(sys.modules)
    upgrade = ask(b"GET /_emulator/health HTTP/1.1\\r\\nHost: e\\r\\nConnection: Upgrade\\r\\n"
                  b"Upgrade: websocket\\r\\nSec-WebSocket-Version: 13\\r\\n"
                  b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\\r\\n\\r\\n")
    print(json.dumps({"modules": modules, "upgrade": upgrade}), flush=True)
    os.kill(os.getpid(), signal.SIGINT)

threading.Thread(target=probe, daemon=True).start()
from emulator.cli import main
sys.exit(main(["serve", "--port", str(port), "--db", sys.argv[2], "--log-level", "warning"]))
"""


def test_serve_answers_before_importing_what_it_does_not_need(tmp_path: Path) -> None:
    environment = {k: v for k, v in os.environ.items() if not k.startswith("EMULATOR_")}
    ran = subprocess.run(
        [sys.executable, "-c", PROBE, str(free_port()), str(tmp_path / "e.sqlite3")],
        capture_output=True, text=True, env=environment, timeout=90,
    )  # fmt: skip
    assert ran.returncode == 0, ran.stderr
    probe = json.loads(ran.stdout.splitlines()[-1])
    modules = probe["modules"]
    assert "emulator.serving.app" in modules and "uvicorn" in modules  # it did serve
    loaded = [m for m in modules if m.startswith(NOT_AT_START)]
    assert loaded == []
    # A WebSocket upgrade is answered as the plain HTTP request it also is.
    assert probe["upgrade"] == "HTTP/1.1 200 OK"
