"""``payments-emulator flow run`` and ``flow check`` (issue 27): one run as users run it, a
subprocess against a live emulator (exit 1, --parallel, --junit); the rest through ``main``."""

from __future__ import annotations

import shutil
import socket
from pathlib import Path

import pytest
from lxml import etree

from emulator.cli import main
from emulator.testing import EmulatorClient, EmulatorServer
from tests.test_cli_client import cli
from tests.test_cli_verify import JUNIT_SCHEMA

SHIPPED = Path(__file__).parents[1] / "flows" / "payout-settles-after-three-days.yaml"
FAILING = """name: failing
merchant: {start: "2026-03-02T08:00:00Z"}
steps:
  - call: {api: gateway, method: POST, path: /api/v1/clients/, save: c, body: {email: c@example.com}}
  - expect: [{request: {path: /api/v1/clients/}, count: 2}]
  - advance: 1d
"""


@pytest.fixture
def failing(tmp_path: Path) -> Path:
    path = tmp_path / "failing.yaml"
    path.write_text(FAILING)
    return path


def company_ids(control: EmulatorClient) -> set[str]:
    return {m["company_id"] for m in control.call("GET", "merchants")["merchants"]}


@pytest.mark.slow  # a process of its own
def test_a_failed_flow_exits_1_with_its_report_and_junit(
    server: EmulatorServer, failing: Path, tmp_path: Path
):
    junit = tmp_path / "flows.xml"
    result = cli(server.url, "flow", "run", "--parallel", "2", "--junit", str(junit),
                 str(SHIPPED), str(failing))  # fmt: skip
    assert result.returncode == 1, result.stderr
    assert result.stderr == "payments-emulator: failed: failing\n"
    out = result.stdout
    assert "flow payout-settles-after-three-days" in out and ": passed in " in out
    assert "   2 failed " in out and "expect: verify 1 item(s)" in out
    assert "step steps[1] (expect) failed: the expectations do not hold" in out
    assert "  - expected exactly 2 request to /api/v1/clients/, saw 1: #" in out
    assert "   3 skipped" in out and "1 of 2 flow(s) passed" in out
    document = etree.parse(str(junit))
    assert JUNIT_SCHEMA.validate(document), JUNIT_SCHEMA.error_log
    [case] = document.findall(".//testcase[failure]")
    assert case.get("name") == "failing"
    assert "steps[1] (expect) failed" in (case.find("failure").text or "")


def test_a_passing_run_exits_0_a_line_per_step_and_deletes_its_merchant(
    server: EmulatorServer, control: EmulatorClient, capsys
):
    before = company_ids(control)
    assert main(["flow", "run", "--url", server.url, str(SHIPPED)]) == 0
    lines = capsys.readouterr().out.splitlines()
    steps = [line for line in lines if line[:4].strip().isdigit()]
    assert len(steps) == 5 and all(" passed " in line for line in steps)
    assert steps[3].split()[4] == "2026-03-05T08:00:00Z"  # the emulator's instant after it
    assert lines[-1] == "1 of 1 flow(s) passed"
    assert company_ids(control) == before


def test_keep_keeps_the_merchants(
    server: EmulatorServer, control: EmulatorClient, capsys, tmp_path
):
    shutil.copy(SHIPPED, tmp_path)  # a folder of one flow (the library holds more)
    before = company_ids(control)
    assert main(["flow", "run", "--url", server.url, "--keep", str(tmp_path)]) == 0
    made = company_ids(control) - before
    assert len(made) == 1
    assert f"merchant {made.pop()} (kept)" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["flow", "check", "{bad}"],
         "payments-emulator: {bad}: line 3, column 14: steps[0].advance: \"3x\" is not a"
         ' duration (such as "5m", "3d")'),
        (["flow", "run", "{bad}"], "payments-emulator: {bad}: line 3, column 14:"),
        (["flow", "check", "{missing}"], "payments-emulator: {missing}: no such file or folder"),
        (["flow", "run", "--parallel", "0", "{bad}"],
         "payments-emulator: argument --parallel: '0' is not a number from 1 to 64"),
    ],
)  # fmt: skip
def test_bad_input_exits_2_in_one_line(server: EmulatorServer, tmp_path: Path, capsys, args, said):
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: bad\nsteps:\n  - advance: 3x\n")
    names = {"bad": str(bad), "missing": str(tmp_path / "missing.yaml")}
    given = [a.format(**names) for a in args]
    if given[1] == "run":
        given[2:2] = ["--url", server.url]
    code = main(given)
    err = capsys.readouterr().err
    assert code == 2
    assert err.strip().splitlines()[-1].startswith(said.format(**names)), err


def test_check_names_each_good_file(capsys, tmp_path):
    shutil.copy(SHIPPED, tmp_path)  # a folder of one flow (the library holds more)
    assert main(["flow", "check", str(tmp_path)]) == 0
    assert capsys.readouterr().out.splitlines() == [
        f"ok {tmp_path / SHIPPED.name}: payout-settles-after-three-days (5 steps)"
    ]


def test_no_emulator_at_the_url_is_one_line_and_exit_1(capsys):
    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{probe.getsockname()[1]}"
    assert main(["flow", "run", "--url", url, str(SHIPPED)]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"payments-emulator: cannot reach the emulator at {url} ("), err
    assert len(err.strip().splitlines()) == 1
