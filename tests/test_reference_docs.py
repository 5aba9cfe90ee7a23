"""The generated reference pages of docs/reference/ are current and say true things."""

from __future__ import annotations

from pathlib import Path

import pytest

from emulator import resources
from emulator.cli.client import DEFAULT_URL
from emulator.runtime import settings
from tools import reference

ROOT = Path(__file__).resolve().parent.parent


def page(name: str) -> str:
    return (ROOT / "docs" / "reference" / name).read_text(encoding="utf-8")


def test_generated_pages_are_current():
    """Every page equals what `python -m tools.reference` writes now (run `make reference`)."""
    assert reference.stale() == []


def test_check_names_a_stale_page(tmp_path):
    """Against a tree where one page is out of date, --check's test finds exactly that one."""
    reference.write(tmp_path)
    cli = tmp_path / "docs" / "reference" / "cli.md"
    cli.write_text(cli.read_text() + "edited by hand\n")
    assert reference.stale(tmp_path) == [Path("docs/reference/cli.md")]


def test_check_passes_on_the_repository():
    """`python -m tools.reference --check` exits 0 on the committed pages."""
    assert reference.main(["--check"]) == 0


def test_serve_flags_appear_with_their_defaults():
    """The serve table gives --port its default 8400 and --log-level its default info."""
    cli = page("cli.md")
    assert "| `--port PORT` | `8400` |" in cli
    assert "| `--log-level LOG_LEVEL` | `info` |" in cli
    assert "## `payments-emulator clock advance`" in cli


def test_every_variable_appears_with_its_flag():
    """Each EMULATOR_* variable of settings.VARIABLES has its row, with its flag."""
    environment = page("environment.md")
    for variable in settings.VARIABLES:
        assert f"| `{variable.name}` | `{variable.flag}` |" in environment
    assert "| `EMULATOR_URL` | `--url` | `http://127.0.0.1:8400` |" in environment


def test_client_url_default_is_the_one_documented():
    """The client verbs' default URL is the one VARIABLES documents."""
    assert DEFAULT_URL == settings.DEFAULT_URL


@pytest.mark.parametrize(
    ("name", "row"),
    [
        pytest.param("gateway-api.md", "| `POST` | `/api/v1/purchases/` |", id="gateway"),
        pytest.param("bank-api.md", "| `POST` | `/v2/collection/eft` |", id="bank"),
        pytest.param("control-plane.md", "| `POST` | `/_emulator/clock/advance` |", id="control"),
    ],
)
def test_a_route_of_each_app_appears(name, row):
    """Each API page lists one of its app's routes in its tag's table."""
    assert row in page(name)


def test_every_test_card_and_unpaid_code_appears():
    """The test-values page lists every card of the fixtures and every unpaid code."""
    values = page("test-values.md")
    for card in resources.test_values()["cards"]:
        assert f"| `{card['number']}` |" in values
    for entry in resources.unpaid_codes().codes:
        assert f"| `{entry.code}` | {entry.text} |" in values
