"""Every ``serve`` flag has an ``EMULATOR_*`` variable named after it (issue 28): what the
variable sets, that the flag wins, and that a bad value is refused like the flag's."""

from __future__ import annotations

import argparse
from pathlib import Path

import httpx
import pytest

from emulator.cli.commands import _parser
from emulator.cli.serve_options import settings_from
from emulator.runtime.settings import MEMORY, VARIABLES
from tests.test_cli import serving
from tests.test_cli_startup import assert_refused, run_serve


def serve_flags() -> list[str]:
    """The long option of every ``serve`` argument, from the parser itself."""
    commands = next(a for a in _parser()._actions if isinstance(a, argparse._SubParsersAction))
    serve = commands.choices["serve"]
    return [
        next(o for o in action.option_strings if o.startswith("--"))
        for action in serve._actions
        if action.option_strings and action.dest != "help"
    ]


def test_every_serve_flag_has_its_variable_named_after_it():
    by_flag = {v.flag: v for v in VARIABLES if "serve" in v.read_by}
    flags = serve_flags()
    assert "--callback-hosts" in flags and "--log-level" in flags  # the walk finds them
    missing = [flag for flag in flags if flag not in by_flag]
    assert missing == [], f"add these to emulator/runtime/settings.py VARIABLES: {missing}"
    for flag in flags:
        name = "EMULATOR_" + flag.removeprefix("--").replace("-", "_").upper()
        assert by_flag[flag].name == name


def settings(*args: str, **env: str):
    return settings_from(_parser().parse_args(["serve", *args]), env)


def test_each_variable_sets_what_its_flag_sets(tmp_path: Path):
    given = settings(
        EMULATOR_LOG_LEVEL="WARNING",
        EMULATOR_SCENARIO="3ds-failures, maintenance-503",
        EMULATOR_TLS="yes",
        EMULATOR_EPHEMERAL="1",
        EMULATOR_RATE_LIMIT="5/10",
    )
    assert given.log_level == "warning"
    assert given.scenarios == ("3ds-failures", "maintenance-503")
    assert given.tls is True
    assert given.db_path == MEMORY and given.in_memory
    assert (given.rate_limit.limit, given.rate_limit.window_seconds) == (5, 10)  # type: ignore[union-attr]
    off = settings(EMULATOR_TLS="off", EMULATOR_EPHEMERAL="false")
    assert (off.tls, off.in_memory) == (False, False)
    assert settings("--db", ":memory:").in_memory
    assert settings("--ephemeral").in_memory


def test_the_flag_wins_over_its_variable(tmp_path: Path):
    db = tmp_path / "e.sqlite3"
    won = settings(
        "--log-level",
        "debug",
        "--scenario",
        "maintenance-503",
        "--db",
        str(db),
        EMULATOR_LOG_LEVEL="error",
        EMULATOR_SCENARIO="3ds-failures",
        EMULATOR_EPHEMERAL="1",
    )
    assert (won.log_level, won.scenarios, won.db_path) == ("debug", ("maintenance-503",), db)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("variable", "value", "flag", "said"),
    [
        ("EMULATOR_LOG_LEVEL", "loud", "--log-level", "must be one of"),
        ("EMULATOR_TLS", "maybe", "--tls", "expected 1/true/yes/on"),
        ("EMULATOR_SCENARIO", "no-such-scenario", "--scenario", "no shipped scenario"),
        ("EMULATOR_CALLBACK_CA", "/nonexistent.pem", "--callback-ca", "is not a PEM CA file"),
    ],
)
def test_a_bad_value_is_refused_in_one_line_like_the_flag(
    tmp_path: Path, variable: str, value: str, flag: str, said: str
):
    db = str(tmp_path / "e.sqlite3")
    by_env = run_serve("--db", db, "--port", "1", env={variable: value})
    assert_refused(by_env, variable, said)
    if flag != "--tls":  # a switch takes no value on the command line
        assert_refused(run_serve("--db", db, "--port", "1", flag, value), flag, said)
    assert not (tmp_path / "e.sqlite3").exists()


@pytest.mark.slow
def test_serve_ephemeral_from_the_environment_keeps_nothing_on_disk():
    purchase = {
        "brand_id": "4b0d6e2a-1c3f-4a5b-8d7e-9f0a1b2c3d4e",
        "client": {"email": "a@example.com"},
        "purchase": {"products": [{"name": "x", "price": 100}]},
    }
    key = {"Authorization": "Bearer sk_test_emulator_default_key"}
    with serving(env={"EMULATOR_EPHEMERAL": "1"}) as (url, output):
        created = httpx.post(f"{url}/api/v1/purchases/", json=purchase, headers=key)
        assert created.status_code == 201, created.text
        assert httpx.post(f"{url}/_emulator/snapshots/s").status_code == 201
        assert httpx.get(f"{url}/_emulator/snapshots").json()["snapshots"] == ["s"]
    assert "database      :memory: (in memory: nothing is kept when it stops)" in output[0]
    here = Path.cwd()
    assert not [p for p in here.iterdir() if p.name.startswith(":memory:")]


def test_contradictions_between_flags_and_variables_are_refused(tmp_path: Path):
    with pytest.raises(ValueError, match="--ephemeral keeps everything in memory"):
        settings("--ephemeral", "--db", str(tmp_path / "e.sqlite3"))
    with pytest.raises(ValueError, match="EMULATOR_TLS_CERT and EMULATOR_TLS_KEY go together"):
        settings(EMULATOR_TLS_CERT=str(tmp_path / "cert.pem"))
    with pytest.raises(ValueError, match="EMULATOR_TLS_CERT: cannot read"):
        settings(EMULATOR_TLS_CERT=str(tmp_path / "c.pem"), EMULATOR_TLS_KEY=str(tmp_path / "k"))
