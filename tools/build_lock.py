"""``python -m tools.build_lock inputs|pins|write COMPILED``: the build backend's lock, kept in
pyproject.toml.

uv.lock does not hold what builds the emulator itself (hatchling and its dependencies, from
``[build-system]``); uv takes them from ``[tool.uv] build-constraint-dependencies``, with their
hashes, and ``--require-build-hashes`` refuses a build with any other. ``make lock`` compiles
them (``uv pip compile --generate-hashes`` at uv.lock's versions) from ``inputs`` (what
``[build-system]`` requires, and ``editables``, which hatchling asks for an editable install),
with ``pins`` (the versions locked now) as constraints unless everything is upgraded; ``write``
puts that output between the two marker lines of pyproject.toml, replacing what was there."""

from __future__ import annotations

import sys
import tomllib
from pathlib import Path
from typing import Any

from tools import requirements

ROOT = Path(__file__).resolve().parent.parent
PYPROJECT = ROOT / "pyproject.toml"
BEGIN = "build-constraint-dependencies = [  # made by `make lock`: edit pyproject's ranges"
END = "]  # end of the build lock"
# What hatchling's get_requires_for_build_editable asks for beside itself.
EDITABLE = "editables"


def block(compiled: str) -> str:
    lines = [BEGIN]
    for found in requirements.read(compiled):
        requirement = f"{found.spec} ; {found.marker}" if found.marker else found.spec
        lines.append(f'    {{ requirement = "{requirement}", hashes = [')
        lines += [f'        "{h}",' for h in found.hashes]
        lines.append("    ] },")
    lines.append(END)
    return "\n".join(lines)


def rewrite(pyproject: str, compiled: str) -> str:
    start, end = pyproject.find(BEGIN), pyproject.find(END)
    if start < 0 or end < start:
        raise SystemExit(f"pyproject.toml: the lines {BEGIN!r} and {END!r} are missing")
    return pyproject[:start] + block(compiled) + pyproject[end + len(END) :]


def inputs(pyproject: dict[str, Any]) -> list[str]:
    return [*pyproject["build-system"]["requires"], EDITABLE]


def pins(pyproject: dict[str, Any]) -> list[str]:
    found = pyproject.get("tool", {}).get("uv", {}).get("build-constraint-dependencies", [])
    return [e["requirement"] if isinstance(e, dict) else str(e) for e in found]


def main(argv: list[str]) -> int:
    verb, *rest = argv or [""]
    if verb in ("inputs", "pins"):
        pyproject = tomllib.loads(PYPROJECT.read_text())
        print(*(inputs if verb == "inputs" else pins)(pyproject), sep="\n")
    elif verb == "write" and len(rest) == 1:
        PYPROJECT.write_text(rewrite(PYPROJECT.read_text(), Path(rest[0]).read_text()))
    else:
        print("usage: python -m tools.build_lock inputs|pins|write COMPILED", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
