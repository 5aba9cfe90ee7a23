"""The PHP test helpers (``clients/php/``): their version is the emulator's, they cover every
public method of the Python helpers (tests/clients/test_client_coverage.py), and their PHPUnit suite (with the example) passes
against an emulator served by this module."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import emulator
from emulator.testing import EmulatorServer

ROOT = Path(__file__).resolve().parent.parent.parent
PACKAGE = ROOT / "clients" / "php"


def tool(name: str) -> str:
    """The path of ``php`` or ``phpunit``; skipped without it, except in CI (where `make
    test` installs them: a missing one there is a failure)."""
    found = shutil.which(name)
    if found is None:
        if os.environ.get("CI"):
            pytest.fail(f"{name} is not installed: `make clients` installs it")
        pytest.skip(f"{name} is not installed (`make clients` installs php and phpunit)")
    return found


def test_the_package_version_is_the_emulators():
    """composer.json's version and Emulator::VERSION follow emulator.__version__."""
    composer = json.loads((PACKAGE / "composer.json").read_text())
    assert composer["version"] == emulator.__version__
    code = "require $argv[1]; echo PaymentsEmulator\\Testing\\Emulator::VERSION;"
    php = subprocess.run(
        [tool("php"), "-r", code, str(PACKAGE / "autoload.php")],
        capture_output=True,
        text=True,
        check=True,
    )
    assert php.stdout == emulator.__version__


@pytest.mark.slow  # phpunit in a process, and one `payments-emulator serve` of its own
def test_the_phpunit_suite_and_the_example_pass(server: EmulatorServer):
    """phpunit runs clients/php/tests/ and clients/php/examples/ against the served emulator
    (and starts one `payments-emulator serve` itself, for Emulator::start)."""
    command = Path(sys.executable).parent / "payments-emulator"
    env = {
        **os.environ,
        "PAYMENTS_EMULATOR_URL": server.url,
        "PAYMENTS_EMULATOR_COMMAND": str(command) if command.exists() else "",
    }
    env.pop("PAYMENTS_EMULATOR_ADMIN_TOKEN", None)
    run = subprocess.run(
        [tool("phpunit"), "-c", str(PACKAGE / "phpunit.xml.dist")],
        capture_output=True,
        text=True,
        env=env,
        timeout=180,
    )
    output = run.stdout + run.stderr
    assert run.returncode == 0, output
    assert "Tests: " in output or "OK (" in output, output
