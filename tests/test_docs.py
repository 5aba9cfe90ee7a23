"""The README cannot drift: its tables are checked against the code and the fixtures."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from starlette.routing import Route

from emulator import resources
from emulator.cli.commands import _parser
from emulator.http.bank.routes import ROUTES as BANK
from emulator.http.control.routes import ROUTES as CONTROL
from emulator.http.gateway.routes import ROUTES as GATEWAY
from emulator.serving import settings

README = (Path(__file__).resolve().parent.parent / "README.md").read_text()


def section(title: str) -> str:
    start = README.index(f"\n## {title}\n")
    end = README.find("\n## ", start + 1)
    return README[start : end if end != -1 else None]


def table_rows(text: str) -> list[list[str]]:
    """Body rows of every Markdown table in ``text`` (header rows left out)."""
    lines = text.splitlines()
    rows = []
    for i, line in enumerate(lines):
        is_header = i + 1 < len(lines) and re.match(r"^\|[-| ]+\|$", lines[i + 1])
        if line.startswith("|") and not re.match(r"^\|[-| ]+\|$", line) and not is_header:
            rows.append([cell.strip() for cell in line.strip("|").split("|")])
    return rows


def routes(table: list[Route], prefix: str) -> set[tuple[str, str]]:
    return {
        (method, prefix + route.path)
        for route in table
        for method in (route.methods or set())
        if method != "HEAD"
    }


def documented(title: str) -> set[tuple[str, str]]:
    return {(row[0], row[1]) for row in table_rows(section(title)) if row[0].isupper()}


def test_gateway_endpoints_table_matches_the_routes():
    assert documented("The gateway (`/api/v1/`)") == routes(GATEWAY, "/api/v1")


def test_bank_endpoints_table_matches_the_routes():
    assert documented("The bank interface (`/v2/`)") == routes(BANK, "/v2")


def test_control_plane_table_matches_the_routes():
    assert documented("Control plane (`/_emulator/`)") == routes(CONTROL, "/_emulator")


def test_test_values_tables_match_the_fixtures():
    values = resources.test_values()
    rows = table_rows(section("Test values"))
    cards = [(r[0], r[1], r[2]) for r in rows if r[0].isdigit() and len(r) == 3]
    accounts = [(r[0], r[1]) for r in rows if len(r) == 2]
    assert cards == [(c["number"], c["purchase"], c.get("payout", "")) for c in values["cards"]]  # type: ignore[index, union-attr]
    assert accounts == [(a["number"], a["outcome"]) for a in values["accounts"]]  # type: ignore[index, union-attr]


def test_default_credentials_match_the_fixtures():
    seed = resources.default_merchant()
    text = section("Default credentials")
    for value in (
        seed.company_id,
        seed.brands[0].id,
        seed.api_key,
        seed.production_api_key,
        seed.client_id,
        seed.client_secret,
    ):
        assert f"`{value}`" in text
    for profile in seed.profiles:
        assert f"`{profile.profileCode}`" in text


def test_command_line_table_matches_serve_flags():
    serve = _parser()._subparsers._group_actions[0].choices["serve"]  # type: ignore[union-attr]
    flags = {
        opt for action in serve._actions for opt in action.option_strings if opt.startswith("--")
    }
    flags -= {"--help"}
    rows = table_rows(section("Command line"))
    assert {row[0].strip("`") for row in rows} == flags
    documented = {row[1].strip("`") for row in rows} - {"(none)"}
    assert documented == {variable for variable, _, _ in settings._ENV}


def python_blocks(title: str) -> list[str]:
    return re.findall(r"```python\n(.*?)```", section(title), re.S)


@pytest.mark.slow  # runs pytest in a process of its own
def test_plugin_examples_in_the_readme_pass(pytester, monkeypatch):
    """The README's pytest example is a passing test suite, as written."""
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    pytester.makepyfile(test_readme=python_blocks("Pytest plugin")[0])
    result = pytester.runpytest_subprocess(
        "-p", "emulator.testing.pytest_plugin", "-p", "no:cacheprovider", timeout=60
    )
    result.assert_outcomes(passed=5)


def test_plain_class_example_in_the_readme_runs():
    """The README's example without pytest runs as written."""
    exec(compile(python_blocks("Pytest plugin")[1], "README.md", "exec"), {})


def test_actor_example_in_the_readme_runs():
    """The README's example of the payer and the delivery log runs as written."""
    exec(compile(python_blocks("Pytest plugin")[2], "README.md", "exec"), {})


def backticked(cell: str) -> list[str]:
    return re.findall(r"`([^`]+)`", cell)


def test_scenario_points_table_matches_the_registry():
    """Every decision point, its match fields and its outcome fields, as the code has them."""
    from emulator.scenarios.points import REGISTRY

    rows = [r for r in table_rows(section("Scenarios")) if r[0].startswith("`") and "." in r[0]]
    documented = {
        backticked(r[0])[0]: (backticked(r[1]), backticked(r[2])) for r in rows if len(r) == 3
    }
    expected = {
        name: (list(point.fields), list(point.outcome.__struct_fields__))
        for name, point in REGISTRY.items()
    }
    assert documented == expected


def test_scenario_library_table_matches_the_shipped_files():
    from emulator.scenarios.library import shipped

    rows = table_rows(section("Scenarios"))
    names = [backticked(r[0])[0] for r in rows if len(r) == 2 and r[0].startswith("`")]
    assert names == sorted(shipped())
