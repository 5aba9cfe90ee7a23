"""``POST /_emulator/receiver-checks`` (issue 29) against three receivers of our own
(``tests/receivers.py``) that call a live emulator's gateway as an app would: a careless one,
a strict one and a slow one, each with the results and score it earns."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from lxml import etree

from emulator.cli.commands import main
from emulator.testing import EmulatorClient, EmulatorServer
from emulator.testing.records import Merchant
from tests import receivers
from tests.test_cli_client import cli
from tests.test_cli_verify import JUNIT_SCHEMA


@pytest.fixture
def merchant(control: EmulatorClient) -> Merchant:
    return control.new_merchant()


@pytest.fixture
def gateway(control: EmulatorClient, merchant: Merchant) -> Iterator[httpx.Client]:
    with control.gateway(merchant) as client:
        yield client


def _webhook(gateway: httpx.Client, url: str) -> dict[str, Any]:
    """A webhook to the receiver for an event the check never triggers, so only the check's
    own messages reach it."""
    body = {"title": "App", "events": ["payout.success"], "callback": url}
    created = gateway.post("webhooks/", json=body)
    assert created.status_code == 201, created.text
    answer: dict[str, Any] = created.json()
    return answer


def _check(control: EmulatorClient, url: str, merchant: Merchant, **more: Any) -> dict[str, Any]:
    return control.call(
        "POST", "receiver-checks", json={"url": url, "merchant": merchant.company_id, **more}
    )


def _results(report: dict[str, Any]) -> dict[str, str]:
    return {c["name"]: c["result"] for c in report["checks"]}


def test_a_careless_receiver_fails_signatures_and_duplicates(
    control: EmulatorClient, merchant: Merchant, gateway: httpx.Client
) -> None:
    with receivers.serving(receivers.careless(gateway)) as url:
        hook = _webhook(gateway, url)
        report = _check(control, url, merchant)
    assert _results(report) == {
        "valid": "pass",
        "duplicate": "fail",
        "bad_signature": "fail",
        "tampered_body": "fail",
        "unknown_event": "pass",
        "out_of_order": "pass",
        "old_replay": "warn",
        "timeout": "pass",
        "reads_back": "warn",
    }
    assert report["score"] == 56
    assert report["signed_with"] == f"the key of webhook {hook['id']}"
    first = report["purchase_ids"][0]
    duplicate = next(c for c in report["checks"] if c["name"] == "duplicate")
    assert f"POST /api/v1/purchases/{first}/refund/" in duplicate["why"]
    # The purchases the checks talk about are the merchant's: the app could read them back.
    assert gateway.get(f"purchases/{first}/").status_code == 200


def test_a_strict_receiver_passes_and_is_told_to_mind_old_events(
    control: EmulatorClient, merchant: Merchant, gateway: httpx.Client
) -> None:
    public_key: dict[str, str] = {}
    with receivers.serving(
        lambda h, raw: receivers.strict(gateway, public_key["pem"])(h, raw)
    ) as url:
        public_key["pem"] = _webhook(gateway, url)["public_key"]
        report = _check(control, url, merchant)
    results = _results(report)
    assert results.pop("old_replay") == "warn"
    assert set(results.values()) == {"pass"}, report["checks"]
    assert report["score"] == 94
    reads = next(c for c in report["checks"] if c["name"] == "reads_back")
    assert reads["why"].startswith("good sign: the app read the purchase on receipt")


@pytest.mark.slow  # a real timeout of its own: two answers of 0.5 s not waited for
def test_a_slow_receiver_fails_on_the_timeout(
    control: EmulatorClient, merchant: Merchant, gateway: httpx.Client
) -> None:
    with receivers.serving(receivers.slow(1.0)) as url:
        _webhook(gateway, url)
        report = _check(control, url, merchant, timeout_seconds=0.5)
    results = _results(report)
    assert results["timeout"] == "fail" and results["valid"] == "fail"
    timeout = next(c for c in report["checks"] if c["name"] == "timeout")
    assert timeout["why"].startswith("no answer within 0.5 s to valid (no answer in 0.5 s)")
    assert "not sent: 2 answers in a row did not come" in timeout["why"]
    assert report["score"] == 6


def test_bank_callbacks_are_unsigned_and_checked_without_signatures(
    control: EmulatorClient, merchant: Merchant, gateway: httpx.Client
) -> None:
    seen: list[dict[str, str]] = []

    def handle(headers: dict[str, str], raw: bytes) -> int:
        seen.append(headers)
        return 204

    with receivers.serving(handle) as url:
        report = _check(control, url, merchant, bank=True)
    assert _results(report) == dict.fromkeys(
        ["valid", "duplicate", "unknown_event", "timeout"], "pass"
    )
    assert report["score"] == 100 and report["signed_with"] == "unsigned (bank callbacks)"
    assert all("x-signature" not in h for h in seen) and len(seen) == 3


@pytest.mark.parametrize(
    ("body", "status", "message"),
    [
        ({}, 400, "give 'url': the receiver's URL"),
        ({"url": "ftp://x"}, 400, "'url': Enter a valid URL."),
        ({"url": "https://a.example/h", "timeout_seconds": 0}, 400, "'timeout_seconds' must be"),
        ({"url": "https://a.example/h", "merchant": "nobody"}, 404, "no merchant"),
        ({"url": "https://a.example/h", "urls": 1}, 400, "'urls' is not a field"),
    ],
)
def test_bad_bodies_are_refused_in_the_control_dialect(
    server: EmulatorServer, body: dict[str, Any], status: int, message: str
) -> None:
    answer = httpx.post(f"{server.url}/_emulator/receiver-checks", json=body)
    assert answer.status_code == status
    assert answer.json()["error"]["message"].startswith(message), answer.text


def test_check_receiver_prints_the_table_and_exits_1_on_a_failure(
    server: EmulatorServer,
    control: EmulatorClient,
    merchant: Merchant,
    gateway: httpx.Client,
    capsys: pytest.CaptureFixture[str],
) -> None:
    with receivers.serving(receivers.careless(gateway)) as url:
        _webhook(gateway, url)
        code = main(["--url", server.url, "check-receiver", url, "--merchant", merchant.company_id])
    assert code == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith(f"score 56/100 for {url} (the key of webhook ")
    assert lines[1].startswith("  ok   valid          answered 200")
    assert lines[2].startswith("  FAIL duplicate      the same X-Event-Id again was re-processed")
    assert lines[7].startswith("  WARN old_replay     answered 200: an event 30 days old")


def test_check_receiver_answers_a_bad_url_in_one_line(
    server: EmulatorServer, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["--url", server.url, "check-receiver", "ftp://nowhere"]) == 2
    assert capsys.readouterr().err.strip().splitlines() == [
        "payments-emulator: 'url': Enter a valid URL."
    ]


@pytest.mark.slow
def test_check_receiver_writes_junit_one_case_per_check(
    server: EmulatorServer, tmp_path: Path
) -> None:
    junit = tmp_path / "receiver.xml"
    with receivers.serving(lambda headers, raw: 200) as url:
        done = cli(server.url, "check-receiver", url, "--junit", str(junit), "--bank")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0] == f"score 100/100 for {url} (unsigned (bank callbacks))"
    assert JUNIT_SCHEMA.validate(etree.parse(str(junit))), JUNIT_SCHEMA.error_log
    suite = ET.parse(junit).getroot().find("testsuite")
    assert suite is not None and (suite.get("tests"), suite.get("failures")) == ("4", "0")
    names = [case.get("name") for case in suite.findall("testcase")]
    assert names == ["valid", "duplicate", "unknown_event", "timeout"]


async def test_the_built_in_sink_in_process_accepts_everything(runtime, http):
    """The sink is a receiver that checks nothing: every 2xx check passes, the signature
    checks fail, and the answer is the documented shape (the in-process client checks it)."""
    url = f"http://127.0.0.1:{runtime.settings.port}/_emulator/sink/rc"
    company_id = (await http.post("/_emulator/merchants")).json()["company_id"]
    answer = await http.post(
        "/_emulator/receiver-checks", json={"url": url, "merchant": company_id}
    )
    assert answer.status_code == 200, answer.text
    report = answer.json()
    failed = [c["name"] for c in report["checks"] if c["result"] == "fail"]
    assert failed == ["bad_signature", "tampered_body"]
    assert report["signed_with"] == "the company key (GET /api/v1/public_key/)"
    sink = (await http.get("/_emulator/sink/rc")).json()
    assert len(sink["messages"]) == 8  # the timeout and reads_back checks send nothing
