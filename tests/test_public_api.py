"""What a user's code relies on keeps working: the names of ``emulator.testing``, the pytest
plugin's entry point, the console script and ``python -m emulator``."""

from __future__ import annotations

import importlib
import subprocess
import sys
from importlib.metadata import entry_points

import emulator

# Every name the docs tell a user to import from emulator.testing, as of this release.
DOCUMENTED = {
    "BankOutcome", "ClientCredentials", "ClockInfo", "Delivery", "DeliveryKind", "Emulator",
    "EmulatorClient", "EmulatorClock", "EmulatorError", "EmulatorServer", "EmulatorStartError",
    "ExternalEmulator", "Merchant", "Profile", "ScheduledJob", "Sink", "SinkMessage", "unique_name",
    "Expect", "Expectation", "ExpectationReport", "expect", "load_flow", "run_flow",
}  # fmt: skip


def test_every_documented_name_imports_from_emulator_testing():
    """``from emulator.testing import X`` works for each documented name, and ``__all__`` lists
    exactly those."""
    testing = importlib.import_module("emulator.testing")
    assert set(testing.__all__) == DOCUMENTED
    for name in DOCUMENTED:
        exec(f"from emulator.testing import {name}", {})  # the user's spelling


def test_the_pytest_plugin_loads_through_its_entry_point():
    """Installing the package registers the plugin as ``payments_emulator`` (its fixtures are
    tested through pytester in test_pytest_plugin.py)."""
    (plugin,) = [ep for ep in entry_points(group="pytest11") if ep.name == "payments_emulator"]
    module = plugin.load()
    assert module.__name__ == "emulator.testing.pytest_plugin"
    assert callable(module.pytest_addoption)


def test_the_console_script_is_the_cli():
    """``payments-emulator`` runs ``emulator.cli:main``."""
    (script,) = [
        ep for ep in entry_points(group="console_scripts") if ep.name == "payments-emulator"
    ]
    assert script.value == "emulator.cli:main"
    assert script.load() is importlib.import_module("emulator.cli").main


def test_python_dash_m_emulator_runs_the_cli():
    """``python -m emulator --version`` prints the package's version."""
    done = subprocess.run(
        [sys.executable, "-m", "emulator", "--version"], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert emulator.__version__ in done.stdout
