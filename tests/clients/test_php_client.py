"""The PHP test helpers (``clients/php/``): their version is the emulator's, they cover every
public method of the Python helpers, and their PHPUnit suite (with the example) passes
against an emulator served by this module."""

from __future__ import annotations

import inspect
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import emulator
from emulator.testing import EmulatorClient, EmulatorClock, EmulatorServer, Sink

ROOT = Path(__file__).resolve().parent.parent.parent
PACKAGE = ROOT / "clients" / "php"
# The Python classes the manifest covers, and the PHP class each maps to.
CLASSES = {
    EmulatorClient: "PaymentsEmulator\\Testing\\Emulator",
    Sink: "PaymentsEmulator\\Testing\\Sink",
    EmulatorClock: "PaymentsEmulator\\Testing\\Clock",
}
# Every public method of a PHP class, as JSON: argv[1] the autoloader, argv[2] the classes.
REFLECT = """
require $argv[1];
$found = [];
foreach (json_decode($argv[2], true) as $class) {
    foreach ((new ReflectionClass($class))->getMethods(ReflectionMethod::IS_PUBLIC) as $method) {
        $found[$class][] = $method->getName();
    }
}
echo json_encode($found);
"""


def tool(name: str) -> str:
    """The path of ``php`` or ``phpunit``; skipped without it, except in CI (where `make
    test` installs them: a missing one there is a failure)."""
    found = shutil.which(name)
    if found is None:
        if os.environ.get("CI"):
            pytest.fail(f"{name} is not installed: `make clients` installs it")
        pytest.skip(f"{name} is not installed (`make clients` installs php and phpunit)")
    return found


def public_methods(cls: type) -> list[str]:
    return [n for n, _ in inspect.getmembers(cls, inspect.isfunction) if not n.startswith("_")]


def manifest() -> dict[str, str | None]:
    loaded: dict[str, str | None] = json.loads((PACKAGE / "operations.json").read_text())
    return loaded


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


def test_the_manifest_names_every_public_method_of_the_python_helpers():
    """clients/php/operations.json has a key for each public method of EmulatorClient, Sink
    and EmulatorClock, and no other."""
    expected = {f"{cls.__name__}.{name}" for cls in CLASSES for name in public_methods(cls)}
    assert set(manifest()) == expected


def test_every_mapped_name_is_a_public_method_of_the_php_class():
    """Each PHP name of the manifest is a public method of the class its Python class maps
    to (reflection in PHP): none is null, every one makes sense in PHP."""
    classes = json.dumps(list(CLASSES.values()))
    php = subprocess.run(
        [tool("php"), "-r", REFLECT, str(PACKAGE / "autoload.php"), classes],
        capture_output=True,
        text=True,
        check=True,
    )
    defined = {cls: set(methods) for cls, methods in json.loads(php.stdout).items()}
    by_name = {cls.__name__: php_class for cls, php_class in CLASSES.items()}
    missing = [
        f"{key} -> {php_name}"
        for key, php_name in manifest().items()
        if php_name is None or php_name not in defined[by_name[key.split(".")[0]]]
    ]
    assert missing == []


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
