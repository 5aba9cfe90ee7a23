"""``payments-emulator serve`` as users run it: a real process on a real port and file."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest

from emulator.cli.commands import _parser
from emulator.cli.serve_options import settings_from

pytestmark = pytest.mark.slow  # each test starts `payments-emulator serve` in a process of its own

DEFAULT = {"Authorization": "Bearer sk_test_emulator_default_key"}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@contextmanager
def serving(*args: str, env: dict[str, str] | None = None) -> Iterator[tuple[str, list[str]]]:
    """Run ``python -m emulator serve`` until the block ends; the list gets its output."""
    port = free_port()
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "emulator",
            "serve",
            "--port",
            str(port),
            "--log-level",
            "warning",
            *args,
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env={**os.environ, **(env or {})},
        start_new_session=True,
    )
    url = f"http://127.0.0.1:{port}"
    output: list[str] = []
    try:
        deadline = time.monotonic() + 10
        while True:
            try:
                # 401: up, with an admin token (the tests that give one check it themselves)
                health = httpx.get(f"{url}/_emulator/health", timeout=1)
                if health.status_code in (200, 401):
                    break
            except httpx.TransportError:
                pass
            if process.poll() is not None or time.monotonic() > deadline:
                output = process.stdout.read() if process.stdout else ""
                raise AssertionError(f"the emulator did not start:\n{output}")
            time.sleep(0.02)
        yield url, output
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            raise AssertionError("the emulator did not stop within 10 s of SIGTERM") from None
        finally:
            if process.stdout:
                output.append(process.stdout.read())
                process.stdout.close()


def test_serve_prints_addresses_and_default_credentials(tmp_path: Path):
    """The banner shows every address and the default merchant's credentials."""
    with serving("--db", str(tmp_path / "e.sqlite3")) as (url, output):
        pass
    for expected in (
        f"{url}/api/v1/",
        f"{url}/v2/",
        f"{url}/oauth2/token",
        f"{url}/_emulator/",
        "sk_test_emulator_default_key",
        "sk_live_emulator_default_key",
        "emulator-default-client",
        "emulator-default-secret",
        "DEFAULT01",
    ):
        assert expected in output[0]


def test_state_and_clock_survive_a_restart(tmp_path: Path):
    """A client and an advanced frozen clock are still there after the process restarts."""
    db = str(tmp_path / "e.sqlite3")
    with serving("--db", db, "--clock", "frozen", "--start", "2026-01-05T09:00:00Z") as (url, _):
        created = httpx.post(
            f"{url}/api/v1/clients/", json={"email": "a@example.com"}, headers=DEFAULT
        )
        assert created.status_code == 201
        httpx.post(f"{url}/_emulator/clock/advance", json={"seconds": 3600})
    with serving("--db", db) as (url, _):
        again = httpx.get(f"{url}/api/v1/clients/{created.json()['id']}/", headers=DEFAULT)
        assert again.json() == created.json()
        assert httpx.get(f"{url}/_emulator/clock").json() == {
            "now": "2026-01-05T10:00:00Z",
            "mode": "frozen",
        }


def test_environment_variables_configure_serve(tmp_path: Path):
    """EMULATOR_DB, EMULATOR_CLOCK and EMULATOR_START work like the flags."""
    env = {
        "EMULATOR_DB": str(tmp_path / "env.sqlite3"),
        "EMULATOR_CLOCK": "frozen",
        "EMULATOR_START": "2027-02-03T04:05:06Z",
    }
    with serving(env=env) as (url, _):
        assert httpx.get(f"{url}/_emulator/clock").json() == {
            "now": "2027-02-03T04:05:06Z",
            "mode": "frozen",
        }
    assert (tmp_path / "env.sqlite3").is_file()


def test_flags_win_over_environment():
    """A flag overrides the environment variable of the same setting."""
    args = _parser().parse_args(["serve", "--port", "9001", "--clock", "real"])
    settings = settings_from(args, {"EMULATOR_PORT": "9000", "EMULATOR_CLOCK": "frozen"})
    assert (settings.port, settings.clock, settings.clock_explicit) == (9001, "real", True)


def test_client_options_go_before_or_after_the_verb():
    """--url, --admin-token and --json are taken before the verb as well as after it, and an
    --admin-token before `serve` is the server's token, not dropped."""
    for argv in (
        ["--json", "--url", "http://h:1", "--admin-token", "t", "clock"],
        ["clock", "--json", "--url", "http://h:1", "--admin-token", "t"],
    ):
        args = _parser().parse_args(argv)
        assert (args.json, args.url, args.admin_token) == (True, "http://h:1", "t")
    before = settings_from(_parser().parse_args(["--admin-token", "s3cret", "serve"]), {})
    after = settings_from(_parser().parse_args(["serve", "--admin-token", "s3cret"]), {})
    assert before.admin_token == after.admin_token == "s3cret"
    assert settings_from(_parser().parse_args(["serve"]), {}).admin_token is None


def test_non_loopback_binding_gets_an_admin_token():
    """Bound off loopback with no admin token, one is generated."""
    settings = settings_from(_parser().parse_args(["serve", "--host", "0.0.0.0"]), {})
    assert settings.admin_token and len(settings.admin_token) == 32


@pytest.mark.parametrize(
    ("argv", "env", "message"),
    [
        (["--start", "soon"], {}, "Invalid isoformat string: 'soon'"),
        (["--start", "9999-01-01"], {}, "--start / EMULATOR_START must be between 1970"),
        ([], {"EMULATOR_PORT": "abc"}, "EMULATOR_PORT='abc': invalid literal"),
        ([], {"EMULATOR_CLOCK": "slow"}, "EMULATOR_CLOCK must be one of real, frozen, not 'slow'"),
        ([], {"EMULATOR_START": "later"}, "EMULATOR_START='later': Invalid isoformat"),
    ],
)
def test_bad_settings_are_a_clear_error(argv: list[str], env: dict[str, str], message: str):
    """A flag or variable that does not parse ends with a message naming it, not a traceback."""
    result = subprocess.run(
        [sys.executable, "-m", "emulator", "serve", *argv],
        capture_output=True,
        text=True,
        timeout=30,
        env={**os.environ, **env},
    )
    assert result.returncode == 2
    assert result.stderr.startswith("payments-emulator: "), result.stderr
    assert message in result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize("argv", [["--version"], ["serve", "--help"]])
def test_help_and_version(argv: list[str]):
    result = subprocess.run(
        [sys.executable, "-m", "emulator", *argv], capture_output=True, text=True, timeout=30
    )
    assert result.returncode == 0


def test_a_database_that_will_not_open_ends_the_process(tmp_path: Path):
    """A corrupt --db file: the server says so and exits (nothing started, the file untouched)."""
    db = tmp_path / "broken.sqlite3"
    db.write_bytes(b"this is not a database" * 100)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    result = subprocess.run(
        [sys.executable, "-m", "emulator", "serve", "--db", str(db), "--port", str(port)],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert result.returncode == 2  # refused before anything starts
    assert "file is not a database" in result.stderr
    assert db.read_bytes() == b"this is not a database" * 100


@pytest.mark.slow  # the server waits out its shutdown grace period: the point of the test
def test_a_client_stalled_mid_request_does_not_stop_a_clean_shutdown(tmp_path: Path):
    """SIGTERM with a request stuck halfway: the server still stops (after its grace period)
    and still saves what shutdown saves (the clock here)."""
    db = str(tmp_path / "e.sqlite3")
    with serving("--db", db, "--clock", "frozen", "--start", "2026-01-05T09:00:00Z") as (url, _):
        httpx.post(f"{url}/_emulator/clock/advance", json={"seconds": 60})
        stalled = socket.create_connection(("127.0.0.1", int(url.rsplit(":", 1)[1])))
        stalled.sendall(
            b"POST /api/v1/clients/ HTTP/1.1\r\nHost: e\r\nContent-Type: application/json\r\n"
            b"Authorization: Bearer sk_test_emulator_default_key\r\n"
            b"Content-Length: 100\r\n\r\n{"
        )
        time.sleep(0.2)  # the request is in the server's hands, waiting for its body
    stalled.close()
    with serving("--db", db) as (url, _):
        assert httpx.get(f"{url}/_emulator/clock").json()["now"] == "2026-01-05T09:01:00Z"


def test_serve_activates_scenarios_and_the_rate_limit(tmp_path: Path):
    """`--scenario` takes shipped names and files; `--rate-limit` limits each merchant; a
    dropped connection leaves no error in the server's log."""
    mine = tmp_path / "hang-up.yaml"
    mine.write_text(
        "name: hang-up\nrules:\n  - when: http.request\n    match: {method: DELETE}\n"
        "    then: {drop: true}\n"
    )
    args = ("--db", str(tmp_path / "e.sqlite3"), "--scenario", "upstream-502-burst",
            "--scenario", str(mine), "--rate-limit", "5/60", "--clock", "frozen")  # fmt: skip
    with serving(*args) as (url, output):
        listing = httpx.get(f"{url}/_emulator/scenarios").json()["scenarios"]
        active = {s["name"]: s["active"] for s in listing if s["active"]}
        assert set(active) == {"upstream-502-burst", "hang-up"}
        statuses = [httpx.get(f"{url}/api/v1/clients/", headers=DEFAULT) for _ in range(6)]
        assert [r.status_code for r in statuses] == [502, 502, 502, 200, 200, 429]
        assert statuses[3].headers["X-RateLimit-Limit"] == "5"
        assert [r.headers.get("X-RateLimit-Remaining") for r in statuses] == [
            "4",
            "3",
            "2",
            "1",
            "0",
            "0",
        ]
        with pytest.raises(httpx.RemoteProtocolError):
            httpx.delete(f"{url}/api/v1/clients/00000000-0000-4000-8000-000000000000/")
    assert "scenarios active: upstream-502-burst, " in output[0]
    assert "rate limit: 5 requests per merchant per 60 s" in output[0]
    assert "ASGI callable" not in output[-1] and "Traceback" not in output[-1]


def test_a_second_emulator_on_the_same_file_is_refused_before_it_starts(tmp_path: Path):
    db = str(tmp_path / "e.sqlite3")
    with serving("--db", db):
        second = subprocess.run(
            [sys.executable, "-m", "emulator", "serve", "--db", db, "--port", str(free_port())],
            capture_output=True, text=True, timeout=30, check=False,
        )  # fmt: skip
    assert second.returncode == 2
    assert "is in use by another emulator process" in second.stderr
    assert "Traceback" not in second.stderr and "default merchant" not in second.stdout


def test_the_log_at_info_shows_requests_deliveries_and_advances(tmp_path: Path):
    """At the default level the server prints one compact line per request (uvicorn's access
    log is off), each delivery with its answer, and each clock advance with its jobs; at
    warning, none of them."""
    db = str(tmp_path / "e.sqlite3")
    start = ("--clock", "frozen", "--start", "2026-01-05T09:00:00Z")
    with serving("--db", db, *start, "--log-level", "info") as (url, output):
        hook = {"title": "t", "events": ["purchase.created"], "callback": f"{url}/_emulator/sink/a"}
        assert httpx.post(f"{url}/api/v1/webhooks/", json=hook, headers=DEFAULT).status_code == 201
        purchase = {
            "brand_id": "4b0d6e2a-1c3f-4a5b-8d7e-9f0a1b2c3d4e",
            "client": {"email": "a@example.com"},
            "purchase": {"products": [{"name": "x", "price": 100}]},
        }
        created = httpx.post(f"{url}/api/v1/purchases/", json=purchase, headers=DEFAULT)
        assert created.status_code == 201, created.text
        assert httpx.post(f"{url}/_emulator/clock/advance", json={"seconds": 60}).is_success
        assert httpx.get(f"{url}/_emulator/sink/a").json()["messages"]
    log = output[0]
    assert "POST /api/v1/purchases/ 201 " in log
    assert "POST /_emulator/clock/advance 200 " in log
    assert '"POST /api/v1/purchases/ HTTP/1.1"' not in log  # uvicorn's own access line
    assert f"webhook purchase.created of purchase {created.json()['id']}" in log
    assert f"{url}/_emulator/sink/a: 200 (attempt 1)" in log
    assert "server clock advanced to 2026-01-05T09:01:00Z" in log

    with serving("--db", db, "--log-level", "warning") as (url, output):
        assert httpx.get(f"{url}/api/v1/clients/", headers=DEFAULT).status_code == 200
    assert "GET /api/v1/clients/" not in output[0]
