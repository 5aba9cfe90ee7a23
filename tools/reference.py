"""``python -m tools.reference [--check]``: write the generated reference pages of
``docs/reference/`` (the command line, the environment variables, the three APIs, the test
values, the clients side by side), each from the code that serves or reads what it
describes. ``--check`` writes nothing: it names the pages that differ from what would be
written and exits 1."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path

from tools.api_pages import api_page
from tools.cli_pages import cli_page, environment_page
from tools.client_pages import clients_page
from tools.fixture_pages import test_values_page

ROOT = Path(__file__).resolve().parent.parent
REFERENCE = Path("docs") / "reference"

# Each page (relative to the repository root) and what makes it.
PAGES: dict[Path, Callable[[], str]] = {
    REFERENCE / "cli.md": cli_page,
    REFERENCE / "environment.md": environment_page,
    REFERENCE / "control-plane.md": partial(api_page, "control"),
    REFERENCE / "gateway-api.md": partial(api_page, "gateway"),
    REFERENCE / "bank-api.md": partial(api_page, "bank"),
    REFERENCE / "test-values.md": test_values_page,
    REFERENCE / "clients.md": clients_page,
}


def stale(root: Path = ROOT) -> list[Path]:
    """The pages whose file is missing or differs from what the code makes now."""
    found = []
    for path, make in PAGES.items():
        target = root / path
        current = target.read_text(encoding="utf-8") if target.is_file() else None
        if current != make():
            found.append(path)
    return found


def write(root: Path = ROOT) -> list[Path]:
    """Write every page that changed; the ones written."""
    written = []
    for path, make in PAGES.items():
        target = root / path
        text = make()
        if not target.is_file() or target.read_text(encoding="utf-8") != text:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
            written.append(path)
    return written


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.reference", description=__doc__)
    parser.add_argument(
        "--check", action="store_true", help="write nothing; exit 1 naming the stale pages"
    )
    args = parser.parse_args(argv)
    if args.check:
        found = stale()
        for path in found:
            print(f"stale: {path} (run `make reference`)", file=sys.stderr)
        return 1 if found else 0
    for path in write():
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
