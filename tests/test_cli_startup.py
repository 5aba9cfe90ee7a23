"""``payments-emulator serve`` refuses bad start-ups clearly: one line naming the flag on
stderr, exit code 2, nothing created; the banner says the clock and whether the file is reused."""

from __future__ import annotations

import os
import socket
import sqlite3
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from emulator.sandbox.guard import AdminGuard
from emulator.testing import EmulatorServer
from tests.test_cli import free_port, serving

pytestmark = pytest.mark.slow  # each test starts, or is refused, a `serve` process of its own


def run_serve(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """``python -m emulator serve ...`` expected to refuse (and so to end at once)."""
    return subprocess.run(
        [sys.executable, "-m", "emulator", "serve", *args],
        capture_output=True,
        text=True,
        timeout=30,
        env={**os.environ, **(env or {})},
        check=False,
    )


def raw_status(url: str, path: str, header: bytes) -> int:
    """The status of a GET with a header httpx would refuse to send (``Bearer `` with nothing)."""
    port = int(url.rsplit(":", 1)[1])
    with socket.create_connection(("127.0.0.1", port), timeout=5) as conn:
        conn.sendall(f"GET {path} HTTP/1.1\r\nHost: e\r\n".encode() + header + b"\r\n")
        return int(conn.recv(64).split(b" ")[1])


def assert_refused(result: subprocess.CompletedProcess[str], *names: str) -> None:
    assert result.returncode == 2, result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("payments-emulator: ")
    for name in names:
        assert name in lines[0]
    assert "Traceback" not in result.stderr
    assert "default merchant" not in result.stdout  # no banner


@pytest.mark.parametrize("port", ["99999", "0", "-1", "65536", "abc"])
def test_a_port_out_of_range_is_refused(tmp_path: Path, port: str):
    db = tmp_path / "e.sqlite3"
    assert_refused(run_serve("--port", port, "--db", str(db)), "--port", "1..65535")
    assert list(tmp_path.iterdir()) == []


def test_a_port_out_of_range_in_the_environment_is_refused(tmp_path: Path):
    result = run_serve("--db", str(tmp_path / "e.sqlite3"), env={"EMULATOR_PORT": "70000"})
    assert_refused(result, "EMULATOR_PORT", "1..65535")
    assert list(tmp_path.iterdir()) == []


def test_an_unknown_log_level_is_refused(tmp_path: Path):
    result = run_serve("--log-level", "loud", "--db", str(tmp_path / "e.sqlite3"))
    assert_refused(result, "--log-level", "'loud'")
    assert list(tmp_path.iterdir()) == []


def test_a_port_in_use_is_refused_before_the_banner_or_the_database(tmp_path: Path):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = str(taken.getsockname()[1])
        result = run_serve("--port", port, "--db", str(tmp_path / "e.sqlite3"))
    assert_refused(result, f"--port {port}", "in use")
    assert result.stdout == ""
    assert list(tmp_path.iterdir()) == []


def test_a_directory_as_the_database_is_refused(tmp_path: Path):
    result = run_serve("--db", str(tmp_path), "--port", str(free_port()))
    assert_refused(result, "--db", "is a directory")
    assert list(tmp_path.iterdir()) == []


def test_a_file_that_is_not_sqlite_is_refused_and_left_alone(tmp_path: Path):
    db = tmp_path / "notes.txt"
    db.write_bytes(b"my notes, not a database\n" * 10)
    result = run_serve("--db", str(db), "--port", str(free_port()))
    assert_refused(result, "--db", "not a database")
    assert db.read_bytes() == b"my notes, not a database\n" * 10
    assert list(tmp_path.iterdir()) == [db]


@pytest.mark.parametrize(
    ("args", "env"),
    [(["--admin-token", ""], {}), ([], {"EMULATOR_ADMIN_TOKEN": ""})],
)
def test_an_empty_admin_token_off_loopback_is_refused(
    tmp_path: Path, args: list[str], env: dict[str, str]
):
    db = tmp_path / "e.sqlite3"
    result = run_serve("--host", "0.0.0.0", "--db", str(db), "--port", "8400", *args, env=env)
    assert_refused(result, "admin token is required", "must not be empty")
    assert list(tmp_path.iterdir()) == []


async def test_an_empty_bearer_never_opens_the_control_plane():
    """Even a guard built with an empty token (refused by the CLI) lets nothing through."""
    reached: list[str] = []

    async def app(scope, receive, send):  # type: ignore[no-untyped-def]
        reached.append(scope["path"])

    guard = AdminGuard(app, token="")
    sent: list[dict[str, object]] = []

    async def send(message):  # type: ignore[no-untyped-def]
        sent.append(message)

    async def receive():  # type: ignore[no-untyped-def]
        return {"type": "http.request", "body": b""}

    scope = {"type": "http", "method": "GET", "path": "/_emulator/merchants",
             "headers": [(b"authorization", b"Bearer ")]}  # fmt: skip
    await guard(scope, receive, send)
    assert reached == [] and sent[0]["status"] == 401


def test_an_admin_token_given_on_loopback_is_enforced(tmp_path: Path):
    """--admin-token on 127.0.0.1 guards the control plane; the sink stays open."""
    with serving("--db", str(tmp_path / "e.sqlite3"), "--admin-token", "s3cret") as (url, _):
        assert httpx.get(f"{url}/_emulator/clock").status_code == 401
        assert raw_status(url, "/_emulator/clock", b"Authorization: Bearer \r\n") == 401
        given = httpx.get(f"{url}/_emulator/clock", headers={"Authorization": "Bearer s3cret"})
        assert given.status_code == 200
        assert httpx.post(f"{url}/_emulator/sink/hooks", json={}).status_code == 200


def test_an_empty_admin_token_on_loopback_leaves_it_open(tmp_path: Path):
    env = {"EMULATOR_ADMIN_TOKEN": ""}
    with serving("--db", str(tmp_path / "e.sqlite3"), env=env) as (url, _):
        assert httpx.get(f"{url}/_emulator/clock").status_code == 200


def test_the_in_process_server_takes_an_admin_token(tmp_path: Path):
    with EmulatorServer(db_path=tmp_path / "e.sqlite3", admin_token="s3cret") as server:
        assert httpx.get(f"{server.url}/_emulator/clock").status_code == 401
        with server.client() as client:
            assert client.clock().mode == "real"


def test_the_banner_says_the_clock_and_whether_the_database_is_reused(tmp_path: Path):
    db = tmp_path / "e.sqlite3"
    frozen = ("--clock", "frozen", "--start", "2026-01-05T09:00:00Z")
    with serving("--db", str(db), *frozen) as (url, output):
        httpx.post(f"{url}/_emulator/clock/advance", json={"seconds": 3600})
    assert "clock         frozen, now 2026-01-05T09:00:00Z" in output[0]
    assert "(new file)" in output[0]
    with serving("--db", str(db), "--strict-requests") as (url, output):
        pass
    assert "clock         frozen, now 2026-01-05T10:00:00Z" in output[0]
    assert "strict requests: keys the platform ignores are refused (400)" in output[0]
    assert "(existing file, reused)" in output[0]
    assert "warning" not in output[0]
    with serving("--db", str(db), "--start", "2026-01-01T00:00:00Z") as (url, output):
        assert httpx.get(f"{url}/_emulator/clock").json()["now"].startswith("2026-01-01T00:00")
    assert "warning: --start 2026-01-01T00:00:00Z is before the clock stored in" in "".join(output)
    assert "2026-01-05T10:00:00Z" in "".join(output)


def test_the_banner_says_how_far_a_stored_real_clock_is_ahead(tmp_path: Path):
    """A real-mode clock advanced, then the process restarted: the banner says how far the
    stored clock is from system time, and how to follow system time again."""
    db = tmp_path / "e.sqlite3"
    with serving("--db", str(db)) as (url, output):
        advanced = httpx.post(f"{url}/_emulator/clock/advance", json={"days": 3, "hours": 2})
        assert advanced.status_code == 200
    assert "real time" not in output[0]  # a fresh real clock is system time
    with serving("--db", str(db)) as (url, output):
        httpx.post(f"{url}/_emulator/clock/resume", json={"system": True})
    assert (
        "real time + 3d 2h (the stored clock is ahead of the system clock;"
        " `payments-emulator clock resume --system` to follow it)"
    ) in output[0]
    with serving("--db", str(db)) as (url, output):
        pass
    assert "real time" not in output[0]  # following system time again


def test_a_reused_database_is_still_sqlite_afterwards(tmp_path: Path):
    """The read-only look at a reused file (for the banner) does not disturb it."""
    db = tmp_path / "e.sqlite3"
    with serving("--db", str(db)):
        pass
    with serving("--db", str(db)) as (url, _):
        assert httpx.get(f"{url}/_emulator/health").status_code == 200
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT count(*) FROM merchants").fetchone()[0] >= 1
