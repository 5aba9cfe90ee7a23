"""A client verb starts at once: it imports the parser, its own module and the standard
library's HTTP client, not the server, httpx, msgspec or the test helpers (those took 0.5 s
of a 0.7 s verb). Run as users run it: a process of its own against a live emulator."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from emulator.testing import EmulatorServer

pytestmark = pytest.mark.slow  # one process of its own

HEAVY = ("httpx", "httpcore", "msgspec", "yaml", "starlette", "uvicorn", "aiosqlite", "trio")
SERVER = ("emulator.serving", "emulator.runtime", "emulator.http", "emulator.gateway",
          "emulator.bank", "emulator.sandbox", "emulator.core", "emulator.kernel.clock", "emulator.kernel.storage", "emulator.domain",
          "emulator.testing")  # fmt: skip

PROBE = """
import json, sys
from emulator.cli import main
codes = [main(["clock"]), main(["--json", "clock"]), main(["merchants"])]
print(json.dumps({"codes": codes, "modules": sorted(sys.modules)}))
"""


def test_client_verbs_import_neither_the_server_nor_httpx(server: EmulatorServer) -> None:
    environment = {k: v for k, v in os.environ.items() if not k.startswith("EMULATOR_")}
    environment["EMULATOR_URL"] = server.url
    ran = subprocess.run(
        [sys.executable, "-c", PROBE], capture_output=True, text=True, env=environment, timeout=60
    )
    assert ran.returncode == 0, ran.stderr
    *shown, last = ran.stdout.splitlines()
    probe = json.loads(last)
    assert probe["codes"] == [0, 0, 0]
    assert any("(server clock)" in line for line in shown)  # the verbs did answer
    modules = probe["modules"]
    assert "emulator.cli.wire" in modules
    heavy = [m for m in modules if m.split(".")[0] in HEAVY]
    server_side = [m for m in modules if m.startswith(SERVER)]
    assert heavy == [] and server_side == []


def test_an_error_answer_still_reads_as_the_emulators(server: EmulatorServer) -> None:
    """The light path's errors are the emulator's own lines (the test helpers' error class,
    imported only then)."""
    environment = {k: v for k, v in os.environ.items() if not k.startswith("EMULATOR_")}
    ran = subprocess.run(
        [sys.executable, "-m", "emulator", "--url", server.url, "merchants", "--json", "clock",
         "no-such-company"],
        capture_output=True, text=True, env=environment, timeout=60,
    )  # fmt: skip
    assert ran.returncode == 1, (ran.stdout, ran.stderr)
    error = json.loads(ran.stdout)["error"]
    assert error["status"] == 404 and error["code"] != "not_the_emulator"
    assert ran.stderr.startswith("payments-emulator: refused (404 ")
