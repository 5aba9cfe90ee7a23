"""``python -m tools.latest < locked.txt``, run by the interpreter of the venv of
``make test-latest`` (or ``make test-lowest``): the versions installed there beside uv.lock's
(``uv export``'s ``name==version`` lines on standard input), so that its result says which
releases it ran on."""

from __future__ import annotations

import sys
from importlib import metadata

from packaging.utils import canonicalize_name

from tools import requirements


def locked_versions(exported: str) -> dict[str, str]:
    """The version of each package ``uv export`` names."""
    return {canonicalize_name(r.name): r.version for r in requirements.read(exported)}


def installed_versions() -> dict[str, str]:
    found: dict[str, str] = {}
    for dist in metadata.distributions():
        name = dist.metadata["Name"]
        if name:
            found[canonicalize_name(name)] = dist.version
    return found


def report(locked: dict[str, str], installed: dict[str, str]) -> list[str]:
    """One line a package that differs from the lock, then the count."""
    installed.pop("payments-emulator", None)
    moved = sorted(n for n in installed if n in locked and installed[n] != locked[n])
    new = sorted(n for n in installed if n not in locked)
    lines = [f"  {n:<28} {locked[n]:>14} -> {installed[n]}" for n in moved]
    lines += [f"  {n:<28} {'(not locked)':>14}    {installed[n]}" for n in new]
    head = (
        f"{len(installed)} packages installed, {len(moved)} at another version than uv.lock's"
        f"{f', {len(new)} not in it' if new else ''}{':' if lines else ''}"
    )
    return [head, *lines]


def main() -> int:
    for line in report(locked_versions(sys.stdin.read()), installed_versions()):
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
