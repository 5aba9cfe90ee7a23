"""Flow files on disk: a file, a folder of them (``*.yaml``, ``*.yml``), the library (the
``flows/`` folder of the repository, or another given); and the routes each API serves, for
the parser's path check."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from emulator.flows.model import Flow
from emulator.flows.parse import FlowError, Routes, parse
from emulator.resources import data_dir

PREFIXES = {"gateway": "/api/v1/", "bank": "/v2/", "control": "/_emulator/"}
SUFFIXES = (".yaml", ".yml")


def default_folder() -> Path:
    """The shipped library: ``flows/`` beside the package (inside it in a wheel)."""
    try:
        return data_dir("flows")
    except FileNotFoundError:
        return Path("flows")


def routes_of(table: Iterable[Any]) -> dict[str, list[tuple[str, str]]]:
    """The (method, path) pairs each API serves, from an app's route table (Starlette routes:
    their ``path`` and ``methods``), by the prefix of the path."""
    found: dict[str, list[tuple[str, str]]] = {api: [] for api in PREFIXES}
    served = [
        (m, str(r.path))
        for r in table
        if hasattr(r, "path")
        for m in getattr(r, "methods", None) or ()
    ]
    for method, path in served:
        for api, prefix in PREFIXES.items():
            if path.startswith(prefix) and method != "HEAD":
                found[api].append((method, path))
    return found


def files(paths: Iterable[str | Path]) -> list[Path]:
    """The flow files named: each file as given, each folder's flow files by name.
    ``FlowError`` for a path that is neither."""
    found: list[Path] = []
    for given in paths:
        path = Path(given)
        if path.is_dir():
            found.extend(sorted(p for p in path.iterdir() if p.suffix in SUFFIXES and p.is_file()))
        elif path.is_file():
            found.append(path)
        else:
            raise FlowError(f"{given}: no such file or folder")
    return found


def read(path: Path, routes: Routes | None = None) -> Flow:
    """One flow file; ``FlowError`` naming the file."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise FlowError(f"{path}: {exc.strerror or exc}") from None
    try:
        return parse(raw, routes, str(path))
    except FlowError as exc:
        raise FlowError(f"{path}: {exc}") from None


def listing(folder: Path, routes: Routes | None = None) -> list[dict[str, object]]:
    """The library: each file's name, description and step count, or why it is refused."""
    out: list[dict[str, object]] = []
    for path in files([folder]) if folder.is_dir() else []:
        try:
            flow = read(path, routes)
        except FlowError as exc:
            out.append({"name": path.stem, "file": path.name, "error": str(exc)})
            continue
        out.append(
            {
                "name": flow.name,
                "file": path.name,
                "description": flow.spec.description,
                "steps": len(flow.spec.steps),
            }
        )
    return out


def find(folder: Path, name: str, routes: Routes | None = None) -> Flow | None:
    """The library's flow called ``name`` (its ``name:`` or its file's stem)."""
    for path in files([folder]) if folder.is_dir() else []:
        if path.stem == name:
            return read(path, routes)
    for path in files([folder]) if folder.is_dir() else []:
        try:
            flow = read(path, routes)
        except FlowError:
            continue
        if flow.name == name:
            return flow
    return None
