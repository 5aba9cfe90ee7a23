"""``payments-emulator export``, ``import`` and ``serve --load``, run as processes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.test_cli_client import as_json, cli

pytestmark = pytest.mark.slow  # each verb runs as a process of its own


def test_export_then_import_round_trips(server, control, tmp_path: Path) -> None:
    merchant = control.new_merchant(name="exported")
    exported = cli(server.url, "export", "--merchant", merchant.company_id)
    assert exported.returncode == 0, exported.stderr
    document = yaml.safe_load(exported.stdout)
    assert [m["name"] for m in document["merchants"]] == ["exported"]
    as_file = tmp_path / "state.yaml"
    as_file.write_text(exported.stdout)
    control.call("DELETE", f"merchants/{merchant.company_id}")

    loaded = cli(server.url, "import", str(as_file))

    assert loaded.returncode == 0, loaded.stderr
    assert loaded.stdout.startswith(f"loaded {as_file}: 1 merchant(s), clock ")
    again = cli(server.url, "export", "--merchant", merchant.company_id, "--format", "json")
    assert json.loads(again.stdout) == json.loads(json.dumps(document))
    assert control.export_state(merchant) == exported.stdout


def test_a_bad_file_is_one_line_and_exit_1(server, tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("version: 1\nmerchants: [{id: m, colour: red}]\n")
    result = cli(server.url, "import", str(bad), "--json")
    assert result.returncode == 1
    assert result.stderr.count("\n") == 1
    assert "merchants[0].colour" in result.stderr
    assert as_json_error(result)["code"] == "invalid_state"
    missing = cli(server.url, "import", str(tmp_path / "none.yaml"))
    assert missing.returncode == 2 and missing.stderr.count("\n") == 1


def as_json_error(result: subprocess.CompletedProcess[str]) -> dict[str, object]:
    error: dict[str, object] = json.loads(result.stdout)["error"]
    return error


def test_serve_refuses_a_bad_load_file_in_one_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("merchants: []\n")
    result = subprocess.run(
        [sys.executable, "-m", "emulator", "serve", "--port", "1", "--load", str(bad),
         "--db", str(tmp_path / "db.sqlite3")],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert result.returncode == 2
    assert (
        result.stderr
        == f"payments-emulator: --load: {bad}: version: is required (this release writes 1)\n"
    )
    assert not (tmp_path / "db.sqlite3").exists()
    deeper = tmp_path / "deeper.yaml"
    deeper.write_text("version: 1\nmerchants: [{id: m, clients: [{email: nope}]}]\n")
    result = subprocess.run(
        [sys.executable, "-m", "emulator", "serve", "--port", "1", "--load", str(deeper),
         "--db", str(tmp_path / "db.sqlite3")],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert result.returncode == 2
    assert result.stderr.startswith(f"payments-emulator: --load: {deeper}: merchants[0].clients[0]")
    assert result.stderr.count("\n") == 1
    assert not (tmp_path / "db.sqlite3").exists()


def test_the_check_at_start_uses_the_flags_given(tmp_path: Path) -> None:
    """A webhook to a CI network's host loads with --callback-hosts, and only with it."""
    state = tmp_path / "hosts.yaml"
    state.write_text(
        "version: 1\nmerchants: [{id: m1, webhooks: [{title: t, all_events: true,"
        ' callback: "http://app:8000/hook"}]}]\n'
    )
    base = [sys.executable, "-m", "emulator", "serve", "--load", str(state)]
    refused = subprocess.run(
        [*base, "--port", "1", "--db", str(tmp_path / "a.sqlite3")],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert refused.returncode == 2
    assert "merchants[0].webhooks[0].callback" in refused.stderr
    accepted = subprocess.run(
        [*base, "--scenario", "no-such-scenario", "--callback-hosts", "app",
         "--db", str(tmp_path / "b.sqlite3")],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    # the file passed; the next check (--scenario, after the flags) refused
    assert accepted.returncode == 2 and "no-such-scenario" in accepted.stderr, accepted.stderr
    assert "webhooks" not in accepted.stderr


def test_states_lists_nothing_without_a_folder(server) -> None:
    assert as_json(cli(server.url, "states", "--json")) == {"states": [], "folder": None}


def test_serve_refuses_a_load_file_that_clashes_with_the_database_in_one_line(
    tmp_path: Path,
) -> None:
    """A file valid on its own whose key another merchant of the database served already
    holds: refused before anything starts, in one line (not a traceback from the start)."""
    from emulator.testing import EmulatorServer

    db = tmp_path / "db.sqlite3"
    with EmulatorServer(db_path=db) as running, running.client() as control:
        held = control.new_merchant(name="held").api_key
    clash = tmp_path / "clash.yaml"
    clash.write_text(
        "version: 1\nmerchants: [{id: 0b1c2d3e-0000-4000-8000-000000000001,"
        f" api_keys: [{{key: {held}, environment: sandbox}}]}}]\n"
    )
    before = db.stat().st_mtime_ns
    result = subprocess.run(
        [sys.executable, "-m", "emulator", "serve", "--port", "1", "--load", str(clash),
         "--db", str(db)],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert result.returncode == 2, result.stderr
    assert result.stderr.startswith(f"payments-emulator: --load: {clash}: merchants[0].api_keys[0]")
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr
    assert db.stat().st_mtime_ns == before  # the file served was only read
