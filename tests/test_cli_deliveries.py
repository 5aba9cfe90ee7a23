"""``payments-emulator deliveries ...`` against a live emulator: one verb as a process of its
own (as users run it), the others through ``main`` in this process (the same code, faster)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from emulator.cli import main
from emulator.testing import EmulatorClient, Merchant
from tests.live_helpers import executed_payout
from tests.test_cli_client import cli

CARD = "4444333322221111"


def hooked(control: EmulatorClient) -> tuple[Merchant, dict[str, Any], str]:
    """A merchant with a webhook on payout.success to a sink of its own, and one payout
    delivered to it."""
    merchant = control.new_merchant()
    sink = control.sink()
    with control.gateway(merchant) as gateway:
        made = gateway.post(
            "webhooks/",
            json={"title": "cli", "all_events": False, "events": ["payout.success"],
                  "callback": sink.url},
        )  # fmt: skip
    assert made.status_code == 201, made.text
    payout = executed_payout(control, merchant, CARD)
    sink.wait_for(1)
    return merchant, made.json(), str(payout["id"])


def run(server: Any, capsys: pytest.CaptureFixture[str], *words: str) -> tuple[int, str, str]:
    code = main([*words, "--url", server.url])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.slow  # a process of its own
def test_deliveries_replay_runs_as_a_process(server, control) -> None:
    merchant, _, payout_id = hooked(control)
    done = cli(server.url, "deliveries", "replay", "--merchant", merchant.company_id,
               "--event-type", "payout.success", "--outcome", "ok")  # fmt: skip
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[-1] == "1 message(s) sent again"
    assert lines[0].startswith(f"replayed payout.success {payout_id} -> ")


def test_deliveries_list_and_recover_in_process(server, control, capsys) -> None:
    merchant, _, payout_id = hooked(control)
    code, out, _ = run(server, capsys, "deliveries", "list", "--merchant", merchant.company_id,
                       "--outcome", "ok")  # fmt: skip
    assert code == 0 and f" webhook payout.success {payout_id} -> " in out
    assert out.rstrip().endswith(": 200 (attempt 1)")
    code, out, _ = run(server, capsys, "deliveries", "list", "--merchant", merchant.company_id,
                       "--outcome", "exhausted")  # fmt: skip
    assert (code, out) == (0, "no deliveries\n")
    code, out, _ = run(server, capsys, "deliveries", "recover", "--merchant",
                       merchant.company_id, "--since", "2026-01-01")  # fmt: skip
    assert (code, out) == (0, "0 message(s) sent again\n")  # nothing failed
    code, _, err = run(server, capsys, "deliveries", "recover", "--merchant", merchant.company_id)
    assert code == 2 and "--since" in err
    code, _, err = run(server, capsys, "deliveries", "replay", "--since", "yesterday")
    assert code == 2 and err.count("\n") == 1 and "--since" in err


def test_endpoint_off_and_on_and_auto_disable_in_process(server, control, capsys) -> None:
    merchant, hook, _ = hooked(control)
    code, out, _ = run(server, capsys, "deliveries", "endpoint", "off", hook["id"], "--json")
    assert code == 0 and json.loads(out)["enabled"] is False
    executed_payout(control, merchant, CARD)
    code, out, _ = run(server, capsys, "deliveries", "endpoints", "--merchant",
                       merchant.company_id)  # fmt: skip
    assert code == 0 and out.splitlines() == [
        f"webhook {hook['id']}: off since {out.split(' since ')[1].splitlines()[0]}",
        "1 endpoint(s) switched; 1 message(s) held",
    ]
    code, out, _ = run(server, capsys, "deliveries", "endpoint", "on", hook["id"])
    assert code == 0 and out.endswith(": 1 held message(s) sent\n")
    code, out, _ = run(server, capsys, "deliveries", "auto-disable", merchant.company_id, "3")
    assert out == f"merchant {merchant.company_id}: endpoints auto-disabled after 3 day(s)" \
        " of only failures\n"  # fmt: skip
    code, _, err = run(server, capsys, "deliveries", "auto-disable", merchant.company_id, "0")
    assert code == 1 and err.count("\n") == 1 and "auto_disable_after_days" in err
    code, _, err = run(server, capsys, "deliveries", "endpoint", "off", "no-such-hook")
    assert code == 1 and err.count("\n") == 1 and "404 not_found" in err
    code, out, _ = run(server, capsys, "deliveries", "endpoints", "--json")
    assert code == 0 and {"endpoints", "kept", "events"} <= set(json.loads(out))
