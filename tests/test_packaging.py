"""The wheel carries fixtures/ and scenarios/ as data, and the package finds them."""

from __future__ import annotations

import zipfile
from pathlib import Path

from emulator import resources

ROOT = Path(__file__).resolve().parent.parent


def test_wheel_contains_data_folders(tmp_path: Path):
    """Building the wheel puts fixtures/ and scenarios/ inside the package."""
    from hatchling.builders.wheel import WheelBuilder

    builder = WheelBuilder(str(ROOT))
    wheel = next(iter(builder.build(directory=str(tmp_path), versions=["standard"])))
    names = set(zipfile.ZipFile(wheel).namelist())
    assert "emulator/_data/fixtures/default_merchant.yaml" in names
    assert "emulator/_data/fixtures/test_values.yaml" in names
    assert "emulator/_data/scenarios/README.md" in names
    assert "emulator/kernel/migrations/0001_initial.sql" in names
    # the reference page's style and script (/_emulator/docs fetches nothing from elsewhere)
    assert "emulator/openapi/static/docs.css" in names
    assert "emulator/openapi/static/docs.js" in names
    # PEP 561: users' type checkers read the package's own annotations
    assert "emulator/py.typed" in names


def test_data_folders_are_found_from_a_checkout():
    """In a checkout the data folders beside the package are used."""
    assert resources.data_dir("fixtures") == ROOT / "fixtures"
    assert resources.default_merchant().api_key == "sk_test_emulator_default_key"
