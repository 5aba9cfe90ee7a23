"""Each client in ``clients/*/`` covers what the Python helpers cover (issue 30): its
``operations.json`` maps every public method of ``EmulatorClient``, ``Sink`` and
``EmulatorClock`` (found by introspection, so a method added later fails here until every
client maps it) to a name that client's source defines, or to null with a reason.

The file: one key per Python method (``"EmulatorClient.new_merchant": "newMerchant"``); keys
starting with ``_`` are about the file: ``_classes`` (the client's class for each Python
class, where the client has classes to look in), ``_reasons`` (why a method is null)."""

from __future__ import annotations

import inspect
import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from emulator.testing import EmulatorClient, EmulatorClock, Sink

CLIENTS = Path(__file__).resolve().parents[2] / "clients"
MANIFESTS = sorted(CLIENTS.glob("*/operations.json"))
PYTHON_CLASSES = (EmulatorClient, Sink, EmulatorClock)

# The Node package's exported classes and the methods of each (own and inherited).
NODE_METHODS = """
const m = await import(process.argv[1]);
const out = {};
for (const [name, value] of Object.entries(m)) {
  if (typeof value !== 'function' || !value.prototype) continue;
  const names = new Set();
  for (let p = value.prototype; p && p !== Object.prototype; p = Object.getPrototypeOf(p)) {
    for (const n of Object.getOwnPropertyNames(p)) {
      const d = Object.getOwnPropertyDescriptor(p, n);
      if (n !== 'constructor' && (typeof d.value === 'function' || d.get)) names.add(n);
    }
  }
  out[name] = [...names];
}
console.log(JSON.stringify(out));
"""


def python_methods() -> set[str]:
    """``Class.method`` for every public method (and property) of the Python helpers."""
    found = set()
    for cls in PYTHON_CLASSES:
        for name, value in inspect.getmembers(cls):
            if not name.startswith("_") and (callable(value) or isinstance(value, property)):
                found.add(f"{cls.__name__}.{name}")
    return found


def load(manifest: Path) -> tuple[dict[str, Any], dict[str, str | None]]:
    document: dict[str, Any] = json.loads(manifest.read_text())
    operations = {k: v for k, v in document.items() if not k.startswith("_")}
    return document, operations


def node_methods(client: Path) -> dict[str, set[str]]:
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed")
    done = subprocess.run(
        [node, "--input-type=module", "-e", NODE_METHODS, str(client / "index.js")],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return {name: set(methods) for name, methods in json.loads(done.stdout).items()}


# Every public method (own, inherited, from traits) of the PHP classes named in argv[2].
PHP_METHODS = """
require $argv[1];
$found = [];
foreach (json_decode($argv[2], true) as $class) {
    foreach ((new ReflectionClass($class))->getMethods(ReflectionMethod::IS_PUBLIC) as $method) {
        $found[$class][] = $method->getName();
    }
}
echo json_encode($found);
"""


def php_functions(client: Path) -> dict[str, set[str]]:
    """The public methods of the classes the manifest's ``_classes`` names, by PHP's own
    reflection through the package's autoloader."""
    php = shutil.which("php")
    if php is None:
        pytest.skip("php is not installed (`make clients` installs it)")
    classes = json.loads((client / "operations.json").read_text())["_classes"]
    done = subprocess.run(
        [php, "-r", PHP_METHODS, str(client / "autoload.php"), json.dumps(list(classes.values()))],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    return {name: set(methods) for name, methods in json.loads(done.stdout).items()}


DEFINED = {"node": node_methods, "php": php_functions}


@pytest.mark.parametrize("manifest", MANIFESTS, ids=[m.parent.name for m in MANIFESTS])
def test_each_client_maps_every_python_helper_method(manifest: Path) -> None:
    document, operations = load(manifest)
    expected = python_methods()
    missing, unknown = sorted(expected - set(operations)), sorted(set(operations) - expected)
    assert not missing and not unknown, (
        f"{manifest}: map the Python methods {missing} and drop {unknown} (not public methods"
        " of EmulatorClient, Sink or EmulatorClock)"
    )
    reasons = document.get("_reasons", {})
    for key, name in operations.items():
        if name is None:
            assert str(reasons.get(key, "")).strip(), f"{manifest}: {key} is null without a reason"
        else:
            assert isinstance(name, str) and name, (
                f"{manifest}: {key} must name a method or be null"
            )


@pytest.mark.parametrize("manifest", MANIFESTS, ids=[m.parent.name for m in MANIFESTS])
def test_each_mapped_name_is_defined_in_the_client(manifest: Path) -> None:
    client = manifest.parent
    assert client.name in DEFINED, f"no way to read the methods of clients/{client.name}/"
    document, operations = load(manifest)
    defined = DEFINED[client.name](client)
    classes: dict[str, str] = document.get("_classes", {})
    every = set().union(*defined.values()) if defined else set()
    absent = []
    for key, name in sorted(operations.items()):
        if name is None:
            continue
        owner, _, method = name.rpartition(".")
        owner = owner or classes.get(key.split(".")[0], "")
        methods = defined.get(owner, set()) if owner else every
        if method not in methods:
            absent.append(f"{key} -> {owner + '.' if owner else ''}{method}")
    assert not absent, f"{manifest}: not defined in clients/{client.name}/: {absent}"


def test_the_coverage_check_finds_a_missing_method() -> None:
    """The check reads the Python classes, so a method added to them is one no client maps."""
    assert "EmulatorClient.new_merchant" in python_methods()
    assert "Sink.wait_for" in python_methods() and "EmulatorClock.move_to" in python_methods()
    assert not any(name.split(".")[1].startswith("_") for name in python_methods())
    assert MANIFESTS, "no clients/*/operations.json"
