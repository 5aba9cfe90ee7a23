"""``payments-emulator merchants delete`` and ``merchants clock``, and the manual's example
of the verbs, run as users run them: processes talking HTTP to a live emulator."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from emulator.testing import EmulatorServer
from tests.test_cli_client import DEFAULT_COMPANY, START, as_json, cli

pytestmark = pytest.mark.slow  # each verb runs as a process of its own

ROOT = Path(__file__).resolve().parent.parent


def test_merchants_delete_is_one_line_and_the_keys_stop_working(server, control) -> None:
    merchant = control.new_merchant(name="doomed")
    key = {"Authorization": f"Bearer {merchant.api_key}"}
    hooks = f"{server.url}/api/v1/webhooks/"
    assert httpx.get(hooks, headers=key).status_code == 200

    done = cli(server.url, "merchants", "delete", merchant.company_id)

    assert done.returncode == 0, done.stderr
    assert re.fullmatch(rf"deleted merchant {merchant.company_id} \(\d+ row\(s\)\)\n", done.stdout)
    assert httpx.get(hooks, headers=key).status_code == 401
    listed = {m["company_id"] for m in control.call("GET", "merchants")["merchants"]}
    assert merchant.company_id not in listed
    again = cli(server.url, "merchants", "delete", merchant.company_id)
    assert again.returncode == 1
    assert again.stderr.count("\n") == 1 and "404 merchant_not_found" in again.stderr


def test_merchants_delete_json_and_refusals(server, control) -> None:
    merchant = control.new_merchant()
    answer = as_json(cli(server.url, "merchants", "delete", merchant.company_id, "--json"))
    assert answer["deleted"] is True and answer["removed"]["merchants"] == 1
    default = cli(server.url, "merchants", "delete", DEFAULT_COMPANY)
    assert default.returncode == 1 and "409 default_merchant" in default.stderr
    # The id is sent as one path segment whatever it holds: a 404 in one line, never
    # another endpoint (a query, a reset) nor a traceback; an id that cannot be one segment
    # (a '/', '..') is a usage error before any request.
    kept = control.new_merchant()
    for odd in ("x?y=1", "%2e%2e", "x#y"):
        result = cli(server.url, "merchants", "delete", odd)
        assert result.returncode == 1, result.stdout
        assert result.stderr.count("\n") == 1 and "refused (404 " in result.stderr, result.stderr
    for odd in ("a/b", "../../reset", ".."):
        result = cli(server.url, "merchants", "delete", odd)
        assert result.returncode == 2, result.stdout
        assert result.stderr.count("\n") == 1 and "company_id" in result.stderr, result.stderr
    listed = {m["company_id"] for m in control.call("GET", "merchants")["merchants"]}
    assert kept.company_id in listed


def test_the_client_deletes_a_merchant(server, control) -> None:
    merchant = control.new_merchant()
    assert control.delete_merchant(merchant)["company_id"] == merchant.company_id
    other = control.new_merchant()
    assert control.delete_merchant(other.company_id)["deleted"] is True


def test_merchants_clock_gives_an_existing_merchant_its_own_clock(server, control) -> None:
    merchant = control.new_merchant()
    company = merchant.company_id
    shown = cli(server.url, "merchants", "clock", company)
    assert shown.stdout == f"{START} frozen (merchant {company}, following the server clock)\n"
    refused = cli(server.url, "clock", "advance", "1d", "--merchant", company)
    assert refused.returncode == 1 and "clock_not_own" in refused.stderr

    given = cli(
        server.url, "merchants", "clock", company, "--own", "--frozen", "--at", "2027-01-01"
    )
    assert given.returncode == 0, given.stderr
    assert given.stdout == f"2027-01-01T00:00:00Z frozen (merchant {company}, its own clock)\n"
    advanced = cli(server.url, "clock", "advance", "1d", "--merchant", company)
    assert advanced.returncode == 0, advanced.stderr
    assert advanced.stdout.startswith("2027-01-02T00:00:00Z frozen")
    assert control.clock().now.isoformat().startswith(START[:19])  # the server's did not move

    running = as_json(cli(server.url, "merchants", "clock", company, "--own", "--json"))
    assert (running["mode"], running["own"]) == ("real", True)
    usage = cli(server.url, "merchants", "clock", company, "--frozen")
    assert usage.returncode == 2 and "--own" in usage.stderr


def test_the_manuals_example_of_the_verbs_runs_as_written(tmp_path: Path) -> None:
    """The `sh` block of docs/cli.md, line by line under `set -e` against a live emulator:
    the per-merchant clock lines included (the merchant is given its own clock first)."""
    text = (ROOT / "docs" / "cli.md").read_text()
    block = next(b for b in re.findall(r"```sh\n(.*?)```", text, re.S) if "advance 1d" in b)
    script = tmp_path / "example.sh"
    script.write_text("set -euo pipefail\n" + block)
    with EmulatorServer() as running:  # real time, as `serve` starts by default
        environment = {k: v for k, v in os.environ.items() if not k.startswith("EMULATOR_")}
        bin_dir = str(Path(sys.executable).parent)
        environment.update(
            {"EMULATOR_URL": running.url, "PATH": f"{bin_dir}{os.pathsep}{environment['PATH']}"}
        )
        result = subprocess.run(
            ["bash", str(script)],
            capture_output=True,
            text=True,
            env=environment,
            cwd=ROOT,
            timeout=300,
        )
        assert result.returncode == 0, result.stdout + result.stderr
        assert "its own clock" in result.stdout
        assert "deleted merchant" in result.stdout
        merchants = httpx.get(f"{running.url}/_emulator/merchants").json()["merchants"]
        assert [m["company_id"] for m in merchants] == [DEFAULT_COMPANY]
