"""The shipped library: every file loads, is named after its file and says what it does;
``payments-emulator scenario validate`` and ``serve --scenario`` check files for CI."""

from __future__ import annotations

from pathlib import Path

import pytest

from emulator.cli import main
from emulator.scenarios import library

FILES = library.files()


def test_the_library_is_not_empty_and_names_are_unique():
    assert len(FILES) >= 11
    assert len(library.shipped()) == len(FILES)


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_each_shipped_file_loads(path: Path):
    scenario = library.read_file(path)
    assert scenario.name == path.stem
    assert len(scenario.description) > 20


def test_validate_reports_each_file_and_fails_on_a_bad_one(tmp_path, capsys):
    good = FILES[0]
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: bad\nrules:\n  - when: purchase.payment\n    then: {result: maybe}\n")
    missing = tmp_path / "missing.yaml"
    assert main(["scenario", "validate", str(good)]) == 0
    assert main(["scenario", "validate", str(good), str(bad), str(missing)]) == 1
    out, err = capsys.readouterr()
    assert f"{good}: ok ({good.stem}, " in out
    assert (
        f"{bad}: rules[0].then.result: Invalid enum value 'maybe'; expected one of 3ds_failed,"
        " declined, paid" in err
    )
    assert f"{missing}: cannot read: No such file or directory" in err


def test_list_prints_every_shipped_scenario(capsys):
    assert main(["scenario", "list"]) == 0
    out = capsys.readouterr().out
    assert [line.split(":")[0] for line in out.splitlines()] == sorted(library.shipped())


def test_serve_refuses_an_unknown_or_invalid_scenario_before_starting(tmp_path, capsys):
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: bad\nrules: []\n")
    assert main(["serve", "--scenario", "no-such-scenario"]) == 2
    assert main(["serve", "--scenario", str(bad)]) == 2
    assert main(["serve", "--rate-limit", "lots"]) == 2
    err = capsys.readouterr().err
    assert "--scenario no-such-scenario: no shipped scenario of that name and no such file" in err
    assert f"{bad}: rules: at least one rule is needed" in err
    assert "--rate-limit: expected N or N/SECONDS, not 'lots'" in err
