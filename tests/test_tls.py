"""HTTPS: ``serve --tls`` (a CA and certificate of its own), ``--tls-cert/--tls-key``, and
``--callback-ca`` for receivers with their own CA; live servers, httpx verifying."""

from __future__ import annotations

import os
import signal
import ssl
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest

from emulator.serving import tls
from tests.http.purchase_helpers import purchase_body
from tests.test_cli import DEFAULT, free_port
from tests.test_cli_startup import assert_refused, run_serve

pytestmark = pytest.mark.slow  # each test starts `serve --tls` processes and makes certificates


def trusting(ca: Path) -> ssl.SSLContext:
    return ssl.create_default_context(cafile=ca)


def purchase_created(url: str, verify: ssl.SSLContext | bool = True) -> None:
    """A purchase of the default merchant: its purchase.created goes to its webhooks."""
    merchant = httpx.get(f"{url}/_emulator/merchants", verify=verify).json()["merchants"][0]
    body = purchase_body(merchant)
    made = httpx.post(f"{url}/api/v1/purchases/", json=body, headers=DEFAULT, verify=verify)
    assert made.status_code == 201, made.text


@contextmanager
def serving(db: Path, *args: str, verify: str | bool = False) -> Iterator[tuple[str, list[str]]]:
    """``python -m emulator serve`` on a free port until the block ends (its url, and its
    output once it has stopped)."""
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "emulator", "serve", "--port", str(port), "--db", str(db),
         "--log-level", "warning", *args],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True,
    )  # fmt: skip
    scheme = "https" if ("--tls" in args or "--tls-cert" in args) else "http"
    url = f"{scheme}://127.0.0.1:{port}"
    output: list[str] = []
    try:
        deadline = time.monotonic() + 15
        while True:
            try:
                if httpx.get(f"{url}/_emulator/health", verify=False, timeout=1).is_success:
                    break
            except httpx.TransportError:
                pass
            if process.poll() is not None or time.monotonic() > deadline:
                raise AssertionError(f"did not start:\n{process.stdout.read()}")  # type: ignore[union-attr]
            time.sleep(0.02)
        yield url, output
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=15)
        assert process.stdout is not None
        output.append(process.stdout.read())
        process.stdout.close()


def test_tls_serves_https_with_a_ca_of_its_own(tmp_path: Path):
    db = tmp_path / "e.sqlite3"
    ca = tls.directory_for(db) / "ca.pem"
    with serving(db, "--tls") as (url, _):
        health = httpx.get(f"{url}/_emulator/health", verify=trusting(ca))  # verified against it
        assert health.json()["status"] == "ok"
        served = httpx.get(f"{url}/_emulator/tls/ca.pem", verify=trusting(ca))
        assert served.headers["content-type"] == "application/x-pem-file"
        assert served.content == ca.read_bytes()
        with pytest.raises(httpx.ConnectError, match="CERTIFICATE_VERIFY_FAILED"):
            httpx.get(f"{url}/_emulator/health")  # the system's CAs do not know it
        # deliveries to its own sink go over HTTPS and trust its CA
        hook = {"title": "t", "all_events": True, "callback": f"{url}/_emulator/sink/tls"}
        made = httpx.post(
            f"{url}/api/v1/webhooks/", json=hook, headers=DEFAULT, verify=trusting(ca)
        )
        assert made.status_code == 201, made.text
        purchase_created(url, trusting(ca))
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            sink = httpx.get(f"{url}/_emulator/sink/tls", verify=trusting(ca)).json()["messages"]
            attempts = httpx.get(f"{url}/_emulator/deliveries", verify=trusting(ca)).json()
            if sink and attempts["deliveries"]:
                break
            time.sleep(0.02)
    first = ca.read_bytes()
    with serving(db, "--tls") as (url, output):
        assert httpx.get(f"{url}/_emulator/health", verify=trusting(ca)).is_success
    assert ca.read_bytes() == first  # a restart keeps the CA clients already trust
    assert f"trust the emulator's CA {ca}" in "".join(output)
    assert attempts["deliveries"] and all(d["success"] for d in attempts["deliveries"])
    assert sink[0]["json"]["event_type"] == "purchase.created"


def test_a_given_certificate_is_served_and_no_ca_is_offered(tmp_path: Path):
    files = tls.ensure(tmp_path / "mine", "127.0.0.1")
    db = tmp_path / "e.sqlite3"
    with serving(db, "--tls-cert", str(files.cert), "--tls-key", str(files.key)) as (url, _):
        assert files.ca is not None
        assert httpx.get(f"{url}/_emulator/health", verify=trusting(files.ca)).is_success
        missing = httpx.get(f"{url}/_emulator/tls/ca.pem", verify=trusting(files.ca))
        assert missing.status_code == 404
        assert missing.json()["error"]["code"] == "no_tls_ca"
    assert not tls.directory_for(db).exists()


def test_callback_ca_trusts_a_receivers_own_ca(tmp_path: Path):
    """A receiver with its own CA (here a second emulator serving --tls: its sink receives)."""
    receiver_db = tmp_path / "receiver.sqlite3"
    receiver_ca = tls.ensure(tls.directory_for(receiver_db), "127.0.0.1").ca
    assert receiver_ca is not None
    with serving(receiver_db, "--tls") as (receiver, _):
        for trusted, name in ((True, "trusted"), (False, "untrusted")):
            extra = ("--callback-ca", str(receiver_ca)) if trusted else ()
            with serving(tmp_path / f"{name}.sqlite3", *extra) as (url, _):
                callback = f"{receiver}/_emulator/sink/{name}"
                hook = {"title": "t", "all_events": True, "callback": callback}
                assert httpx.post(f"{url}/api/v1/webhooks/", json=hook, headers=DEFAULT).is_success
                purchase_created(url)
                attempts: list[dict[str, object]] = []
                deadline = time.monotonic() + 10
                while time.monotonic() < deadline:
                    attempts = httpx.get(f"{url}/_emulator/deliveries").json()["deliveries"]
                    if attempts:
                        break
                    time.sleep(0.02)
                assert attempts, name
                assert attempts[-1]["success"] is trusted, attempts[-1]
                if not trusted:
                    assert "CERTIFICATE_VERIFY_FAILED" in str(attempts[-1]["error"])
            got = httpx.get(f"{receiver}/_emulator/sink/{name}", verify=trusting(receiver_ca))
            assert bool(got.json()["messages"]) is trusted


@pytest.mark.parametrize(
    ("args", "flag"),
    [
        (("--tls-cert", "/nonexistent.pem"), "--tls-key"),
        (("--tls-cert", "/nonexistent.pem", "--tls-key", "/nonexistent.key"), "--tls-cert"),
        (("--callback-ca", "/nonexistent.pem"), "--callback-ca"),
        (("--retain", "a week"), "--retain"),
        (("--callback-hosts", "app, bad host!"), "--callback-hosts"),
    ],
)
def test_bad_flags_are_refused_naming_the_flag(tmp_path: Path, args, flag):
    result = run_serve("--db", str(tmp_path / "e.sqlite3"), *args)
    assert_refused(result, flag)
    assert not (tmp_path / "e.sqlite3").exists()


def test_bad_environment_is_refused_naming_the_variable(tmp_path: Path):
    for variable, value in (("EMULATOR_RETAIN", "soon"), ("EMULATOR_CALLBACK_HOSTS", "a b")):
        result = run_serve("--db", str(tmp_path / "e.sqlite3"), env={variable: value})
        assert_refused(result, variable)
