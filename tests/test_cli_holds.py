"""``payments-emulator holds ...`` against a live emulator: ``create`` as a process of its own
(as users run it), the other verbs through ``main`` in this process (the same code)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from emulator.cli import main
from emulator.testing import EmulatorClient, EmulatorServer, Merchant
from tests.live_helpers import executed_payout
from tests.test_cli_client import as_json, cli

MATCH = '{"event_type": "payout.success"}'


def run(server: EmulatorServer, capsys: pytest.CaptureFixture[str], *argv: str) -> Any:
    code = main(["--url", server.url, *argv, "--json"])
    out = capsys.readouterr().out
    assert code == 0, out
    return json.loads(out)


def held(control: EmulatorClient, name: str) -> tuple[Merchant, Any]:
    merchant = control.new_merchant()
    sink = control.sink(name)
    with control.gateway(merchant) as gateway:
        body = {"title": "all", "callback": sink.url, "all_events": True}
        assert gateway.post("webhooks/", json=body).status_code == 201
    return merchant, sink


def payout_success(sink: Any) -> list[Any]:
    return [m for m in sink.messages() if m.json["event_type"] == "payout.success"]


@pytest.mark.slow
def test_holds_create_runs_as_a_process(server, control) -> None:
    merchant, _ = held(control, "cli-holds-process")
    done = cli(server.url, "holds", "create", "delivery", "--merchant", merchant.company_id)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("hold_") and " delivery armed (1 of 1 left)" in done.stdout
    made = as_json(
        cli(server.url, "holds", "create", "delivery", "--match", MATCH, "--json",
            "--merchant", merchant.company_id, "--hold-timeout", "60", "--on-timeout", "drop")
    )  # fmt: skip
    assert (made["match"], made["timeout_seconds"]) == ({"event_type": "payout.success"}, 60)
    bad = cli(server.url, "holds", "create", "nothing", "--merchant", merchant.company_id)
    assert bad.returncode == 1 and bad.stderr.count("\n") == 1 and "kind" in bad.stderr


def test_list_show_and_release_edited(server, control, capsys) -> None:
    merchant, sink = held(control, "cli-holds-release")
    company = ["--merchant", merchant.company_id]
    made = run(server, capsys, "holds", "create", "delivery", "--match", MATCH, *company)
    executed_payout(control, merchant, "4444333322221111")
    [listed] = run(server, capsys, "holds", "list", *company)["holds"]
    assert listed["id"] == made["id"] and listed["state"] == "holding"
    shown = run(server, capsys, "holds", "show", made["id"], *company)
    assert shown["items"][0]["message"]["event_type"] == "payout.success"
    assert payout_success(sink) == []
    edited = '{"event_type": "payout.success", "id": "edited"}'
    answer = run(
        server, capsys, "holds", "release", made["id"], "--body", edited, "--header", "X-A: b",
        *company,
    )  # fmt: skip
    assert answer["items"][0]["done"]["resigned"] is True
    [message] = payout_success(sink)
    assert message.json == {"event_type": "payout.success", "id": "edited"}
    assert message.headers["x-a"] == "b"


def test_duplicate_drop_and_usage_errors(server, control, capsys) -> None:
    merchant, sink = held(control, "cli-holds-duplicate")
    company = ["--merchant", merchant.company_id]
    made = run(server, capsys, "holds", "create", "delivery", "--match", MATCH, "--count", "2",
               *company)  # fmt: skip
    executed_payout(control, merchant, "4444333322221111")
    run(server, capsys, "holds", "duplicate", made["id"], "--times", "3", *company)
    assert len(payout_success(sink)) == 3
    executed_payout(control, merchant, "4444333322221111")
    dropped = run(server, capsys, "holds", "drop", made["id"], *company)
    assert [item["state"] for item in dropped["items"]] == ["duplicated", "dropped"]
    assert len(payout_success(sink)) == 3
    assert main(["--url", server.url, "holds", "release", made["id"], *company]) == 1
    assert "409 nothing_held" in capsys.readouterr().err
    for argv in (["--header", "no-colon"], ["--body", "{not json"]):
        assert main(["--url", server.url, "holds", "release", made["id"], *argv, *company]) == 2
        assert capsys.readouterr().err.count("\n") == 1


def test_clock_advance_says_which_hold_stopped_it(server, control, capsys) -> None:
    merchant, _ = held(control, "cli-holds-advance")
    control.call("PUT", f"merchants/{merchant.company_id}/clock", json={"mode": "frozen"})
    company = ["--merchant", merchant.company_id]
    match = '{"event_type": "payout.failed"}'
    made = run(server, capsys, "holds", "create", "delivery", "--match", match, *company)
    executed_payout(control, merchant, "4000000000009995")  # fails at its settlement, 5 days on
    assert main(["--url", server.url, "clock", "advance", "30d", *company]) == 0
    out = capsys.readouterr().out
    assert f"by hold {made['id']}" in out.splitlines()[-1]
