"""emulator.testing: the plain test helpers, against a real emulator served in this process."""

from __future__ import annotations

import re
import subprocess
import sys
import threading
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import freezegun
import httpx
import pytest

from emulator.runtime.runtime import Runtime
from emulator.testing import (
    ClockInfo,
    EmulatorClient,
    EmulatorClock,
    EmulatorError,
    EmulatorServer,
    EmulatorStartError,
    ExternalEmulator,
    Merchant,
    unique_name,
)
from tests.conftest import EPOCH, EPOCH_S

HOUR = timedelta(hours=1)


@pytest.fixture(scope="module")
def server() -> Iterator[EmulatorServer]:
    """One emulator in real mode for the module; tests that move its clock put it back."""
    with EmulatorServer() as running:
        yield running


@pytest.fixture
def control(server: EmulatorServer) -> Iterator[EmulatorClient]:
    with server.client() as client:
        yield client
        if client.changed_clock:
            server.follow_system_time()


@pytest.fixture(scope="module")
def frozen_server() -> Iterator[EmulatorServer]:
    """An emulator frozen at EPOCH with seeded ids; every test starts it over (reset)."""
    with EmulatorServer(clock="frozen", start=EPOCH, seed=7) as running:
        yield running


@pytest.fixture
def frozen(frozen_server: EmulatorServer) -> Iterator[EmulatorClient]:
    with frozen_server.client() as client:
        client.reset()
        yield client


@pytest.fixture
def acme(control: EmulatorClient) -> Merchant:
    return control.new_merchant("Acme")


# -- servers -----------------------------------------------------------------------------------


async def database_path(rt: Runtime) -> Path:
    return rt.settings.db_path


def test_server_serves_on_a_free_loopback_port_and_cleans_up():
    """start() binds 127.0.0.1, answers health; stop() closes the port and deletes the db."""
    server = EmulatorServer().start()
    try:
        assert re.fullmatch(r"http://127\.0\.0\.1:\d+", server.url)
        db = server.call(database_path)
        assert db.parent.is_dir()
        with server.client() as client:
            assert client.health()["status"] == "ok"
    finally:
        server.stop()
    assert not db.parent.exists()
    with pytest.raises(httpx.ConnectError):
        httpx.get(f"{server.url}/_emulator/health")


def test_server_on_a_given_database_keeps_its_state(tmp_path: Path):
    """With db_path, what one server created is there for the next one."""
    db = tmp_path / "state" / "emulator.sqlite3"
    with EmulatorServer(db_path=db) as first, first.client() as client:
        merchant = client.new_merchant("Kept")
    with EmulatorServer(db_path=db) as second, second.client() as client:
        with client.gateway(merchant) as gateway:
            assert gateway.get("clients/").status_code == 200
    assert db.is_file()


def test_server_start_failure_is_a_clear_error(tmp_path: Path):
    """A runtime that cannot start is an EmulatorStartError that carries the cause."""
    (tmp_path / "file").write_text("not a directory")
    with pytest.raises(EmulatorStartError, match="did not start") as failed:
        EmulatorServer(db_path=tmp_path / "file" / "emulator.sqlite3").start()
    assert isinstance(failed.value.__cause__, OSError)


def test_server_clock_options(frozen: EmulatorClient):
    """clock="frozen" with start: the emulator begins frozen at that instant."""
    assert frozen.clock() == ClockInfo(now=EPOCH, mode="frozen")


def test_server_loop_keeps_real_time_under_freezegun():
    """Without uvloop the server's asyncio loop still runs its timers while freezegun is on,
    and the emulator's clock follows freezegun."""
    server = EmulatorServer(loop="asyncio").start()
    try:
        with freezegun.freeze_time("2031-05-01 12:00:00"), server.client() as client:
            assert client.clock().now.isoformat() == "2031-05-01T12:00:00+00:00"
    finally:
        with freezegun.freeze_time("2031-05-01 12:00:00"):
            server.stop()  # uvicorn's shutdown sleeps on the loop's timers


def test_external_emulator_wraps_a_running_one(server: EmulatorServer):
    """ExternalEmulator checks health on start and never stops what it did not start."""
    with ExternalEmulator(server.url + "/") as external, external.client() as client:
        assert external.url == server.url
        assert client.health()["status"] == "ok"
    with server.client() as client:
        assert client.health()["status"] == "ok"


def test_external_emulator_that_does_not_answer():
    """An unreachable URL is an EmulatorStartError that says how to start one."""
    with pytest.raises(EmulatorStartError, match="make run"):
        ExternalEmulator("http://127.0.0.1:9", timeout=0.05).start()


# -- merchants and their clients ---------------------------------------------------------------


def test_new_merchant_has_every_credential(acme: Merchant):
    """new_merchant returns a Merchant with keys, OAuth client and one v2 profile."""
    assert acme.name == "Acme"
    assert acme.api_key.startswith("sk_test_")
    assert acme.production_api_key.startswith("sk_live_")
    assert acme.client_id.startswith("client_") and acme.client_secret
    assert [p.profile_code[0] for p in acme.profiles] == ["P"]


def test_gateway_client_uses_the_merchant_api_key(control: EmulatorClient, acme: Merchant):
    """The gateway client creates a client (201) and lists it."""
    with control.gateway(acme) as gateway:
        created = gateway.post("clients/", json={"email": "jane@example.com"})
        assert created.status_code == 201
        listed = gateway.get("clients/")
    assert (listed.status_code, [c["id"] for c in listed.json()["results"]]) == (
        200,
        [created.json()["id"]],
    )


def test_bank_client_gets_a_token_and_lists_profiles(control: EmulatorClient, acme: Merchant):
    """The bank client fetches an OAuth token itself; GET /v2/merchantprofile is 200."""
    with control.bank(acme) as bank:
        response = bank.get("merchantprofile")
    assert response.status_code == 200
    assert [p["profileCode"] for p in response.json()] == [acme.profiles[0].profile_code]


def test_bank_client_renews_an_expired_token(frozen: EmulatorClient):
    """After the 24-hour token expiry on the emulator clock, the bank client gets a new one."""
    merchant = frozen.new_merchant()
    with frozen.bank(merchant) as bank:
        assert bank.get("merchantprofile").status_code == 200
        frozen.advance(timedelta(days=1, seconds=1))
        response = bank.get("merchantprofile")
    assert (response.status_code, [r.status_code for r in response.history]) == (200, [401, 200])


def test_requests_journal_for_one_merchant(control: EmulatorClient, acme: Merchant):
    """requests(merchant) lists that merchant's calls only, newest first."""
    other = control.new_merchant()
    with control.gateway(acme) as mine, control.gateway(other) as theirs:
        mine.get("clients/")
        theirs.get("clients/")
        mine.get("clients/?page=1")
    entries = control.requests(acme)
    assert [(e["method"], e["path"], e["query"]) for e in entries] == [
        ("GET", "/api/v1/clients/", "page=1"),
        ("GET", "/api/v1/clients/", ""),
    ]


def test_test_values_list_the_magic_cards(control: EmulatorClient):
    """test_values() is the control plane's table of test cards and accounts."""
    numbers = [card["number"] for card in control.test_values()["cards"]]
    assert "4444333322221111" in numbers


def test_errors_carry_the_control_plane_body(control: EmulatorClient):
    """A non-2xx answer raises EmulatorError with the status, code and message."""
    with pytest.raises(EmulatorError) as failed:
        control.restore("no-such-snapshot")
    assert (failed.value.status, failed.value.code, failed.value.message) == (
        404,
        "snapshot_not_found",
        "no snapshot named 'no-such-snapshot'",
    )


def test_snapshot_and_restore(frozen: EmulatorClient):
    """restore() puts back the state of snapshot(): a later merchant is gone."""
    name = unique_name("snap")
    assert frozen.snapshot(name)["name"] == name
    later = frozen.new_merchant()
    assert frozen.restore(name) == ClockInfo(now=EPOCH, mode="frozen")
    with frozen.gateway(later) as gateway:
        assert gateway.get("clients/").status_code == 401


# -- clock ---------------------------------------------------------------------------------------


def test_freeze_and_advance(frozen: EmulatorClient):
    """advance moves a frozen clock and runs due jobs (here a token expiry and the daily
    retention) on the way."""
    with frozen.bank(frozen.new_merchant()) as bank:
        bank.get("merchantprofile")
    assert frozen.advance(seconds=90) == (ClockInfo(EPOCH + timedelta(seconds=90), "frozen"), 0)
    assert frozen.advance(to="2026-01-06T10:00:00Z") == (
        ClockInfo(EPOCH + timedelta(hours=25), "frozen"),
        2,
    )


def test_freeze_and_resume_at(control: EmulatorClient):
    """freeze(at) stops the clock there; resume(at) runs real time from there."""
    assert control.freeze(EPOCH) == ClockInfo(EPOCH, "frozen")
    resumed = control.resume(EPOCH + HOUR)
    assert resumed.mode == "real"
    assert EPOCH + HOUR <= resumed.now < EPOCH + HOUR + timedelta(seconds=5)


def test_emulator_clock_verbs(frozen: EmulatorClient):
    """EmulatorClock: shift and advance go forward, move_to jumps keeping the mode."""
    clock = EmulatorClock(frozen)
    assert clock.shift(HOUR) == 0
    assert clock.now() == EPOCH + HOUR
    assert clock.move_to("2026-01-01T00:00:00Z").isoformat() == "2026-01-01T00:00:00+00:00"
    assert clock.mode == "frozen"


# -- a merchant's own clock ----------------------------------------------------------------------


def test_new_merchant_with_its_own_clock(frozen: EmulatorClient):
    """new_merchant(clock=, now=) gives it its own clock (frozen by default, at the server
    clock's instant by default); without either it follows the server clock."""
    day = EPOCH + timedelta(days=1)
    assert frozen.clock(frozen.new_merchant(clock="frozen", now=day)) == ClockInfo(
        day, "frozen", own=True
    )
    assert frozen.clock(frozen.new_merchant(now=day)) == ClockInfo(day, "frozen", own=True)
    assert frozen.clock(frozen.new_merchant(clock="frozen")) == ClockInfo(EPOCH, "frozen", True)
    real = frozen.clock(frozen.new_merchant(clock="real").company_id)
    assert (real.mode, real.own) == ("real", True)
    assert EPOCH <= real.now < EPOCH + timedelta(seconds=5)
    assert frozen.clock(frozen.new_merchant()) == ClockInfo(EPOCH, "frozen", own=False)
    assert frozen.clock() == ClockInfo(EPOCH, "frozen")


def test_merchant_clock_moves_alone(control: EmulatorClient):
    """advance, freeze and resume with merchant= move that merchant's clock only: the server
    clock is untouched and the client has nothing to put back (changed_clock stays False)."""
    mine = control.new_merchant(clock="frozen", now=EPOCH)
    assert control.advance(HOUR, merchant=mine) == (ClockInfo(EPOCH + HOUR, "frozen", True), 0)
    later = EPOCH + timedelta(days=2)
    assert control.advance(to=later, merchant=mine)[0].now == later
    assert control.freeze(EPOCH, merchant=mine) == ClockInfo(EPOCH, "frozen", own=True)
    resumed = control.resume(merchant=mine.company_id)
    assert (resumed.mode, resumed.own) == ("real", True)
    assert EPOCH <= resumed.now < EPOCH + timedelta(seconds=5)
    on_system = control.resume(system=True, merchant=mine)
    assert abs(on_system.now - datetime.now(UTC)) < timedelta(seconds=5)
    server = control.clock()
    assert server.mode == "real"
    assert abs(server.now - datetime.now(UTC)) < timedelta(seconds=5)
    assert control.changed_clock is False


def test_merchant_that_follows_the_server_clock(frozen: EmulatorClient):
    """Moving a merchant that follows the server clock is a 409 clock_not_own; set_clock gives
    it its own clock, taking its jobs along (they leave the server's schedule)."""
    follower = frozen.new_merchant()
    with pytest.raises(EmulatorError) as refused:
        frozen.advance(HOUR, merchant=follower)
    assert (refused.value.status, refused.value.code) == (409, "clock_not_own")
    with frozen.bank(follower) as bank:
        bank.get("merchantprofile")
    expiry = [(j.kind, j.object_id) for j in frozen.schedule(object_id=follower.client_id)]
    assert expiry == [("token.expiry", follower.client_id)]
    assert frozen.set_clock(follower, now=EPOCH + HOUR) == ClockInfo(EPOCH + HOUR, "frozen", True)
    assert frozen.schedule(object_id=follower.client_id) == []
    (job,) = frozen.schedule(follower)
    assert (job.due, job.kind, job.object_type) == (
        EPOCH + timedelta(days=1),
        "token.expiry",
        "token",
    )
    assert frozen.set_clock(follower.company_id, "real", EPOCH).mode == "real"


def test_merchant_clock_verbs(frozen: EmulatorClient):
    """EmulatorClock(client, merchant): next() goes to the next job and names it, schedule()
    lists that merchant's jobs; the jobs run on its clock (its token expires)."""
    merchant = frozen.new_merchant(clock="frozen", now=EPOCH)
    clock = EmulatorClock(frozen, merchant)
    with frozen.bank(merchant) as bank:
        assert bank.get("merchantprofile").status_code == 200
        assert [job.kind for job in clock.schedule()] == ["token.expiry"]
        job = clock.next()
        assert (job.kind, job.due, clock.now()) == (
            "token.expiry",
            EPOCH + timedelta(days=1),
            job.due,
        )
        response = bank.get("merchantprofile")
    assert [r.status_code for r in response.history] == [401, 200]  # expired, renewed
    assert clock.shift(HOUR) == 0
    assert clock.advance(to="next") == 1  # the new token's expiry
    assert clock.move_to(EPOCH) == EPOCH
    assert (clock.mode, clock.info().own) == ("frozen", True)
    assert clock.schedule() == []
    with pytest.raises(EmulatorError, match="nothing_scheduled"):
        clock.next()
    assert frozen.clock() == ClockInfo(EPOCH, "frozen")


def test_follow_system_time_is_exact_under_freezegun(
    server: EmulatorServer, control: EmulatorClient
):
    """follow_system_time leaves no offset: under freezegun the emulator shows that instant."""
    control.advance(timedelta(days=3))
    with freezegun.freeze_time("2031-05-01 12:00:00"):
        server.follow_system_time()
        assert control.clock().now.isoformat() == "2031-05-01T12:00:00+00:00"


def test_freezegun_moves_the_in_process_emulator(control: EmulatorClient, acme: Merchant):
    """In real mode the emulator reads time.time(): freezegun sets created_on."""
    with freezegun.freeze_time(EPOCH), control.gateway(acme) as gateway:
        created = gateway.post("clients/", json={"email": "frozen@example.com"})
    assert created.json()["created_on"] == EPOCH_S


# -- sinks -----------------------------------------------------------------------------------------


def test_sink_round_trip(control: EmulatorClient):
    """What is POSTed to sink.url is read back (oldest first) and can be cleared."""
    sink = control.sink(prefix="round trip")
    assert re.fullmatch(r"round-trip-[0-9a-f]{12}", sink.name)
    httpx.post(sink.url, json={"n": 1}, headers={"X-Signature": "abc"})
    httpx.post(sink.url, content=b"plain text")
    first, second = sink.wait_for(2)
    assert (first.method, first.json, first.headers["x-signature"]) == ("POST", {"n": 1}, "abc")
    assert (second.body, second.json) == ("plain text", None)
    assert sink.clear() == 2
    assert sink.messages() == []


def test_sink_wait_for_is_answered_when_the_message_arrives(
    server: EmulatorServer, control: EmulatorClient
):
    """wait_for is the emulator's wait: open while nothing arrived, answered by the POST, in
    the one request it made (a wait that polled would have made more, and none open)."""
    sent: list[str] = []
    waiter = server.client()
    waiter.http.event_hooks["request"].append(lambda request: sent.append(request.url.path))
    sink = waiter.sink(prefix="later")

    def post_once_waiting() -> None:
        for _ in range(1000):
            if control.call("GET", "waits")["open"] == 1:
                httpx.post(sink.url, json={"n": 1})
                return
            threading.Event().wait(0.005)

    poster = threading.Thread(target=post_once_waiting)
    poster.start()
    try:
        [message] = sink.wait_for(1, timeout=30)
    finally:
        poster.join()
        waiter.close()
    assert message.json == {"n": 1}
    assert sent == [f"/_emulator/sink/{sink.name}/wait"]


def test_sink_wait_for_times_out(control: EmulatorClient):
    """wait_for raises TimeoutError naming the sink when too little arrived."""
    sink = control.sink("quiet")
    with pytest.raises(TimeoutError, match="'quiet' received 0 of 1"):
        sink.wait_for(1, timeout=0.05)


def test_structs_decode_real_datetimes_even_when_first_used_under_freezegun():
    """msgspec resolves a struct's annotations on first use; freezegun must not be what it
    finds (it would poison every later decode in the process). A fresh interpreter, so the
    first use really is under freezegun."""
    script = """
import freezegun, msgspec, datetime
from emulator import testing
with freezegun.freeze_time("2031-07-04T12:00:00Z"):
    info = msgspec.convert({"now": "2031-07-04T12:00:00Z", "mode": "frozen"}, testing.ClockInfo)
    sink = msgspec.convert([{"id": 1, "received_at": "2031-07-04T12:00:00Z", "method": "POST",
        "path": "/", "headers": {}, "body": "", "json": None}], list[testing.SinkMessage])
info = msgspec.convert({"now": "2031-07-04T12:00:00Z", "mode": "frozen"}, testing.ClockInfo)
assert type(info.now) is datetime.datetime, type(info.now)
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
