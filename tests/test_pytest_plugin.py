"""emulator.testing.pytest_plugin, through pytester: each test runs a small suite in a fresh pytest."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator

import pytest

from emulator.testing import EmulatorServer

# each test runs pytest in a process of its own (its plugins' imports: seconds)
pytestmark = [pytest.mark.usefixtures("inner_config"), pytest.mark.slow]

# The inner runs are as strict as ours: unknown markers and any warning fail them. They load
# this plugin alone: autoloading every installed plugin (hypothesis takes 0.6 s to import)
# would triple the cost of each run. test_unused_plugin_loads_nothing covers the entry point.
INI = """
[pytest]
addopts = --strict-markers --strict-config -p no:cacheprovider -p emulator.testing.pytest_plugin
filterwarnings = error
"""


@pytest.fixture
def inner_config(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    pytester.makeini(INI)


@pytest.fixture(scope="module")
def outside() -> Iterator[EmulatorServer]:
    """An emulator started by this process, standing in for `make run`."""
    with EmulatorServer() as server:
        yield server


def run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    result = pytester.runpytest_subprocess(*args, timeout=60)
    assert "Warning" not in result.stderr.str()
    return result


def test_unused_plugin_loads_nothing(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch):
    """Installed, the plugin loads through its entry point; a run that uses no emulator fixture
    imports none of the emulator itself (only the helpers around it), and still knows the
    marker and the option."""
    monkeypatch.delenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD")
    pytester.makeini(INI.replace("-p emulator.testing.pytest_plugin", "-p no:hypothesispytest"))
    pytester.makepyfile(
        """
        import sys

        def test_nothing_loaded(pytestconfig):
            assert "emulator.serving.app" not in sys.modules
            assert "emulator.runtime.runtime" not in sys.modules
            assert any(line.startswith("emulator(") for line in pytestconfig.getini("markers"))
            assert pytestconfig.getoption("emulator_url") is None
        """
    )
    run(pytester).assert_outcomes(passed=1)


def test_fixtures_give_a_working_emulator(pytester: pytest.Pytester):
    """emulator, emulator_client, gateway, bank and emulator_sink work together."""
    pytester.makepyfile(
        """
        import httpx
        from emulator.testing import EmulatorServer

        def test_session_emulator(emulator, emulator_client):
            assert isinstance(emulator, EmulatorServer)
            assert emulator_client.url == emulator.url
            assert emulator_client.health()["status"] == "ok"

        def test_gateway(gateway):
            response = gateway.post("clients/", json={"email": "jane@example.com"})
            assert response.status_code == 201

        def test_bank(bank, emulator_merchant):
            response = bank.get("merchantprofile")
            assert response.status_code == 200
            codes = [p["profileCode"] for p in response.json()]
            assert codes == [emulator_merchant.profiles[0].profile_code]

        def test_sink(emulator_sink):
            assert emulator_sink.name.startswith("test_sink-")
            httpx.post(emulator_sink.url, json={"event": "paid"})
            assert [m.json for m in emulator_sink.wait_for(1)] == [{"event": "paid"}]
        """
    )
    run(pytester).assert_outcomes(passed=4)


def test_each_test_gets_an_isolated_merchant(pytester: pytest.Pytester):
    """A client that one test's merchant created is a 404 for the next test's merchant."""
    pytester.makepyfile(
        """
        SEEN = {}

        def test_first(gateway, emulator_merchant):
            created = gateway.post("clients/", json={"email": "a@example.com"})
            SEEN.update(client=created.json()["id"], merchant=emulator_merchant.company_id)

        def test_second(gateway, emulator_merchant):
            assert emulator_merchant.company_id != SEEN["merchant"]
            assert gateway.get(f"clients/{SEEN['client']}/").status_code == 404
            assert gateway.get("clients/").json()["results"] == []
            mine = gateway.post("clients/", json={"email": "b@example.com"}).json()["id"]
            assert [c["id"] for c in gateway.get("clients/").json()["results"]] == [mine]
        """
    )
    run(pytester).assert_outcomes(passed=2)


def test_marker_sets_the_clock(pytester: pytest.Pytester):
    """@pytest.mark.emulator sets the clock of the test's merchant (its own; the server clock
    is left alone), or the server clock for a test without a merchant or marked
    clock="server" (whose merchant then follows it); start= freezes there, clock= picks the
    mode, typos are errors."""
    pytester.makepyfile(
        """
        from datetime import datetime, timedelta, timezone

        import pytest
        from emulator.testing import ClockInfo

        START = datetime(2026, 1, 5, 9, 0, tzinfo=timezone.utc)

        def on_system_time(info):
            now = datetime.now(timezone.utc)
            return info.mode == "real" and abs(info.now - now) < timedelta(seconds=5)

        @pytest.mark.emulator(start="2026-01-05T09:00:00Z")
        def test_start_freezes_the_merchants_clock(emulator_client, emulator_clock, gateway):
            assert emulator_client.clock(emulator_clock.merchant) == ClockInfo(
                START, "frozen", own=True
            )
            created = gateway.post("clients/", json={"email": "a@example.com"}).json()
            assert created["created_on"] == int(START.timestamp())
            assert on_system_time(emulator_client.clock())

        @pytest.mark.emulator(clock="real", start=START)
        def test_merchant_real_from_start(emulator_client, emulator_clock, bank):
            assert (emulator_clock.mode, emulator_clock.info().own) == ("real", True)
            assert START <= emulator_clock.now() < START + timedelta(minutes=1)
            assert on_system_time(emulator_client.clock())

        @pytest.mark.emulator(clock="real")
        def test_merchant_real_from_now(emulator_clock, emulator_merchant):
            assert on_system_time(emulator_clock.info())
            assert emulator_clock.info().own is True

        @pytest.mark.emulator(clock="server", start=START)
        def test_merchant_follows_the_server(emulator_client, emulator_merchant, emulator_clock):
            assert emulator_clock.merchant is None
            assert emulator_client.clock(emulator_merchant) == ClockInfo(START, "frozen", False)
            assert emulator_client.clock() == ClockInfo(START, "frozen")

        @pytest.mark.emulator(start="2026-01-05T09:00:00Z")
        def test_server_start_freezes(emulator_clock):
            assert emulator_clock.merchant is None
            assert (emulator_clock.now(), emulator_clock.mode) == (START, "frozen")

        @pytest.mark.emulator(clock="frozen")
        def test_server_frozen_now(emulator_clock):
            assert emulator_clock.mode == "frozen"
            assert emulator_clock.now() == emulator_clock.now()

        @pytest.mark.emulator(clock="real", start=START)
        def test_server_real_from_start(emulator_clock):
            assert emulator_clock.mode == "real"
            assert START <= emulator_clock.now() < START + timedelta(minutes=1)

        def test_server_put_back(emulator_client):
            assert on_system_time(emulator_client.clock())

        @pytest.mark.emulator(speed=2)
        def test_unknown_argument(emulator_client):
            pass

        @pytest.mark.emulator(clock="hourly")
        def test_unknown_mode(emulator_merchant):
            pass
        """
    )
    result = run(pytester)
    result.assert_outcomes(passed=8, errors=2)
    result.stdout.fnmatch_lines(["*@pytest.mark.emulator takes only start= and clock=*speed*"])
    result.stdout.fnmatch_lines(["*emulator(clock='hourly'): use 'frozen', 'real' or 'server'*"])


def test_clock_is_put_back_after_a_test_that_moved_it(pytester: pytest.Pytester):
    """After a frozen or advanced clock, the next test finds real mode on system time."""
    pytester.makepyfile(
        """
        from datetime import datetime, timedelta, timezone

        import pytest

        def assert_on_system_time(clock):
            assert clock.mode == "real"
            assert abs(clock.now() - datetime.now(timezone.utc)) < timedelta(seconds=5)

        @pytest.mark.emulator(start="2020-01-01T00:00:00Z")
        def test_frozen_in_the_past(emulator_clock):
            pass

        def test_then_real_again(emulator_clock):
            assert_on_system_time(emulator_clock)

        def test_advanced_a_month(emulator_clock):
            emulator_clock.advance(timedelta(days=30))

        def test_then_back(emulator_clock):
            assert_on_system_time(emulator_clock)
        """
    )
    run(pytester).assert_outcomes(passed=4)


def test_tests_merchant_owns_its_clock(pytester: pytest.Pytester, outside: EmulatorServer):
    """Against a shared emulator whose server clock is frozen: each test's merchant owns a
    clock frozen at the server clock's instant (shown by X-Emulator-Time), emulator_clock
    moves it and runs that merchant's jobs (its purchase goes overdue, its token expires). A
    test's merchant's clock stays where the test left it and moves nothing else: the server
    clock is neither moved nor put back to real time after."""
    pytester.makepyfile(
        """
        from datetime import datetime, timedelta, timezone

        import pytest
        from emulator.testing import ClockInfo

        SERVER = datetime(2027, 3, 1, 12, 0, tzinfo=timezone.utc)
        START = datetime(2026, 3, 2, 10, 0, tzinfo=timezone.utc)
        SEEN = {}

        def test_frozen_at_the_tests_start(emulator_client, emulator_merchant, gateway):
            mine = ClockInfo(SERVER, "frozen", own=True)
            assert emulator_client.clock(emulator_merchant) == mine
            header = gateway.get("clients/").headers["X-Emulator-Time"]
            assert datetime.fromisoformat(header) == SERVER

        @pytest.mark.emulator(start=START)
        def test_purchase_goes_overdue(emulator_merchant, emulator_clock, gateway):
            body = {
                "client": {"email": "payer@example.com"},
                "purchase": {"products": [{"name": "Widget", "price": 1000}]},
                "brand_id": emulator_merchant.brand_id,
            }
            purchase = gateway.post("purchases/", json=body).json()
            (job,) = emulator_clock.schedule(object_id=purchase["id"])
            assert (job.kind, job.due) == ("purchase.expiry", START + timedelta(hours=1))
            assert emulator_clock.advance(timedelta(hours=2)) == 1
            assert gateway.get(f"purchases/{purchase['id']}/").json()["status"] == "overdue"
            assert emulator_clock.now() == START + timedelta(hours=2)
            SEEN.update(merchant=emulator_merchant, now=emulator_clock.now())

        def test_token_expires(emulator_client, emulator_clock, bank):
            assert emulator_client.clock(SEEN["merchant"]).now == SEEN["now"]
            assert emulator_clock.now() == SERVER
            assert bank.get("merchantprofile").status_code == 200
            job = emulator_clock.next()
            assert (job.kind, job.due) == ("token.expiry", SERVER + timedelta(days=1))
            response = bank.get("merchantprofile")
            assert [r.status_code for r in response.history] == [401, 200]
            assert emulator_client.clock(SEEN["merchant"]).now == SEEN["now"]
            assert emulator_client.clock() == ClockInfo(SERVER, "frozen")
            assert emulator_client.changed_clock is False
        """
    )
    with outside.client() as control:
        server = control.freeze("2027-03-01T12:00:00Z")
        try:
            run(pytester, "--emulator-url", outside.url).assert_outcomes(passed=3)
            assert control.clock() == server
        finally:
            outside.follow_system_time()


WORKER = """
import time
from datetime import timedelta
from pathlib import Path

ME, OTHER, DAYS = {me!r}, {other!r}, {days}

def wait_for(name):
    for _ in range(500):
        if Path(name).exists():
            return
        time.sleep(0.02)
    raise TimeoutError(name)

def test_worker(emulator_clock, gateway):
    start = emulator_clock.now()
    Path(ME + ".started").touch()
    wait_for(OTHER + ".started")
    emulator_clock.advance(timedelta(days=DAYS))
    Path(ME + ".advanced").touch()
    wait_for(OTHER + ".advanced")
    assert emulator_clock.now() == start + timedelta(days=DAYS)
    created = gateway.post("clients/", json={{"email": ME + "@example.com"}}).json()
    assert created["created_on"] == int((start + timedelta(days=DAYS)).timestamp())
"""


def test_parallel_runs_share_one_emulator(pytester: pytest.Pytester, outside: EmulatorServer):
    """Two pytest processes (as pytest-xdist workers) against one external emulator, each
    advancing its test's clock while the other does: each sees its own time only."""
    pytester.makepyfile(
        test_a=WORKER.format(me="a", other="b", days=10),
        test_b=WORKER.format(me="b", other="a", days=20),
    )
    command = [sys.executable, "-m", "pytest", "-q", "--emulator-url", outside.url]
    workers = [pytester.popen([*command, f"test_{me}.py"], stdin=subprocess.DEVNULL) for me in "ab"]
    try:
        outputs = [worker.communicate(timeout=60) for worker in workers]
    finally:
        for worker in workers:
            if worker.poll() is None:
                worker.kill()
                worker.communicate()
    for worker, (stdout, stderr) in zip(workers, outputs, strict=True):
        assert worker.returncode == 0, stdout.decode() + stderr.decode()
    with outside.client() as control:
        server = control.clock()
    assert server.mode == "real"


def test_freezegun_moves_the_in_process_emulator(pytester: pytest.Pytester):
    """Under freezegun the in-process emulator's real-mode clock is the frozen instant: when
    freezegun is on as the emulator starts, and after a test moved the clock (it is put back
    with no offset at all). A test's merchant sees it when it follows the server clock
    (clock="server"); its own frozen clock does not move."""
    pytester.makepyfile(
        """
        from datetime import datetime, timedelta, timezone

        import freezegun
        import pytest

        FROZEN = datetime(2031, 5, 1, 12, 0, tzinfo=timezone.utc)

        def post_client(gateway):
            response = gateway.post("clients/", json={"email": "f@example.com"})
            return response.json()["created_on"]

        @pytest.mark.emulator(clock="server")
        @freezegun.freeze_time("2031-05-01 12:00:00")
        def test_emulator_starts_under_freezegun(gateway):
            assert post_client(gateway) == int(FROZEN.timestamp())

        def test_moves_the_clock(emulator_clock):
            emulator_clock.advance(timedelta(days=2))

        def test_own_clock_stays(gateway, emulator_clock):
            with freezegun.freeze_time("2031-05-01 12:00:00"):
                assert post_client(gateway) == int(emulator_clock.now().timestamp())
            assert emulator_clock.now().year < 2031

        @pytest.mark.emulator(clock="server")
        def test_freezegun(gateway, emulator_client):
            with freezegun.freeze_time("2031-05-01 12:00:00"):
                created_on = post_client(gateway)
                clock = emulator_client.http.get("clock")
            assert created_on == int(FROZEN.timestamp())
            assert clock.json() == {"now": "2031-05-01T12:00:00Z", "mode": "real"}
        """
    )
    run(pytester).assert_outcomes(passed=4)


@pytest.mark.parametrize("how", ["option", "ini"])
def test_emulator_url_uses_a_running_emulator(
    pytester: pytest.Pytester, outside: EmulatorServer, how: str
):
    """--emulator-url (or the emulator_url ini option) points the fixtures at that emulator."""
    pytester.makepyfile(
        f"""
        from emulator.testing import ExternalEmulator

        def test_external(emulator, gateway):
            assert isinstance(emulator, ExternalEmulator)
            assert emulator.url == "{outside.url}"
            response = gateway.post("clients/", json={{"email": "{how}@example.com"}})
            assert response.status_code == 201
        """
    )
    # kept: the session's end would delete the merchant, and its journal entries with it
    if how == "ini":
        pytester.makeini(f"{INI}emulator_url = {outside.url}\nemulator_keep_merchants = true\n")
        run(pytester).assert_outcomes(passed=1)
    else:
        run(pytester, "--emulator-url", outside.url, "--emulator-keep-merchants").assert_outcomes(
            passed=1
        )
    with outside.client() as client:
        bodies = [e["request_body"] for e in client.requests(limit=10)]
    assert f'{{"email":"{how}@example.com"}}' in bodies


def test_scenarios_for_the_tests_merchant_only(pytester: pytest.Pytester):
    """The emulator_scenario marker and fixture activate scenarios for the test's merchant
    only, and nothing is left active after the test."""
    pytester.makepyfile(
        """
        import pytest

        CUSTOM = '''
        name: clients-down
        rules:
          - when: http.request
            match: {path: {prefix: /api/v1/clients}}
            then: {status: 503}
        '''

        @pytest.mark.emulator_scenario("upstream-502-burst")
        def test_marker(gateway, emulator_client):
            other = emulator_client.new_merchant()
            with emulator_client.gateway(other) as theirs:
                assert theirs.get("clients/").status_code == 200
            assert [gateway.get("clients/").status_code for _ in range(4)] == [502, 502, 502, 200]

        def test_fixture_with_yaml(gateway, emulator_scenario):
            assert emulator_scenario(CUSTOM) == "clients-down"
            assert gateway.get("clients/").status_code == 503

        def test_nothing_left_active(emulator_client):
            assert all(s["active"] == [] for s in emulator_client.scenarios())

        @pytest.mark.emulator_scenario()
        def test_marker_needs_a_name(gateway):
            pass
        """
    )
    result = run(pytester)
    result.assert_outcomes(passed=3, errors=1)
    result.stdout.fnmatch_lines(["*emulator_scenario(*names): activate these scenarios*"])


def test_the_scenario_marker_needs_the_tests_merchant(pytester: pytest.Pytester):
    pytester.makepyfile(
        """
        import pytest

        @pytest.mark.emulator_scenario("upstream-502-burst")
        def test_without_merchant(emulator_client):
            pass
        """
    )
    result = run(pytester)
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*emulator_scenario applies to the test's merchant*"])


SESSION_MERCHANTS = """
from pathlib import Path

import httpx

def _note(merchant):
    with Path("made.txt").open("a") as out:
        out.write(merchant.company_id + "\\n")

def test_one(emulator_merchant, gateway):
    _note(emulator_merchant)
    assert gateway.get("clients/").status_code == 200

def test_two(emulator_merchant, bank):
    _note(emulator_merchant)
    assert bank.get("merchantprofile").status_code == 200

def test_deletes_its_own(emulator_client, emulator_merchant):
    _note(emulator_merchant)
    emulator_client.delete_merchant(emulator_merchant)  # the session's end skips it

def test_sink(emulator_sink):
    httpx.post(emulator_sink.url, json={"n": 1})
    emulator_sink.wait_for(1)
    Path("sink.txt").write_text(emulator_sink.name)
"""


@pytest.mark.parametrize(
    ("options", "kept"),
    [
        ((), False),
        (("--emulator-keep-merchants",), True),
        (("-o", "emulator_keep_merchants=true"), True),
    ],
)
def test_merchants_made_on_a_shared_emulator_are_deleted_at_the_end(
    pytester: pytest.Pytester, outside: EmulatorServer, options: tuple[str, ...], kept: bool
):
    """Against an external emulator the fixtures' merchants and sinks go when the session
    ends (one a test deleted itself is skipped), unless the run keeps them; an in-process
    emulator is thrown away whole anyway."""
    pytester.makepyfile(test_made=SESSION_MERCHANTS)
    run(pytester, "--emulator-url", outside.url, *options).assert_outcomes(passed=4)
    made = (pytester.path / "made.txt").read_text().split()
    assert len(made) == 3
    with outside.client() as control:
        listed = {m["company_id"] for m in control.call("GET", "merchants")["merchants"]}
    assert {m for m in made[:2] if m in listed} == (set(made[:2]) if kept else set())
    assert made[2] not in listed
    with outside.client() as control:
        left = control.sink((pytester.path / "sink.txt").read_text()).messages()
    assert len(left) == (1 if kept else 0)
