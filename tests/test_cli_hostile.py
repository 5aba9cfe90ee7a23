"""The client verbs of ``payments-emulator`` given what should not fool them: names that try
to reach another endpoint, URLs that are not the emulator, servers that never answer, control
characters. Each verb runs as users run it: a subprocess talking HTTP to a live emulator."""

from __future__ import annotations

import json
import socket
import sqlite3
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import msgspec
import pytest

from emulator.cli.client import printable, timeouts
from emulator.cli.listen import DROP
from emulator.testing import EmulatorClient, EmulatorServer, Merchant, expect
from emulator.testing.records import BadPathSegment, path_segment
from tests.test_cli_client import START, as_json, cli, subscribe_everything

pytestmark = pytest.mark.slow  # each verb runs as a process of its own


@pytest.fixture(scope="module")
def control(server: EmulatorServer) -> Iterator[EmulatorClient]:
    with server.client() as client:
        yield client


@pytest.fixture(scope="module")
def made_before(control: EmulatorClient) -> Merchant:
    """A merchant made before the hostile names: a reset or restore would lose it."""
    return control.new_merchant(name="made before")


def authenticates(server: EmulatorServer, merchant: Merchant) -> bool:
    with merchant.gateway(server.url) as gateway:
        return gateway.get("clients/").status_code == 200


def one_line(result: Any) -> str:
    assert "Traceback" not in result.stderr, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    return str(lines[0])


# names that cannot be a name at all (refused by the CLI before any request: exit 2)
# (each category the issue names, once: every verb is a process of its own, so each name costs
# every verb about half a second; the client's segment rule is tested on more in-process)
NOT_NAMES = ["", ".", "..", "../reset", "a\nb", "\x1b[2J"]
# names the server's rules refuse (exit 2 too: the CLI checks them as the server does), and
# that are, as --merchant, one path segment of a company_id no merchant has (exit 1)
ODD_NAMES = ["../reset?x=", "a#b", "a%2Fb", "%2E%2E"]
NAME_VERBS = [
    ("snapshot", "save"),
    ("snapshot", "restore"),
    ("scenario", "activate"),
    ("scenario", "deactivate"),
]
MERCHANT_VERBS = [
    ("clock",),
    ("clock", "advance", "1d"),
    ("scenario", "activate", "insufficient-funds"),
    ("trigger", "purchase.created"),
    ("listen", "--count", "1"),
]


@pytest.mark.parametrize("name", NOT_NAMES + ODD_NAMES)
@pytest.mark.parametrize("verb", NAME_VERBS, ids=" ".join)
def test_a_hostile_name_is_a_usage_error_before_any_request(
    server, control, made_before, verb, name
) -> None:
    result = cli(server.url, *verb, name)
    assert result.returncode == 2, (result.stdout, result.stderr)
    line = one_line(result)
    assert line.startswith("payments-emulator: ") and "\n" not in line and "\x1b" not in line
    assert result.stdout == ""
    assert authenticates(server, made_before)
    assert control.clock().now.isoformat() == "2026-01-05T09:00:00+00:00"


@pytest.mark.parametrize("name", NOT_NAMES + ODD_NAMES)
@pytest.mark.parametrize("verb", MERCHANT_VERBS, ids=" ".join)
def test_a_hostile_merchant_reaches_no_other_endpoint(
    server, control, made_before, verb, name
) -> None:
    """``--merchant`` is one path segment: no merchant has that company_id (exit 1, the
    emulator's 404) or it cannot be one (exit 2); the server clock and the state stay (the
    clock freeze and resume verbs build their paths as advance does)."""
    result = cli(server.url, *verb, "--merchant", name, "--timeout", "20")
    usage = name in NOT_NAMES or "/" in name  # a company_id has no '/': no route could take it
    assert result.returncode == (2 if usage else 1), (result.stdout, result.stderr)
    line = one_line(result)
    assert "\n" not in line and "\x1b" not in line and "\r" not in line
    if not usage:
        assert "merchant" in line and ("not_found" in line or "no merchant" in line), line
    assert authenticates(server, made_before)
    assert control.clock().now.isoformat() == "2026-01-05T09:00:00+00:00"


@pytest.mark.parametrize("name", NOT_NAMES + ODD_NAMES)
@pytest.mark.parametrize("verb", [("merchants", "delete"), ("merchants", "clock")], ids=" ".join)
def test_a_hostile_company_id_argument_reaches_no_other_endpoint(
    server, control, made_before, verb, name
) -> None:
    """The merchants verbs that take a company_id as their argument build its path as
    ``--merchant`` does: a 404 for a segment no merchant has, a usage error for no segment."""
    result = cli(server.url, *verb, name, "--timeout", "20")
    usage = name in NOT_NAMES or "/" in name
    assert result.returncode == (2 if usage else 1), (result.stdout, result.stderr)
    line = one_line(result)
    assert "\n" not in line and "\x1b" not in line and "\r" not in line
    if not usage:
        assert "merchant_not_found" in line, line
    assert authenticates(server, made_before)
    assert control.clock().now.isoformat() == "2026-01-05T09:00:00+00:00"


def test_the_server_is_not_fooled_by_encoded_slashes_and_dots(server, control, made_before):
    """Percent-encoded ``/`` and ``.`` in a name stay in that name: no other endpoint runs."""
    with httpx.Client(base_url=f"{server.url}/_emulator/") as http:
        for method, path in [
            ("POST", "snapshots/..%2Freset"),
            ("POST", "snapshots/..%2F..%2Freset"),
            ("POST", "snapshots/%2E%2E"),
            ("POST", "snapshots/%2E%2E/restore"),
            ("POST", "snapshots/..%2Freset%3Fx%3D/restore"),
            ("POST", "scenarios/..%2F..%2Freset%3Fx%3D/activate"),
            ("POST", "merchants/..%2F..%2Freset%3F/clock/advance"),
            ("POST", "merchants/..%2F..%2Fclock/clock/advance"),
            ("POST", "sink/..%2F..%2Freset"),
        ]:
            answer = http.request(method, path, json={"seconds": 86400})
            assert answer.status_code in (400, 404), (path, answer.status_code, answer.text)
            assert answer.json()["error"]["code"], path
    assert authenticates(server, made_before)
    assert control.clock().now.isoformat() == "2026-01-05T09:00:00+00:00"


MORE_NAMES = ["a/b", "a\rb", "tab\there", "a?x=", "..%2Freset", "\x00", "a\x85b"]


@pytest.mark.parametrize("name", MORE_NAMES)
def test_more_hostile_names_in_process(server, control, made_before, name, capsys) -> None:
    """More of each category, every verb, through ``main`` in this process (the same code
    as the console script, without a process start each)."""
    from emulator.cli import main

    usage = any(ord(c) < 32 or 0x7F <= ord(c) < 0xA0 for c in name) or "/" in name
    for verb in NAME_VERBS:
        assert main(["--url", server.url, *verb, name]) == 2, (verb, name)
        assert len(capsys.readouterr().err.strip().splitlines()) == 1
    for verb in [*MERCHANT_VERBS, ("merchants", "delete"), ("merchants", "clock")]:
        where = ["--merchant", name] if verb[0] != "merchants" else [name]
        code = main(["--url", server.url, *verb, *where, "--timeout", "20"])
        assert code == (2 if usage else 1), (verb, name, capsys.readouterr())
        err = capsys.readouterr().err
        assert len(err.strip().splitlines()) == 1 and "\x1b" not in err and "\r" not in err
    assert authenticates(server, made_before)
    assert control.clock().now.isoformat() == "2026-01-05T09:00:00+00:00"


def test_the_client_makes_each_name_one_path_segment() -> None:
    assert path_segment("../reset?x=#y") == "..%2Freset%3Fx%3D%23y"
    assert path_segment("a%2Fb") == "a%252Fb"
    for bad in ("", ".", "..", "a\nb", "\x1b", "a\x7fb", "a\x85b"):
        with pytest.raises(BadPathSegment):
            path_segment(bad)
    with EmulatorClient("http://127.0.0.1:9") as client:  # nothing is sent: refused first
        for call in (
            lambda: client.snapshot(".."),
            lambda: client.restore(""),
            lambda: client.activate_scenario("a\nb"),
            lambda: client.clock(".."),
            lambda: client.settle_collection(".."),
            lambda: client.sink(".."),
            lambda: client.verify("..", expect.event("purchase.paid")),
            lambda: client.wait("a\nb", expect.event("purchase.paid")),
            lambda: client.delete_merchant(".."),
        ):
            with pytest.raises(BadPathSegment):
                call()


def test_a_name_with_odd_characters_still_works(server, control) -> None:
    """Encoding is not refusing: a sink name the server accepts with a '.' and a '-' works."""
    sink = control.sink("odd.name-1")
    assert sink.url.endswith("/_emulator/sink/odd.name-1") and sink.messages() == []


# -- errors: one line, exit codes, --json ------------------------------------------------------


class Page(BaseHTTPRequestHandler):
    """A web server that is not the emulator: HTML to everything."""

    def _page(self, status: int) -> None:
        body = b"<html>\n<body><h1>It works</h1>\n</body>\n</html>\n"
        self.send_response(status)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:
        self._page(200)

    def do_POST(self) -> None:
        self._page(404)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def web_page() -> Iterator[str]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Page)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()


@pytest.mark.parametrize("verb", [("clock",), ("reset",), ("merchants",), ("snapshot", "list")])
def test_a_url_that_answers_html_is_one_line(web_page: str, verb) -> None:
    result = cli(web_page, *verb)
    assert result.returncode == 1, (result.stdout, result.stderr)
    line = one_line(result)
    assert f"{web_page} answered " in line and "(text/html), not the emulator's JSON" in line
    as_json_too = cli(web_page, *verb, "--json")
    assert as_json_too.returncode == 1
    assert json.loads(as_json_too.stdout)["error"]["code"] == "not_the_emulator"
    one_line(as_json_too)


def test_a_server_that_never_answers_times_out_in_one_line() -> None:
    with socket.socket() as silent:  # listens, never accepts: the kernel completes connects
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)
        url = f"http://127.0.0.1:{silent.getsockname()[1]}"
        started = time.monotonic()
        result = cli(url, "clock", "--timeout", "0.5", timeout=20)
        took = time.monotonic() - started
    assert result.returncode == 1, (result.stdout, result.stderr)
    assert one_line(result) == (
        f"payments-emulator: no answer from the emulator at {url} within 0.5 s (ReadTimeout);"
        " give --timeout SECONDS to wait longer"
    )
    assert took < 10


def test_default_timeouts_are_5_seconds_to_connect_and_30_to_answer() -> None:
    assert (timeouts(None).connect, timeouts(None).read) == (5.0, 30.0)
    assert (timeouts(0.5).connect, timeouts(0.5).read) == (0.5, 0.5)
    assert (timeouts(60).connect, timeouts(60).read) == (5.0, 60)


@pytest.mark.parametrize(
    "url",
    ["http://127.0.0.1:8400\r\nX-Injected: 1", "http://127.0.0.1:8400/\n", "http://a b/"],
)
def test_a_url_with_control_characters_is_a_usage_error(url: str) -> None:
    result = cli(url, "clock")
    assert result.returncode == 2
    assert "--url / EMULATOR_URL must be an http:// or https:// URL" in one_line(result)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("clock", "advance", "1d", "--bogus"), "(see payments-emulator clock advance --help)"),
        (("snapshot", "save"), "required: name (see payments-emulator snapshot save --help)"),
        (("nope",), "invalid choice: 'nope'"),
        (("clock", "--timeout", "0"), "--timeout: '0' is not a positive number of seconds"),
        (("clock", "--timeout", "nan"), "'nan' is not a positive number of seconds"),
    ],
)
def test_argparse_usage_errors_are_one_line(server, args, message) -> None:
    result = cli(server.url, *args)
    assert result.returncode == 2
    line = one_line(result)
    assert line.startswith("payments-emulator: ") and message in line, line
    assert "usage:" not in result.stderr and result.stdout == ""


@pytest.mark.parametrize(
    ("args", "exit_code", "code"),
    [
        (("snapshot", "save", "../reset"), 2, "usage"),
        (("clock", "advance", "soon"), 2, "usage"),
        (("clock", "advance", "1d", "--bogus"), 2, "usage"),
        (("scenario", "activate", "no-such"), 1, "scenario_not_found"),
        (("trigger", "purchase.paid", "--merchant", "nobody"), 1, "refused"),
    ],
)
def test_with_json_every_error_is_one_json_object_on_stdout(server, args, exit_code, code):
    result = cli(server.url, *args, "--json")
    assert result.returncode == exit_code, result.stderr
    (document,) = result.stdout.splitlines()
    error = json.loads(document)["error"]
    assert error["code"] == code and set(error) == {"status", "code", "message"}
    assert one_line(result).endswith(printable(error["message"]))


def test_unreachable_with_json_is_a_json_error_too() -> None:
    result = cli("http://127.0.0.1:9", "clock", "--json")
    assert result.returncode == 1
    error = json.loads(result.stdout)["error"]
    assert (error["status"], error["code"]) == (None, "unreachable")
    one_line(result)


# -- control characters in what the server holds -------------------------------------------------


def test_printable_escapes_control_characters() -> None:
    assert printable("plain é text ✓") == "plain é text ✓"
    assert printable("\x1b[31mred\x1b[0m\nnext\ttab\r\x7f\x9b") == (
        "\\x1b[31mred\\x1b[0m\\nnext\\ttab\\r\\x7f\\x9b"
    )
    assert printable("evil\u202egnp.exe") == "evil\\u202egnp.exe"


def test_merchants_list_escapes_control_characters_an_old_database_holds(tmp_path: Path):
    """A name stored before the server refused control characters is shown escaped."""
    db = tmp_path / "old.sqlite3"
    with EmulatorServer(db_path=db) as first, first.client() as control:
        made = control.new_merchant(name="plain")
    hostile = "Evil\x1b]0;pwned\x07\x1b[2J\nInjected line"
    with sqlite3.connect(db) as connection:
        (data,) = connection.execute(
            "SELECT data FROM merchants WHERE id = ?", (made.company_id,)
        ).fetchone()
        record = msgspec.json.decode(data)
        record["name"] = hostile
        connection.execute(
            "UPDATE merchants SET name = ?, data = ? WHERE id = ?",
            (hostile, msgspec.json.encode(record), made.company_id),
        )
    connection.close()
    with EmulatorServer(db_path=db) as again:
        human = cli(again.url, "merchants", "list")
        scripted = cli(again.url, "merchants", "list", "--json")
    assert human.returncode == 0, human.stderr
    assert "\x1b" not in human.stdout and "\x07" not in human.stdout
    assert f"{made.company_id}  Evil\\x1b]0;pwned\\x07\\x1b[2J\\nInjected line" in human.stdout
    assert not any(line.startswith("Injected") for line in human.stdout.splitlines())
    names = {m["company_id"]: m["name"] for m in as_json(scripted)["merchants"]}
    assert names[made.company_id] == hostile  # JSON escapes by itself, and keeps the text


# -- listen forwards every header; trigger says what was delivered -------------------------------


class Receiver(BaseHTTPRequestHandler):
    """A receiver on the tester's machine: keeps the headers of each POST."""

    received: list[dict[str, str]] = []

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length", "0")))
        Receiver.received.append({k.lower(): v for k, v in self.headers.items()})
        self.send_response(204)
        self.end_headers()

    def log_message(self, *args: Any) -> None:
        pass


def test_listen_forwards_every_header_the_delivery_carried(server, control) -> None:
    merchant = control.new_merchant(clock="frozen", now=START)
    hooks = control.sink(prefix="hooks")
    subscribe_everything(control, merchant, hooks.url)
    made = as_json(
        cli(server.url, "trigger", "purchase.created", "--merchant", merchant.company_id, "--json")
    )
    assert made["delivered"] is True
    (attempt,) = control.deliveries(merchant)
    (sent,) = hooks.wait_for(1)
    # the message's own headers, and the ones its client wrote on the wire (all of them shown)
    assert {k.lower() for k in attempt.headers} >= {
        "content-type",
        "x-signature",
        "x-event-id",
        "x-emulator-time",
        "host",
        "content-length",
        "user-agent",
    }
    for name, value in attempt.headers.items():  # what the log shows is what was sent
        if name.lower() != "accept-encoding":  # in process, the sink's client says its own
            assert sent.headers[name.lower()] == value, name
    Receiver.received = []
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Receiver)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        receiver = f"http://127.0.0.1:{httpd.server_address[1]}/hooks"
        args = ("--merchant", merchant.company_id, "--after", "0", "--count", "1")
        result = cli(server.url, "listen", *args, "--forward-to", receiver)
    finally:
        httpd.shutdown()
        httpd.server_close()
    assert result.returncode == 0, result.stderr
    assert f"forwarded -> {receiver} [204]" in result.stdout
    (forwarded,) = Receiver.received
    for name, value in attempt.headers.items():  # all but the hop-by-hop ones listen drops
        if name.lower() not in DROP:
            assert forwarded[name.lower()] == value, name
    assert forwarded["x-emulator-time"] == "2026-01-05T09:00:00Z"


def test_trigger_says_when_nothing_is_registered(server, control) -> None:
    merchant = control.new_merchant(clock="frozen", now=START)
    m = ("--merchant", merchant.company_id)
    human = cli(server.url, "trigger", "purchase.created", *m)
    assert human.returncode == 0, human.stderr
    assert "purchase.created was not delivered: nothing is registered to receive it" in human.stdout
    assert f'POST {server.url}/api/v1/webhooks/ with "events": ["purchase.created"]' in (
        human.stdout
    )
    assert "payments-emulator listen --forward-to URL" in human.stdout
    bank = as_json(cli(server.url, "trigger", "collection.completed", *m, "--json"))
    assert (bank["delivered"], bank["deliveries"]) == (False, [])
    assert '"callbackType": "EFT_COLLECTION"' in bank["how_to_register"]


def test_trigger_prints_the_deliveries_it_caused(server, control) -> None:
    merchant = control.new_merchant(clock="frozen", now=START)
    sink = control.sink(prefix="caused")
    subscribe_everything(control, merchant, sink.url)
    human = cli(server.url, "trigger", "purchase.paid", "--merchant", merchant.company_id)
    assert human.returncode == 0, human.stderr
    assert f"  delivered purchase.created -> {sink.url} [200]" in human.stdout
    assert f"  delivered purchase.paid -> {sink.url} [200]" in human.stdout
    assert "not delivered" not in human.stdout
    made = as_json(
        cli(server.url, "trigger", "purchase.paid", "--merchant", merchant.company_id, "--json")
    )
    assert [(d["event_type"], d["url"], d["status"]) for d in made["deliveries"]] == [
        ("purchase.created", sink.url, 200),
        ("purchase.paid", sink.url, 200),
    ]


def test_trigger_collection_unpaid_with_a_reason_code(server, control) -> None:
    merchant = control.new_merchant(clock="frozen", now=START)
    m = ("--merchant", merchant.company_id)
    made = as_json(
        cli(server.url, "trigger", "collection.unpaid", *m, "--reason-code", "04", "--json")
    )
    (collection,) = [o["object"] for o in made["objects"] if o["type"] == "collection"]
    assert (collection["status"], collection["reasonCode"]) == ("UNPAID", "04")
    assert control.clock(merchant).now.isoformat() == "2026-01-05T09:00:00+00:00"  # at once
    unknown = cli(server.url, "trigger", "collection.unpaid", *m, "--reason-code", "99")
    assert unknown.returncode == 2
    assert "--reason-code: reasonCode '99' is not one of the schedule: 02" in one_line(unknown)
    other = cli(server.url, "trigger", "purchase.paid", *m, "--reason-code", "04")
    assert other.returncode == 2
    assert "--reason-code goes with collection.unpaid, not purchase.paid" in one_line(other)
