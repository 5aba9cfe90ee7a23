"""pytest plugin (entry point ``pytest11``): a thin shim over ``emulator.testing``.

Fixtures: ``emulator`` (the session's emulator, started on first use), ``emulator_client``,
``emulator_merchant`` (a fresh isolated merchant per test), ``gateway`` and ``bank`` (httpx
clients of that merchant), ``emulator_clock``, ``emulator_sink`` and ``emulator_scenario``
(activate a scenario for the test's merchant). The ``emulator_scenario`` marker does the same
from a decorator; both deactivate after the test. ``--emulator-url`` (or the ``emulator_url``
ini option) uses an emulator that is already running instead of starting one in-process;
the merchants and sinks the fixtures made there are deleted when the session ends, so a
shared server does not fill up (``--emulator-keep-merchants``, or the
``emulator_keep_merchants`` ini option, keeps them to look at after the run). A test's
teardown sends nothing that waits: closing its clients is all it costs.

Time: the test's merchant owns a clock of its own, frozen at the test's start (the server
clock's instant), so tests that move time never move each other's, even in parallel against
one shared emulator. The ``emulator`` marker sets that clock (it is given to the merchant as it
is created), and ``emulator_clock`` acts on it. A test without a merchant (or marked
``clock="server"``, whose merchant then follows the server clock) has both act on the server
clock, as ``emulator_client`` applies the marker; a test that moved the server clock leaves it
following system time again.

Loading this plugin imports the helpers of ``emulator.testing`` (the package it lives in) but
not the emulator: the app and its runtime are imported by the fixtures, only in runs that use
them. With pytest-xdist every worker is its own session,
so each gets its own in-process emulator (or they all share the external one).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

import pytest

if TYPE_CHECKING:
    import httpx

    from emulator.kernel.clock import Mode
    from emulator.testing import Emulator, EmulatorClient, EmulatorClock, Merchant, Sink

MARKER = (
    "emulator(start=None, clock=None): set the payments emulator's clock for this test: the "
    "clock of the test's merchant (`emulator_merchant`, `gateway`, `bank`), which owns one, "
    "frozen at the test's start unless told; else the server clock. start=ISO-8601 instant "
    "freezes it there (clock='frozen' is implied); clock='real' runs real time (from start if "
    "given); clock='frozen' alone freezes it now; clock='server' makes the test's merchant "
    "follow the server clock, which start= then sets. A test that moved the server clock "
    "leaves it following system time again."
)
CLOCK_MODES = ("real", "frozen", "server")
SERVER = "server"  # clock="server": the test's merchant follows the server clock
SCENARIO_MARKER_USAGE = (
    "emulator_scenario(*names): activate these scenarios (shipped or loaded) for the test's "
    "merchant only (the one `emulator_merchant`, `gateway` and `bank` use); deactivated after."
)


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("payments-emulator")
    group.addoption(
        "--emulator-url",
        dest="emulator_url",
        default=None,
        metavar="URL",
        help="use the payments emulator running at URL instead of starting one in-process",
    )
    group.addoption(
        "--emulator-admin-token",
        dest="emulator_admin_token",
        default=None,
        metavar="TOKEN",
        help="control-plane token of an external emulator not bound to loopback",
    )
    group.addoption(
        "--emulator-keep-merchants",
        dest="emulator_keep_merchants",
        action="store_true",
        default=False,
        help="keep the merchants the fixtures made on the external emulator (--emulator-url);"
        " by default they are deleted when the session ends",
    )
    group.addoption(
        "--emulator-flows",
        dest="emulator_flows",
        action="append",
        default=None,
        metavar="PATH",
        help="collect these flow files or folders (*.yaml) as tests, each run on a fresh merchant",
    )
    parser.addini("emulator_flows", "flow files or folders collected as tests", type="linelist")
    parser.addini("emulator_url", "default for --emulator-url", default="")
    parser.addini("emulator_admin_token", "default for --emulator-admin-token", default="")
    parser.addini(
        "emulator_keep_merchants",
        "default for --emulator-keep-merchants",
        type="bool",
        default=False,
    )


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", MARKER)
    config.addinivalue_line("markers", SCENARIO_MARKER_USAGE)
    given = config.getoption("emulator_flows")
    if given or (config.getini("emulator_flows") and config.args_source != config.ArgsSource.ARGS):
        from emulator.testing.flow_items import flow_paths  # the emulator: only with flows

        args = [Path(a.split("::")[0]).resolve() for a in config.args]
        for path in flow_paths(config):
            if not any(a == path or a in path.parents for a in args):
                config.args.append(str(path))


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    if not (parent.config.getoption("emulator_flows") or parent.config.getini("emulator_flows")):
        return None
    from emulator.testing.flow_items import FlowFile, wanted

    return (
        FlowFile.from_parent(parent, path=file_path) if wanted(parent.config, file_path) else None
    )


def pytest_unconfigure(config: pytest.Config) -> None:
    if config.getoption("emulator_flows") or config.getini("emulator_flows"):
        from emulator.testing.flow_items import stop_flow_emulator

        stop_flow_emulator(config)


def _option(config: pytest.Config, name: str) -> str | None:
    value = config.getoption(name) or config.getini(name)
    return str(value) if value else None


# company_ids of the merchants the fixtures made in this session, in order
_MADE = pytest.StashKey[list[str]]()
# names of the sinks the fixtures made in this session, in order
_SINKS = pytest.StashKey[list[str]]()


@pytest.fixture(scope="session", name="emulator")
def _emulator(pytestconfig: pytest.Config) -> Iterator[Emulator]:
    """The session's emulator: started in-process on first use, or the external one (whose
    merchants made by the fixtures are deleted at the end, unless told to keep them)."""
    from emulator.testing import EmulatorServer, ExternalEmulator

    url = _option(pytestconfig, "emulator_url")
    made: list[str] = []
    sinks: list[str] = []
    pytestconfig.stash[_MADE] = made
    pytestconfig.stash[_SINKS] = sinks
    server: Emulator
    if url is not None:
        server = ExternalEmulator(url, admin_token=_option(pytestconfig, "emulator_admin_token"))
    else:
        server = EmulatorServer()
    with server:
        try:
            yield server
        finally:
            keep = pytestconfig.getoption("emulator_keep_merchants") or pytestconfig.getini(
                "emulator_keep_merchants"
            )
            if url is not None and not keep:
                _delete_made(server, made, sinks)


def _delete_made(server: Emulator, made: list[str], sinks: list[str]) -> None:
    """Delete what the session made on a shared emulator, all at once at its end (a test's
    teardown waits for none of it); a merchant already gone (a test reset or restored the
    state) is skipped."""
    from emulator.testing import EmulatorError

    with server.client() as client:
        for company_id in made:
            try:
                client.delete_merchant(company_id)
            except EmulatorError as exc:
                if exc.status != 404:
                    raise
        for name in sinks:
            client.sink(name).clear()


class _ClockMarker(NamedTuple):
    mode: str | None  # "real", "frozen", "server" or None
    start: Any  # an instant (ISO-8601 text or datetime) or None


def _clock_marker(request: pytest.FixtureRequest) -> _ClockMarker | None:
    marker = request.node.get_closest_marker("emulator")
    if marker is None:
        return None
    options: dict[str, Any] = dict(marker.kwargs)
    start = options.pop("start", None)
    mode = options.pop("clock", None)
    if marker.args or options:
        pytest.fail(
            f"@pytest.mark.emulator takes only start= and clock=, got args={marker.args!r} "
            f"kwargs={sorted(options)!r}",
            pytrace=False,
        )
    if mode not in (None, *CLOCK_MODES):
        pytest.fail(
            f"@pytest.mark.emulator(clock={mode!r}): use 'frozen', 'real' or 'server'",
            pytrace=False,
        )
    return _ClockMarker(mode, start)


def _on_merchant_clock(request: pytest.FixtureRequest) -> bool:
    """Whether the test's clock is its merchant's own: it has a merchant, not marked
    ``clock="server"``."""
    if "emulator_merchant" not in request.fixturenames:
        return False
    marker = _clock_marker(request)
    return marker is None or marker.mode != SERVER


def _apply_to_server_clock(request: pytest.FixtureRequest, client: EmulatorClient) -> None:
    marker = _clock_marker(request)
    if marker is None:
        return
    if marker.mode == "frozen" or (marker.mode in (None, SERVER) and marker.start is not None):
        client.freeze(at=marker.start)
    elif marker.mode == "real":
        client.resume(at=marker.start)


@pytest.fixture(name="emulator_client")
def _emulator_client(
    request: pytest.FixtureRequest, emulator: Emulator
) -> Iterator[EmulatorClient]:
    """The control plane, with the test's ``emulator`` marker applied to the server clock when
    the test's clock is not its merchant's. A test that moved the server clock leaves it
    following system time again (real mode), so the next test is unaffected."""
    if request.node.get_closest_marker("emulator_scenario") and (
        "emulator_merchant" not in request.fixturenames
    ):
        pytest.fail(
            "@pytest.mark.emulator_scenario applies to the test's merchant: use the"
            " `emulator_merchant`, `gateway` or `bank` fixture",
            pytrace=False,
        )
    with emulator.client() as client:
        try:
            if not _on_merchant_clock(request):
                _apply_to_server_clock(request, client)
            yield client
        finally:
            if client.changed_clock:
                emulator.follow_system_time()


@pytest.fixture(name="emulator_merchant")
def _emulator_merchant(
    request: pytest.FixtureRequest, emulator_client: EmulatorClient
) -> Iterator[Merchant]:
    """A fresh merchant: nothing another test created is visible to it. It owns a clock,
    frozen at the test's start unless the ``emulator`` marker says otherwise (or follows the
    server clock with ``clock="server"``). Scenarios named by the test's ``emulator_scenario``
    markers are active for this merchant only."""
    merchant = _new_merchant(request, emulator_client)
    with _Scenarios(emulator_client, merchant) as scenarios:
        for marker in request.node.iter_markers("emulator_scenario"):
            if marker.kwargs or not marker.args:
                pytest.fail(SCENARIO_MARKER_USAGE, pytrace=False)
            for name in marker.args:
                scenarios.activate(name)
        yield merchant


def _new_merchant(request: pytest.FixtureRequest, client: EmulatorClient) -> Merchant:
    marker = _clock_marker(request) or _ClockMarker(None, None)
    if marker.mode == SERVER:
        merchant = client.new_merchant()
    else:
        mode: Mode = "real" if marker.mode == "real" else "frozen"
        merchant = client.new_merchant(clock=mode, now=marker.start)
    request.config.stash.setdefault(_MADE, []).append(merchant.company_id)
    return merchant


class _Scenarios:
    """Scenarios activated for one test's merchant, deactivated when the test ends."""

    def __init__(self, client: EmulatorClient, merchant: Merchant) -> None:
        self.client = client
        self.merchant = merchant
        self.active: list[str] = []

    def activate(self, name_or_yaml: str) -> str:
        name = name_or_yaml
        if "\n" in name_or_yaml or ":" in name_or_yaml:  # YAML text (names have no ':')
            name = self.client.load_scenario(name_or_yaml)
        self.client.activate_scenario(name, self.merchant)
        self.active.append(name)
        return name

    def __enter__(self) -> _Scenarios:
        return self

    def __exit__(self, *exc_info: object) -> None:
        from emulator.testing import EmulatorError

        for name in reversed(self.active):
            try:
                self.client.deactivate_scenario(name, self.merchant)
            except EmulatorError:  # the test reset or restored the state: nothing to undo
                pass


@pytest.fixture(name="emulator_scenario")
def _emulator_scenario(
    emulator_client: EmulatorClient, emulator_merchant: Merchant
) -> Iterator[Callable[[str], str]]:
    """``emulator_scenario(name_or_yaml)``: activate a shipped or loaded scenario (or load
    YAML text and activate it) for the test's merchant only; deactivated after the test."""
    with _Scenarios(emulator_client, emulator_merchant) as scenarios:
        yield scenarios.activate


@pytest.fixture(name="gateway")
def _gateway(
    emulator_client: EmulatorClient, emulator_merchant: Merchant
) -> Iterator[httpx.Client]:
    """httpx client for ``/api/v1/`` with the test merchant's API key."""
    with emulator_client.gateway(emulator_merchant) as client:
        yield client


@pytest.fixture(name="bank")
def _bank(emulator_client: EmulatorClient, emulator_merchant: Merchant) -> Iterator[httpx.Client]:
    """httpx client for ``/v2/`` with an access token of the test merchant's OAuth client."""
    with emulator_client.bank(emulator_merchant) as client:
        yield client


@pytest.fixture(name="emulator_clock")
def _emulator_clock(
    request: pytest.FixtureRequest, emulator_client: EmulatorClient
) -> EmulatorClock:
    """Freeze, advance, shift, move_to, resume, next, schedule: the clock of the test's
    merchant when the test has one (nothing to undo after), else the server clock (put back
    to real time after the test)."""
    from emulator.testing import EmulatorClock

    if _on_merchant_clock(request):
        merchant: Merchant = request.getfixturevalue("emulator_merchant")
        return EmulatorClock(emulator_client, merchant)
    return EmulatorClock(emulator_client)


@pytest.fixture(name="emulator_sink")
def _emulator_sink(request: pytest.FixtureRequest, emulator_client: EmulatorClient) -> Sink:
    """A receiver with a name unique to this test; register ``emulator_sink.url``. Nothing
    else reads it, so the test's teardown leaves it be: an in-process emulator is thrown away
    whole, and on a shared one the session's end clears it with the merchants."""
    sink = emulator_client.sink(prefix=request.node.name)
    request.config.stash.setdefault(_SINKS, []).append(sink.name)
    return sink
