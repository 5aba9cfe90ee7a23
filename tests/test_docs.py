"""The README and the manual cannot drift: their examples run as written, and their tables are
checked against the code and the fixtures. (The reference pages under docs/reference/ are
generated from the code and tested where they are generated.)"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from emulator import resources

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text()
DOCS = ROOT / "docs"


def page(name: str) -> str:
    return (DOCS / name).read_text()


def table_rows(text: str) -> list[list[str]]:
    """Body rows of every Markdown table in ``text`` (header rows left out)."""
    lines = text.splitlines()
    rows = []
    for i, line in enumerate(lines):
        is_header = i + 1 < len(lines) and re.match(r"^\|[-| ]+\|$", lines[i + 1])
        if line.startswith("|") and not re.match(r"^\|[-| ]+\|$", line) and not is_header:
            rows.append([cell.strip() for cell in line.strip("|").split("|")])
    return rows


def blocks(text: str, language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", text, re.S)


def test_readme_is_a_landing_page():
    """The README stays short: the manual is docs/."""
    assert len(README.splitlines()) <= 300


def test_readme_links_only_to_files_that_exist():
    links = re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", README)
    local = [link for link in links if "://" not in link]
    assert local, "the README links into docs/"
    assert [link for link in local if not (ROOT / link).exists()] == []


def test_readme_ci_jobs_are_the_manuals():
    """The GitHub Actions and GitLab CI jobs of the README are those docs/ci.md explains."""
    jobs = blocks(README, "yaml")
    assert len(jobs) == 2 and jobs == blocks(page("ci.md"), "yaml")
    github, gitlab = (yaml.safe_load(job) for job in jobs)
    steps = github["jobs"]["integration"]["steps"]
    assert any("payments-emulator serve" in step.get("run", "") for step in steps)
    assert any("/_emulator/health" in line for line in gitlab["integration"]["script"])


def test_default_credentials_match_the_fixtures():
    seed = resources.default_merchant()
    for text in (README, page("getting-started.md")):
        section = text[text.index("## Default credentials") :]
        for value in (
            seed.company_id,
            seed.brands[0].id,
            seed.api_key,
            seed.production_api_key,
            seed.client_id,
            seed.client_secret,
        ):
            assert f"`{value}`" in section
        for profile in seed.profiles:
            assert f"`{profile.profileCode}`" in section


def python_blocks(name: str) -> list[str]:
    return blocks(page(name), "python")


@pytest.mark.slow  # runs pytest in a process of its own
def test_plugin_examples_in_the_manual_pass(pytester, monkeypatch):
    """docs/pytest.md's example is a passing test suite, as written."""
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    pytester.makepyfile(test_manual=python_blocks("pytest.md")[0])
    result = pytester.runpytest_subprocess(
        "-p", "emulator.testing.pytest_plugin", "-p", "no:cacheprovider", timeout=60
    )
    result.assert_outcomes(passed=5)


@pytest.mark.slow  # runs pytest in a process of its own
def test_plugin_example_in_the_readme_passes(pytester, monkeypatch):
    """The README's pytest example is a passing test suite, as written."""
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    pytester.makepyfile(test_readme=blocks(README, "python")[0])
    result = pytester.runpytest_subprocess(
        "-p", "emulator.testing.pytest_plugin", "-p", "no:cacheprovider", timeout=60
    )
    result.assert_outcomes(passed=2)


def test_plain_class_example_in_the_manual_runs():
    """docs/pytest.md's example without pytest runs as written."""
    exec(compile(python_blocks("pytest.md")[1], "docs/pytest.md", "exec"), {})


def test_actor_example_in_the_manual_runs():
    """docs/pytest.md's example of the payer and the delivery log runs as written."""
    exec(compile(python_blocks("pytest.md")[2], "docs/pytest.md", "exec"), {})


def backticked(cell: str) -> list[str]:
    return re.findall(r"`([^`]+)`", cell)


def test_scenario_points_table_matches_the_registry():
    """Every decision point, its match fields and its outcome fields, as the code has them."""
    from emulator.scenarios.points import REGISTRY

    rows = [r for r in table_rows(page("scenarios.md")) if r[0].startswith("`") and "." in r[0]]
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

    rows = table_rows(page("scenarios.md"))
    names = [backticked(r[0])[0] for r in rows if len(r) == 2 and r[0].startswith("`")]
    assert names == sorted(shipped())


def test_every_make_target_the_docs_name_is_in_the_makefile():
    """`make lock`, `make test-latest`, `make image`...: a page names only targets that exist."""
    makefile = (ROOT / "Makefile").read_text()
    rules = re.findall(r"^([a-z][a-z -]*):(?!=)", makefile, re.M)  # not `x := ...`
    targets = {t for rule in rules for t in rule.split()}
    texts = [README, *(p.read_text() for p in DOCS.rglob("*.md"))]
    named = {t for text in texts for t in re.findall(r"`make ([a-z][a-z-]*)", text)}
    assert {"lock", "test-latest", "image", "test", "run"} <= named
    assert named <= targets, sorted(named - targets)
