"""``payments-emulator verify FILE`` (issue 26), run as users run it: a subprocess against a
live emulator. Exit 0 when every expectation holds, 1 when not (the report on stderr), 2 on a
bad file; ``--wait`` with ``--advance-up-to``; ``--junit`` writes one case per expectation."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from lxml import etree

from emulator.testing import EmulatorClient, EmulatorServer
from tests.live_helpers import executed_payout as payout
from tests.test_cli_client import cli

pytestmark = pytest.mark.slow

START = "2026-01-05T09:00:00Z"

# JUnit XML as CI servers read it (the file says where its rules come from).
JUNIT_SCHEMA = etree.XMLSchema(etree.parse(str(Path(__file__).with_name("junit.xsd"))))


def test_the_schema_refuses_what_ci_servers_would():
    """The schema bites: a case without a name, a count that is not one."""
    bad = b'<testsuites><testsuite name="s" tests="one" failures="0" errors="0"><testcase/>'
    assert not JUNIT_SCHEMA.validate(etree.fromstring(bad + b"</testsuite></testsuites>"))
    messages = [e.message for e in JUNIT_SCHEMA.error_log]
    assert any("'name' is required" in m for m in messages), messages
    assert any("'one' is not a valid value" in m for m in messages), messages


def test_verify_exits_0_when_all_hold_and_1_with_the_report(
    server: EmulatorServer, control: EmulatorClient, tmp_path: Path
) -> None:
    merchant = control.new_merchant()
    paid = payout(control, merchant, "4444333322221111")
    good = tmp_path / "good.yaml"
    good.write_text(
        "expect:\n"
        "  - request: {method: POST, path: /api/v1/payouts/}\n"
        "    count: 1\n"
        f"  - transition: {{object_id: {paid['id']}, status: success}}\n"
    )
    held = cli(server.url, "verify", str(good), "--merchant", merchant.company_id)
    assert held.returncode == 0, held.stderr
    assert held.stdout.splitlines()[0] == "2 of 2 expectations held"
    bad = tmp_path / "bad.yaml"
    bad.write_text(
        "expect:\n"
        "  - id: refunds\n"
        "    request: {method: POST, path: '/api/v1/purchases/{id}/refund/'}\n"
        "  - request: {method: POST, path: /api/v1/payouts/}\n"
    )
    junit = tmp_path / "report.xml"
    failed = cli(
        server.url, "verify", str(bad), "--merchant", merchant.company_id, "--junit", str(junit)
    )
    assert failed.returncode == 1
    assert "1 of 2 expectations held" in failed.stderr
    assert "FAILED [0] refunds: expected at least 1 POST /api/v1/purchases/{id}/refund/" in (
        failed.stderr
    )
    schema = JUNIT_SCHEMA
    assert schema.validate(etree.parse(str(junit))), schema.error_log
    suite = ET.parse(junit).getroot().find("testsuite")
    assert suite is not None
    assert (suite.get("tests"), suite.get("failures")) == ("2", "1")
    first, second = suite.findall("testcase")
    failure = first.find("failure")
    assert failure is not None and first.get("name") == "[0] refunds"
    assert (failure.get("message") or "").startswith("expected at least 1 POST /api/v1/purchases")
    assert second.find("failure") is None
    as_json = cli(server.url, "verify", str(good), "--merchant", merchant.company_id, "--json")
    assert as_json.returncode == 0 and json.loads(as_json.stdout)["ok"] is True


def test_a_bad_file_exits_2_with_one_line(
    server: EmulatorServer, control: EmulatorClient, tmp_path: Path
) -> None:
    merchant = control.new_merchant()
    cases = {
        "within.yaml": ("expect:\n  - event: {}\n    within: 5x\n", 'expect[0].within: "5x"'),
        "broken.yaml": ("expect: [", "not valid YAML"),
        "list.yaml": ("- event: {}\n", "must be a mapping"),
    }
    for name, (text, message) in cases.items():
        path = tmp_path / name
        path.write_text(text)
        result = cli(server.url, "verify", str(path), "--merchant", merchant.company_id)
        assert result.returncode == 2, (name, result.stderr)
        assert message in result.stderr and len(result.stderr.splitlines()) == 1, result.stderr
    missing = cli(server.url, "verify", str(tmp_path / "nowhere.yaml"))
    assert missing.returncode == 2 and "nowhere.yaml" in missing.stderr
    fine = tmp_path / "fine.yaml"
    fine.write_text("expect:\n  - event: {}\n")
    unknown = cli(server.url, "verify", str(fine), "--merchant", "nobody")
    assert unknown.returncode == 1 and "no merchant nobody" in unknown.stderr


def test_wait_with_advance_up_to(
    server: EmulatorServer, control: EmulatorClient, tmp_path: Path
) -> None:
    merchant = control.new_merchant(clock="frozen", now="2026-03-02T08:00:00Z")
    pending = payout(control, merchant, "5555555555554444")
    file = tmp_path / "settles.yaml"
    file.write_text(f"expect:\n  - transition: {{object_id: {pending['id']}, status: success}}\n")
    m = ("--merchant", merchant.company_id)
    early = cli(server.url, "verify", str(file), *m, "--wait", "0.2s")
    assert early.returncode == 1 and "(timed out)" in early.stderr
    done = cli(server.url, "verify", str(file), *m, "--wait", "10s", "--advance-up-to", "7d")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0] == "1 of 1 expectation held (at 2026-03-05T08:00:00Z)"
