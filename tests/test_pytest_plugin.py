"""emulator.pytest_plugin, through pytester: each test runs a small suite in a fresh pytest."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from emulator.testing import EmulatorServer

pytestmark = pytest.mark.usefixtures("inner_config")

# The inner runs are as strict as ours: unknown markers and any warning fail them. They load
# this plugin alone: autoloading every installed plugin (hypothesis takes 0.6 s to import)
# would triple the cost of each run. test_unused_plugin_loads_nothing covers the entry point.
INI = """
[pytest]
addopts = --strict-markers --strict-config -p no:cacheprovider -p emulator.pytest_plugin
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
    imports neither the helpers nor the app, and still knows the marker and the option."""
    monkeypatch.delenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD")
    pytester.makeini(INI.replace("-p emulator.pytest_plugin", "-p no:hypothesispytest"))
    pytester.makepyfile(
        """
        import sys

        def test_nothing_loaded(pytestconfig):
            assert "emulator.testing" not in sys.modules
            assert "emulator.app" not in sys.modules
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
    """@pytest.mark.emulator: start= freezes there, clock= picks the mode, typos are errors."""
    pytester.makepyfile(
        """
        from datetime import datetime, timedelta, timezone

        import pytest

        START = datetime(2026, 1, 5, 9, 0, tzinfo=timezone.utc)

        @pytest.mark.emulator(start="2026-01-05T09:00:00Z")
        def test_start_freezes(emulator_clock, gateway):
            assert (emulator_clock.now(), emulator_clock.mode) == (START, "frozen")
            created = gateway.post("clients/", json={"email": "a@example.com"}).json()
            assert created["created_on"] == int(START.timestamp())

        @pytest.mark.emulator(clock="frozen")
        def test_frozen_now(emulator_clock):
            assert emulator_clock.mode == "frozen"
            assert emulator_clock.now() == emulator_clock.now()

        @pytest.mark.emulator(clock="real", start=START)
        def test_real_from_start(emulator_clock):
            assert emulator_clock.mode == "real"
            assert START <= emulator_clock.now() < START + timedelta(minutes=1)

        @pytest.mark.emulator(speed=2)
        def test_unknown_argument(emulator_client):
            pass
        """
    )
    result = run(pytester)
    result.assert_outcomes(passed=3, errors=1)
    result.stdout.fnmatch_lines(["*@pytest.mark.emulator takes only start= and clock=*speed*"])


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


def test_freezegun_moves_the_in_process_emulator(pytester: pytest.Pytester):
    """Under freezegun the in-process emulator's real-mode clock is the frozen instant: when
    freezegun is on as the emulator starts, and after a test moved the clock (it is put back
    with no offset at all)."""
    pytester.makepyfile(
        """
        from datetime import datetime, timedelta, timezone

        import freezegun

        FROZEN = datetime(2031, 5, 1, 12, 0, tzinfo=timezone.utc)

        def post_client(gateway):
            response = gateway.post("clients/", json={"email": "f@example.com"})
            return response.json()["created_on"]

        @freezegun.freeze_time("2031-05-01 12:00:00")
        def test_emulator_starts_under_freezegun(gateway):
            assert post_client(gateway) == int(FROZEN.timestamp())

        def test_moves_the_clock(emulator_clock):
            emulator_clock.advance(timedelta(days=2))

        def test_freezegun(gateway, emulator_client):
            with freezegun.freeze_time("2031-05-01 12:00:00"):
                created_on = post_client(gateway)
                clock = emulator_client.http.get("clock")
            assert created_on == int(FROZEN.timestamp())
            assert clock.json() == {"now": "2031-05-01T12:00:00Z", "mode": "real"}
        """
    )
    run(pytester).assert_outcomes(passed=3)


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
    if how == "ini":
        pytester.makeini(f"{INI}emulator_url = {outside.url}\n")
        run(pytester).assert_outcomes(passed=1)
    else:
        run(pytester, "--emulator-url", outside.url).assert_outcomes(passed=1)
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
