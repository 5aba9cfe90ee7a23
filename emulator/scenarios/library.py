"""The shipped library: ``scenarios/*.yaml``, one scenario per file named after it."""

from __future__ import annotations

import functools
from pathlib import Path

from emulator.resources import data_dir
from emulator.scenarios.rules import InvalidScenario, Scenario, parse


def files() -> list[Path]:
    return sorted(data_dir("scenarios").glob("*.yaml"))


@functools.cache
def shipped() -> dict[str, Scenario]:
    """Every shipped scenario by name. A file that does not load is a packaging bug: it
    raises, naming the file (a test loads them all)."""
    found: dict[str, Scenario] = {}
    for path in files():
        try:
            scenario = parse(path.read_bytes())
        except InvalidScenario as exc:
            raise InvalidScenario(f"{path.name}: {exc}") from None
        found[scenario.name] = scenario
    return found


def read_file(path: Path) -> Scenario:
    """A scenario file named on the command line; errors name the file."""
    try:
        text = path.read_bytes()
    except OSError as exc:
        raise InvalidScenario(f"{path}: cannot read: {exc.strerror}") from None
    try:
        return parse(text)
    except InvalidScenario as exc:
        raise InvalidScenario(f"{path}: {exc}") from None
