"""The Node package ``clients/node/`` (issue 30) against a served emulator: its own suite and
its checkout example under ``node --test`` (one emulator for the module, with an admin token,
so every call of the package carries it), its declarations under ``tsc``, its version."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from emulator import __version__
from emulator.testing import EmulatorServer
from tests.clients.test_client_coverage import node_methods
from tests.conftest import LIVE_START

PACKAGE = Path(__file__).resolve().parents[2] / "clients" / "node"
ADMIN_TOKEN = "node-client-token"
MIN_NODE = 18


@pytest.fixture(scope="module")
def node() -> str:
    found = shutil.which("node")
    if found is None:
        pytest.skip("node is not installed (the Node client needs Node 18 or later)")
    version = subprocess.run([found, "--version"], capture_output=True, text=True, check=True)
    major = version.stdout.strip().lstrip("v").split(".")[0]
    assert int(major) >= MIN_NODE, f"node {version.stdout.strip()} is older than {MIN_NODE}"
    return found


@pytest.fixture(scope="module")
def server() -> Iterator[EmulatorServer]:
    with EmulatorServer(clock="frozen", start=LIVE_START, admin_token=ADMIN_TOKEN) as running:
        yield running


def run(argv: list[str], env: dict[str, str] | None = None, timeout: float = 120) -> str:
    """Run in the package's folder; its output, or a failure that shows all of it."""
    done = subprocess.run(
        argv, cwd=PACKAGE, env={**os.environ, **(env or {})}, capture_output=True, text=True,
        timeout=timeout, check=False,
    )  # fmt: skip
    output = f"{done.stdout}\n{done.stderr}"
    if done.returncode != 0:
        pytest.fail(f"{' '.join(argv)} exited {done.returncode}:\n{output}", pytrace=False)
    return output


@pytest.mark.slow  # node processes
def test_the_node_suite_and_the_example_pass(node: str, server: EmulatorServer) -> None:
    files = sorted(str(p.relative_to(PACKAGE)) for p in PACKAGE.glob("test/*.test.mjs"))
    examples = sorted(str(p.relative_to(PACKAGE)) for p in PACKAGE.glob("examples/*.test.mjs"))
    assert "test/stories.test.mjs" in files and examples == ["examples/checkout.test.mjs"]
    command = Path(sys.executable).with_name("payments-emulator")
    assert command.is_file(), f"{command}: the venv's payments-emulator (pip install -e .)"
    env = {
        "EMULATOR_URL": server.url,
        "EMULATOR_ADMIN_TOKEN": ADMIN_TOKEN,
        "EMULATOR_COMMAND": str(command),
    }
    output = run([node, "--test", *files, *examples], env)
    summary = dict(re.findall(r"^# (tests|pass|fail|skipped|cancelled) (\d+)$", output, re.M))
    assert summary["fail"] == "0" and summary["cancelled"] == "0", output
    started = re.search(r"^ok \d+ - Emulator.start runs a local emulator.*$", output, re.M)
    assert started and "# SKIP" not in started.group(0), output  # EMULATOR_COMMAND was given
    assert int(summary["pass"]) >= 10, output


@pytest.mark.slow  # node processes
def test_the_control_plane_refuses_the_package_without_the_token(
    node: str, server: EmulatorServer
) -> None:
    """The served emulator requires the token the suite passes: a call without it is a 401
    EmulatorError, so the suite's calls above did carry it."""
    script = (
        "const { Emulator, EmulatorError } = await import('./index.js');"
        f"const emu = new Emulator({json.dumps(server.url)});"
        "try { await emu.clock(); console.log('no error'); }"
        "catch (e) { console.log(e instanceof EmulatorError, e.status, e.code); }"
    )
    output = run([node, "--input-type=module", "-e", script])
    assert output.split("\n")[0] == "true 401 admin_token_required"


def test_the_package_version_follows_the_emulator() -> None:
    package = json.loads((PACKAGE / "package.json").read_text())
    lock = json.loads((PACKAGE / "package-lock.json").read_text())
    assert package["version"] == lock["version"] == lock["packages"][""]["version"] == __version__
    assert package["type"] == "module" and package["types"] == "./index.d.ts"
    assert not package.get("dependencies"), "no runtime dependency beyond Node's fetch"
    assert package["peerDependenciesMeta"]["testcontainers"]["optional"] is True


def test_the_declarations_declare_every_method_of_the_package(node: str) -> None:
    """``index.d.ts`` is written by hand: each method of each exported class is in it, in
    that class's block, so a method added to the JavaScript is declared too."""
    declarations = (PACKAGE / "index.d.ts").read_text()
    blocks = dict(re.findall(r"^export class (\w+)[^{]*\{(.*?)^\}", declarations, re.M | re.S))
    undeclared = []
    for cls, methods in node_methods(PACKAGE).items():
        for method in methods - {"toString"}:  # Error's and Object's, not the package's own
            declared = rf"^\s+(?:(?:static\s+)?{method}\(|readonly {method}:)"  # or a getter
            if not re.search(declared, blocks.get(cls, ""), re.M):
                undeclared.append(f"{cls}.{method}")
    assert not undeclared, f"declare these in clients/node/index.d.ts: {undeclared}"


def typescript(node: str) -> Path:
    """tsc from the committed package-lock.json (``npm ci``, only when it is missing)."""
    tsc = PACKAGE / "node_modules" / "typescript" / "bin" / "tsc"
    if not tsc.is_file():
        npm = shutil.which("npm")
        if npm is None:
            pytest.skip("npm is not installed: cannot install typescript to check index.d.ts")
        done = subprocess.run(
            [npm, "ci", "--no-audit", "--no-fund", "--ignore-scripts"], cwd=PACKAGE,
            capture_output=True, text=True, timeout=300, check=False,
        )  # fmt: skip
        if done.returncode != 0:
            pytest.skip(f"npm ci could not install typescript (offline?): {done.stderr[-500:]}")
    return tsc


@pytest.mark.slow  # node processes
def test_the_declarations_type_check_the_example_and_refuse_misuse(
    node: str, tmp_path: Path
) -> None:
    """``examples/typed.ts`` compiles against ``index.d.ts``; a file that misuses the API (in
    the same run) fails with one error per misuse, so the declarations are read at all."""
    tsc = typescript(node)
    (tmp_path / "misuse.mts").write_text(
        f"import {{ Emulator, expect }} from {json.dumps(str(PACKAGE / 'index.js'))};\n"
        "const emu = new Emulator('http://127.0.0.1:8400');\n"
        "await emu.advance();\n"
        "await emu.newMerchant({ clock: 'sideways' });\n"
        "expect.delivery('purchase.paid', { sink: 3 });\n"
    )
    config = {
        "extends": str(PACKAGE / "examples" / "tsconfig.json"),
        "files": [str(PACKAGE / "examples" / "typed.ts"), "misuse.mts"],
    }
    (tmp_path / "tsconfig.json").write_text(json.dumps(config))
    done = subprocess.run(
        [node, str(tsc), "-p", str(tmp_path / "tsconfig.json")], cwd=PACKAGE,
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    errors = re.findall(r"^(\S+)\((\d+),\d+\): error (TS\d+)", done.stdout, re.M)
    assert [(Path(f).name, int(line)) for f, line, _ in errors] == [
        ("misuse.mts", 3),
        ("misuse.mts", 4),
        ("misuse.mts", 5),
    ], done.stdout
