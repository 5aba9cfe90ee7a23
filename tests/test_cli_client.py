"""The verbs of ``payments-emulator`` for a running emulator, run as users run them: a
subprocess talking HTTP to a live emulator on loopback."""

from __future__ import annotations

import json
import os
import pty
import select
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from emulator.cli.client import UsageError
from emulator.cli.durations import parse_duration
from emulator.cli.trigger import EVENTS
from emulator.testing import EmulatorClient, EmulatorServer, Merchant, unique_name
from tests.conftest import LIVE_START

pytestmark = pytest.mark.slow  # each verb runs as a process of its own (its imports alone ~0.6 s)

START = LIVE_START  # the shared live server's (tests/conftest.py)
DEFAULT_COMPANY = "9f1c3a52-7d4e-4b8a-9c61-2e5f0a7b3d10"


def cli(
    url: str, *args: str, env: dict[str, str] | None = None, timeout: float = 60
) -> subprocess.CompletedProcess[str]:
    """``python -m emulator ARGS`` against ``url`` (EMULATOR_URL); its output and exit code."""
    environment = {k: v for k, v in os.environ.items() if not k.startswith("EMULATOR_")}
    environment.update({"EMULATOR_URL": url, **(env or {})})
    return subprocess.run(
        [sys.executable, "-m", "emulator", *args],
        capture_output=True,
        text=True,
        env=environment,
        timeout=timeout,
    )


def as_json(result: subprocess.CompletedProcess[str]) -> Any:
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def own_merchant(control: EmulatorClient) -> Merchant:
    return control.new_merchant(clock="frozen", now=START)


@pytest.mark.parametrize(
    ("text", "body"),
    [
        ("3d", {"days": 3}),
        ("90m", {"minutes": 90}),
        ("2h30m", {"hours": 2, "minutes": 30}),
        ("1d2h3m4s", {"days": 1, "hours": 2, "minutes": 3, "seconds": 4}),
        ("45s", {"seconds": 45}),
        ("10", {"seconds": 10}),
        ("1.5s", {"seconds": 1.5}),
    ],
)
def test_durations_map_to_the_advance_body(text: str, body: dict[str, float]) -> None:
    assert parse_duration(text) == body


@pytest.mark.parametrize("text", ["", "3x", "d", "3m2h", "-1d", "1 d"])
def test_bad_durations_are_usage_errors(text: str) -> None:
    with pytest.raises(UsageError, match="duration"):
        parse_duration(text)


def test_clock_show_advance_freeze_resume_of_a_merchant(server, control) -> None:
    merchant = own_merchant(control)
    m = ("--merchant", merchant.company_id)
    shown = cli(server.url, "clock", *m)
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.strip() == f"{START} frozen (merchant {merchant.company_id}, its own clock)"
    advanced = as_json(cli(server.url, "clock", "advance", "2h30m", *m, "--json"))
    assert (advanced["now"], advanced["mode"], advanced["jobs_run"]) == (
        "2026-01-05T11:30:00Z",
        "frozen",
        0,
    )
    days = cli(server.url, "clock", "advance", "3d", *m)
    assert days.stdout.startswith("2026-01-08T11:30:00Z frozen"), days.stdout
    assert "0 job(s) run" in days.stdout
    to = as_json(cli(server.url, "clock", "--json", *m, "advance", "--to", "2026-02-01T00:00:00Z"))
    assert to["now"] == "2026-02-01T00:00:00Z"
    frozen = as_json(
        cli(server.url, "clock", "freeze", "--at", "2026-03-01T10:00:00Z", *m, "--json")
    )
    assert (frozen["now"], frozen["mode"]) == ("2026-03-01T10:00:00Z", "frozen")
    resumed = as_json(cli(server.url, "clock", "resume", *m, "--json"))
    assert resumed["mode"] == "real"
    assert control.clock(merchant).mode == "real"
    assert control.clock().now.isoformat().startswith("2026-01-05T09:00:00")  # server untouched


def test_clock_advance_next_runs_the_next_job(server, control) -> None:
    merchant = own_merchant(control)
    with control.gateway(merchant) as gateway:
        body = {"client": {"email": "a@example.com"}, "brand_id": merchant.brand_id}
        body["purchase"] = {"products": [{"name": "A", "price": 100}]}
        assert gateway.post("purchases/", json=body).status_code == 201
    m = ("--merchant", merchant.company_id)
    ran = cli(server.url, "clock", "advance", "--next", *m)
    assert ran.returncode == 0, ran.stderr
    assert "1 job(s) run" in ran.stdout and "ran purchase.expiry" in ran.stdout
    nothing = cli(server.url, "clock", "advance", "--next", *m)  # due, not expired: one more?
    while nothing.returncode == 0:
        nothing = cli(server.url, "clock", "advance", "--next", *m)
    assert nothing.returncode == 1
    assert nothing.stderr.strip() == (
        "payments-emulator: refused (409 nothing_scheduled): no job is scheduled on this clock"
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("clock", "advance", "3x"), "duration '3x'"),
        (("clock", "advance"), "give one of DURATION, --to ISO or --next"),
        (("clock", "advance", "1d", "--next"), "give one of DURATION, --to ISO or --next"),
        (("clock", "advance", "--to", "soon"), "--to: 'soon' is not an ISO-8601 instant"),
        (("clock", "freeze", "--at", "9999-01-01T00:00:00Z"), "--at: '9999-01-01T00:00:00Z'"),
        (("clock", "--url", "localhost:8400"), "--url / EMULATOR_URL must be an http://"),
        (("trigger",), "name an EVENT"),
        (("trigger", "purchase.nope"), "unknown event 'purchase.nope'"),
        (("listen", "--forward-to", "ftp://x"), "--forward-to must be an http://"),
        (("listen", "--forward-to", "http://x/\r\nX: y"), "--forward-to must be an http://"),
        (("scenario", "load", "/nonexistent/file.yaml"), "cannot read /nonexistent/file.yaml"),
    ],
)
def test_usage_errors_exit_2_with_one_line(server, args, message) -> None:
    result = cli(server.url, *args)
    assert result.returncode == 2, (result.stdout, result.stderr)
    assert message in result.stderr
    assert "Traceback" not in result.stderr and len(result.stderr.strip().splitlines()) == 1


def test_argparse_usage_errors_exit_2(server) -> None:
    result = cli(server.url, "clock", "advance", "1d", "--bogus")
    assert result.returncode == 2 and "unrecognized arguments: --bogus" in result.stderr


def test_refusals_exit_1_with_the_emulators_message(server, control) -> None:
    follower = control.new_merchant()  # follows the server clock
    refused = cli(server.url, "clock", "advance", "1d", "--merchant", follower.company_id)
    assert refused.returncode == 1
    assert "refused (409 clock_not_own)" in refused.stderr and "Traceback" not in refused.stderr
    as_json_error = cli(server.url, "scenario", "activate", "no-such", "--json")
    assert as_json_error.returncode == 1
    assert json.loads(as_json_error.stdout)["error"]["code"] == "scenario_not_found"
    unknown = cli(server.url, "trigger", "purchase.paid", "--merchant", "nobody")
    assert unknown.returncode == 1
    assert (
        unknown.stderr.strip()
        == f"payments-emulator: --merchant: no merchant nobody on {server.url}"
    )


def test_an_emulator_that_is_not_there_is_one_line_and_exit_1(server) -> None:
    result = cli("http://127.0.0.1:9", "clock")
    assert result.returncode == 1
    (line,) = result.stderr.strip().splitlines()
    assert line.startswith("payments-emulator: cannot reach the emulator at http://127.0.0.1:9 (")


def test_merchants_create_and_list(server, control) -> None:
    made = as_json(cli(server.url, "merchants", "create", "--name", "Shop", "--json"))
    assert made["name"] == "Shop" and made["clock"]["own"] is False
    own = cli(server.url, "merchants", "create", "--clock", "frozen", "--now", "2027-01-01")
    assert own.returncode == 0, own.stderr
    assert "2027-01-01T00:00:00Z frozen (own clock)" in own.stdout
    assert "api_key        sk_test_" in own.stdout
    listed = as_json(cli(server.url, "merchants", "list", "--json"))["merchants"]
    assert made["company_id"] in {m["company_id"] for m in listed}
    human = cli(server.url, "merchants")
    assert made["company_id"] in human.stdout and DEFAULT_COMPANY in human.stdout


def test_scenario_load_activate_deactivate(server, control, tmp_path: Path) -> None:
    merchant = own_merchant(control)
    m = ("--merchant", merchant.company_id)
    name = unique_name("failing-3ds")
    source = tmp_path / "s.yaml"
    source.write_text(
        f"name: {name}\ndescription: every payment fails 3-D Secure\nrules:\n"
        "  - when: purchase.payment\n    then: {result: 3ds_failed}\n"
    )
    loaded = cli(server.url, "scenario", "load", str(source))
    assert loaded.stdout.strip() == f"loaded scenario {name} from {source}", loaded.stderr
    on = cli(server.url, "scenario", "activate", name, *m)
    assert on.stdout.strip() == f"activated scenario {name} for merchant {merchant.company_id}"
    (listed,) = [s for s in control.scenarios() if s["name"] == name]
    assert [a["merchant"] for a in listed["active"]] == [merchant.company_id]
    refused = cli(server.url, "trigger", "purchase.paid", *m)  # the scenario fails the payment
    assert refused.returncode == 1
    assert "trigger purchase.paid: the purchase is 'error', not 'paid'" in refused.stderr
    off = cli(server.url, "scenario", "deactivate", name, *m, "--json")
    assert off.returncode == 0, off.stderr
    assert cli(server.url, "trigger", "purchase.paid", *m).returncode == 0
    again = cli(server.url, "scenario", "deactivate", name, *m)
    assert again.returncode == 1 and "not_active" in again.stderr


def subscribe_everything(control: EmulatorClient, merchant: Merchant, sink: str) -> None:
    """Webhooks for every gateway event and callbacks of every bank type, to the sink."""
    with control.gateway(merchant) as gateway:
        body = {"title": "all", "callback": sink, "all_events": True}
        assert gateway.post("webhooks/", json=body).status_code == 201
    with control.bank(merchant) as bank:
        for kind in ("EFT_COLLECTION", "DEBICHECK_MANDATE", "EFT_PAYMENT"):
            body = {
                "clientId": merchant.profiles[0].created_by_client,
                "url": sink,
                "callbackType": kind,
                "callbackVersion": "V1",
            }
            assert bank.post("clientcallbackurl/", json=body).status_code == 200


@pytest.mark.parametrize("event", [*EVENTS, "purchase.refunded"])
def test_trigger_drives_the_event_until_it_is_emitted(server, control, event) -> None:
    merchant = own_merchant(control)
    subscribe_everything(control, merchant, control.sink(prefix="trigger").url)
    made = as_json(cli(server.url, "trigger", event, "--merchant", merchant.company_id, "--json"))
    emitted = "payment.refunded" if event == "purchase.refunded" else event
    assert (made["event"], made["merchant"]) == (emitted, merchant.company_id)
    assert made["objects"], made
    assert made["delivered"] is True, made
    assert emitted in {d["event_type"] for d in made["deliveries"]}
    delivery = control.wait_for_delivery(emitted, merchant)
    ids = {o["object"].get("id") for o in made["objects"]}
    assert str(delivery.json().get("id") or delivery.object_id) in {str(i) for i in ids} | {
        delivery.object_id
    }
    assert delivery.object_id in {str(i) for i in ids} or emitted.startswith("billing")


def test_trigger_on_the_default_merchant_and_its_list(server, control) -> None:
    listed = as_json(cli(server.url, "trigger", "--list", "--json"))["events"]
    assert [row["event"] for row in listed] == list(EVENTS)
    human = cli(server.url, "trigger", "--list")
    assert "collection.unpaid" in human.stdout and "purchase.refunded" in human.stdout
    made = cli(server.url, "trigger", "purchase.hold")
    assert made.returncode == 0, made.stderr
    first, second = made.stdout.splitlines()[:2]
    assert first == f"purchase.hold emitted for merchant {DEFAULT_COMPANY}"
    assert second.split()[0] == "purchase" and second.split()[-1] == "hold"


def test_trigger_advances_a_merchant_clock_only_as_far_as_the_event(server, control) -> None:
    merchant = own_merchant(control)
    made = cli(server.url, "trigger", "payout.failed", "--merchant", merchant.company_id)
    assert made.returncode == 0, made.stderr
    assert "advanced the merchant's own clock to 2026-01-10T09:00:00Z" in made.stdout
    assert control.clock(merchant).now.isoformat() == "2026-01-10T09:00:00+00:00"
    assert control.clock().now.isoformat() == "2026-01-05T09:00:00+00:00"


def _ticks(count: int, seconds: float) -> Iterator[None]:
    """``count`` ticks ``seconds`` apart: a bounded wait on a condition."""
    for _ in range(count):
        yield
        threading.Event().wait(seconds)


def test_listen_prints_and_forwards_each_delivery(server, control) -> None:
    merchant = own_merchant(control)
    hooks, forwarded = control.sink(prefix="hooks"), control.sink(prefix="forwarded")
    subscribe_everything(control, merchant, hooks.url)
    environment = {k: v for k, v in os.environ.items() if not k.startswith("EMULATOR_")}
    args = ["listen", "--merchant", merchant.company_id, "--count", "2"]
    listener = subprocess.Popen(
        [sys.executable, "-m", "emulator", *args, "--forward-to", forwarded.url],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**environment, "EMULATOR_URL": server.url},
    )
    try:
        assert listener.stdout is not None
        assert listener.stdout.readline().startswith("listening to deliveries of merchant")
        # it listens with the delivery log's wait, held open on the server (a poll is not)
        assert any(control.call("GET", "waits")["open"] for _ in _ticks(1000, 0.01))
        made = as_json(
            cli(server.url, "trigger", "purchase.paid", "--merchant", merchant.company_id, "--json")
        )
        out, err = listener.communicate(timeout=30)
    finally:
        listener.kill()
    assert listener.returncode == 0, err
    purchase_id = made["objects"][0]["object"]["id"]
    lines = out.strip().splitlines()
    assert [line.split()[2:5] for line in lines] == [
        ["purchase.created", "purchase", purchase_id],
        ["purchase.paid", "purchase", purchase_id],
    ]
    assert all(
        f"-> {hooks.url} [200]; forwarded -> {forwarded.url} [200]" in line for line in lines
    )
    sent, copies = hooks.wait_for(2), forwarded.wait_for(2)
    for original, copy in zip(sent, copies, strict=True):
        assert copy.body == original.body
        assert copy.headers["x-signature"] == original.headers["x-signature"]
        assert copy.headers["x-event-id"] == original.headers["x-event-id"]
        assert copy.headers["x-emulator-time"] == original.headers["x-emulator-time"]


def test_listen_json_from_the_start(server, control) -> None:
    merchant = own_merchant(control)
    subscribe_everything(control, merchant, control.sink(prefix="j").url)
    assert (
        cli(
            server.url, "trigger", "mandate.authenticated", "--merchant", merchant.company_id
        ).returncode
        == 0
    )
    control.wait_for_delivery("mandate.authenticated", merchant)
    result = cli(
        server.url,
        "listen",
        "--merchant",
        merchant.company_id,
        "--after",
        "0",
        "--count",
        "2",
        "--json",
    )
    assert result.returncode == 0, result.stderr
    records = [json.loads(line) for line in result.stdout.splitlines()]
    assert [r["event_type"] for r in records] == [
        "mandate.pending_authentication",
        "mandate.authenticated",
    ]
    assert all(r["kind"] == "callback" and r["status"] == 200 for r in records)


def on_a_terminal(url: str, *args: str) -> str:
    """The verb's output when its stdout is a terminal (a pseudo-terminal here)."""
    primary, secondary = pty.openpty()
    environment = {k: v for k, v in os.environ.items() if not k.startswith("EMULATOR_")}
    process = subprocess.Popen(
        [sys.executable, "-m", "emulator", *args],
        stdout=secondary,
        stderr=subprocess.PIPE,
        env={**environment, "EMULATOR_URL": url},
    )
    os.close(secondary)
    output = b""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        ready, _, _ = select.select([primary], [], [], 0.1)
        if ready:
            try:
                chunk = os.read(primary, 4096)
            except OSError:  # the other side closed
                break
            if not chunk:
                break
            output += chunk
        elif process.poll() is not None:
            break
    os.close(primary)
    _, err = process.communicate(timeout=10)
    assert process.returncode == 0, err
    return output.decode()


def test_a_long_advance_shows_progress_on_a_terminal_only(server, control) -> None:
    merchant = own_merchant(control)
    m = ("--merchant", merchant.company_id)
    shown = on_a_terminal(server.url, "clock", "advance", "10d", *m)
    assert "advancing: 0 job(s) run, at 2026-01-05T21:00:00Z (1/20)" in shown
    assert "(20/20)" in shown and shown.rstrip().endswith("0 job(s) run")
    assert control.clock(merchant).now.isoformat() == "2026-01-15T09:00:00+00:00"
    plain = cli(server.url, "clock", "advance", "10d", *m)
    assert "advancing" not in plain.stdout and plain.stdout.count("\n") == 1
    short = on_a_terminal(server.url, "clock", "advance", "30m", *m)
    assert "advancing" not in short


def test_reset_and_snapshots() -> None:
    with EmulatorServer(clock="frozen", start=START) as fresh, fresh.client() as control:
        made = control.new_merchant()
        assert (
            cli(fresh.url, "snapshot", "save", "before").stdout.strip() == "saved snapshot before"
        )
        assert cli(fresh.url, "snapshot", "list").stdout.split() == ["before"]
        reset = cli(fresh.url, "reset")
        assert reset.stdout.strip() == f"reset; clock {START} frozen", reset.stderr
        assert made.company_id not in {
            m["company_id"] for m in control.call("GET", "merchants")["merchants"]
        }
        restored = cli(fresh.url, "snapshot", "restore", "before")
        assert restored.stdout.strip() == f"restored snapshot before; clock {START}", (
            restored.stderr
        )
        assert made.company_id in {
            m["company_id"] for m in control.call("GET", "merchants")["merchants"]
        }
        missing = cli(fresh.url, "snapshot", "restore", "never-saved")
        assert missing.returncode == 1 and "refused (404" in missing.stderr


def test_the_admin_token_from_the_flag_or_the_environment() -> None:
    with EmulatorServer(admin_token="s3cret") as guarded:
        refused = cli(guarded.url, "clock")
        assert refused.returncode == 1 and "401 admin_token_required" in refused.stderr
        assert cli(guarded.url, "clock", "--admin-token", "s3cret").returncode == 0
        assert cli(guarded.url, "clock", env={"EMULATOR_ADMIN_TOKEN": "s3cret"}).returncode == 0


def test_a_bad_scenario_file_is_the_emulators_refusal(server, tmp_path: Path) -> None:
    source = tmp_path / "bad.yaml"
    source.write_text("name: bad\nrules:\n  - when: no.such.point\n    then: {}\n")
    result = cli(server.url, "scenario", "load", str(source))
    assert result.returncode == 1
    assert "refused (400 invalid_scenario)" in result.stderr and "Traceback" not in result.stderr


OLD_SHAPE = (
    Path(__file__).parent / "scenarios" / "old_shapes" / "design-unpaid-large-debit-orders.yaml"
)


def test_a_scenario_file_of_an_older_form_loads_with_notes(server, control) -> None:
    """An older form still loads everywhere a file is read; each place says what is
    preferred now (validate and load print notes; the Python client warns)."""
    checked = subprocess.run(
        [sys.executable, "-m", "emulator", "scenario", "validate", str(OLD_SHAPE)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert checked.returncode == 0, checked.stderr
    assert f"{OLD_SHAPE}: note: " in checked.stdout and "reasonCode" in checked.stdout
    loaded = cli(server.url, "scenario", "load", str(OLD_SHAPE))
    assert loaded.returncode == 0, loaded.stderr
    assert "note: " in loaded.stdout and "reasonCode" in loaded.stdout
    answer = as_json(cli(server.url, "scenario", "load", str(OLD_SHAPE), "--json"))
    assert answer["name"] == "unpaid-large-debit-orders-old" and answer["notes"]
    with pytest.warns(UserWarning, match="reasonCode"):
        assert control.load_scenario(OLD_SHAPE.read_text()) == "unpaid-large-debit-orders-old"


def test_a_merchant_made_strict_refuses_keys_the_platform_ignores(server, control) -> None:
    """``merchants create --strict-requests`` and ``new_merchant(strict_requests=True)``: a
    misspelt key is a 400 naming it; a merchant made without stays lenient (a warning)."""
    made = as_json(cli(server.url, "merchants", "create", "--strict-requests", "--json"))
    assert made["strict_requests"] is True
    strict = control.new_merchant(strict_requests=True)
    lenient = control.new_merchant()
    body = {"email": "a@example.com", "full_nmae": "Typo"}
    for merchant in (Merchant(**{k: made[k] for k in MERCHANT_KEYS}), strict):
        with merchant.gateway(server.url) as gateway:
            refused = gateway.post("clients/", json=body)
        assert refused.status_code == 400 and "full_nmae" in refused.text, refused.text
    with lenient.gateway(server.url) as gateway:
        answered = gateway.post("clients/", json=body)
    assert answered.status_code == 201, answered.text
    assert "full_nmae" in answered.headers["X-Emulator-Warnings"]


MERCHANT_KEYS = ("company_id", "name", "brand_id", "api_key", "production_api_key")
MERCHANT_KEYS += ("client_id", "client_secret")
