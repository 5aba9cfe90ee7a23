"""Dependencies point inward: the domain imports nothing from the layers around it."""

from __future__ import annotations

import ast
from pathlib import Path

import emulator

PACKAGE = Path(emulator.__file__).parent
OUTER = ("emulator.http", "emulator.services", "emulator.repos", "emulator.kernel", "emulator.serving.runtime",
         "emulator.serving.app", "starlette", "aiosqlite", "sqlite3", "httpx", "uvicorn")  # fmt: skip


def imports_of(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
    return found


def test_domain_is_pure():
    """emulator/domain imports no HTTP, storage, service, kernel or I/O module."""
    offenders = {
        f"{path.relative_to(PACKAGE)}: {name}"
        for path in (PACKAGE / "domain").glob("*.py")
        for name in imports_of(path)
        if name.startswith(OUTER)
    }
    assert offenders == set()


def test_only_the_http_layer_imports_starlette():
    """Services, repositories and the kernel know nothing of HTTP."""
    offenders = {
        f"{path.relative_to(PACKAGE)}: {name}"
        for layer in ("services", "repos", "kernel", "scenarios", "delivery")
        for path in (PACKAGE / layer).glob("*.py")
        for name in imports_of(path)
        if name.startswith(("starlette", "emulator.http"))
    }
    assert offenders == set()


def test_modules_stay_small():
    """Modules are named for what they hold and stay under 400 lines."""
    large = {
        str(path.relative_to(PACKAGE)): n
        for path in PACKAGE.rglob("*.py")
        if (n := len(path.read_text().splitlines())) > 400
    }
    assert large == {}


def test_the_documents_describe_the_layers_and_nothing_depends_on_them():
    """emulator/openapi reads the structs of the inner layers; only the HTTP layer that serves
    the documents imports it."""
    offenders = {
        f"{path.relative_to(PACKAGE)}: {name}"
        for layer in ("domain", "services", "repos", "kernel", "scenarios", "delivery")
        for path in (PACKAGE / layer).glob("*.py")
        for name in imports_of(path)
        if name.startswith("emulator.openapi")
    }
    assert offenders == set()
    importers = {
        str(path.relative_to(PACKAGE))
        for path in PACKAGE.rglob("*.py")
        if not path.is_relative_to(PACKAGE / "openapi")
        and any(name.startswith("emulator.openapi") for name in imports_of(path))
    }
    assert importers == {"http/control/docs.py"}
