"""pytest plugin (entry point ``pytest11``): a thin shim over ``emulator.testing``.

Fixtures: ``emulator`` (the session's emulator, started on first use), ``emulator_client``,
``emulator_merchant`` (a fresh isolated merchant per test), ``gateway`` and ``bank`` (httpx
clients of that merchant), ``emulator_clock``, ``emulator_sink`` and ``emulator_scenario``
(activate a scenario for the test's merchant). The ``emulator_scenario`` marker does the same
from a decorator; both deactivate after the test. The ``emulator`` marker
sets the clock for one test; it is applied by ``emulator_client``, which every fixture but
``emulator`` builds on. ``--emulator-url`` (or the ``emulator_url`` ini option) uses an
emulator that is already running instead of starting one in-process.

Loading this plugin costs one small import: ``emulator.testing`` and the app are imported by
the fixtures, only in runs that use them. With pytest-xdist every worker is its own session,
so each gets its own in-process emulator (or they all share the external one).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    import httpx

    from emulator.testing import Emulator, EmulatorClient, EmulatorClock, Merchant, Sink

MARKER = (
    "emulator(start=None, clock=None): set the payments emulator's clock for this test. "
    "start=ISO-8601 instant freezes it there (clock='frozen' is implied); clock='real' with "
    "start runs real time from that instant; clock='frozen' alone freezes it now. Applies to "
    "tests that use an emulator fixture other than `emulator`; after the test the clock "
    "follows system time again."
)
CLOCK_MODES = ("real", "frozen")
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
    parser.addini("emulator_url", "default for --emulator-url", default="")
    parser.addini("emulator_admin_token", "default for --emulator-admin-token", default="")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", MARKER)
    config.addinivalue_line("markers", SCENARIO_MARKER_USAGE)


def _option(config: pytest.Config, name: str) -> str | None:
    value = config.getoption(name) or config.getini(name)
    return str(value) if value else None


@pytest.fixture(scope="session", name="emulator")
def _emulator(pytestconfig: pytest.Config) -> Iterator[Emulator]:
    """The session's emulator: started in-process on first use, or the external one."""
    from emulator.testing import EmulatorServer, ExternalEmulator

    url = _option(pytestconfig, "emulator_url")
    server: Emulator
    if url is not None:
        server = ExternalEmulator(url, admin_token=_option(pytestconfig, "emulator_admin_token"))
    else:
        server = EmulatorServer()
    with server:
        yield server


def _apply_marker(request: pytest.FixtureRequest, client: EmulatorClient) -> None:
    marker = request.node.get_closest_marker("emulator")
    if marker is None:
        return
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
        pytest.fail(f"@pytest.mark.emulator(clock={mode!r}): use 'real' or 'frozen'", pytrace=False)
    if mode == "frozen" or (mode is None and start is not None):
        client.freeze(at=start)
    elif mode == "real":
        client.resume(at=start)


@pytest.fixture(name="emulator_client")
def _emulator_client(
    request: pytest.FixtureRequest, emulator: Emulator
) -> Iterator[EmulatorClient]:
    """The control plane, with the test's ``emulator`` marker applied. A test that moved the
    clock leaves it following system time again (real mode), so the next test is unaffected."""
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
            _apply_marker(request, client)
            yield client
        finally:
            if client.changed_clock:
                emulator.follow_system_time()


@pytest.fixture(name="emulator_merchant")
def _emulator_merchant(
    request: pytest.FixtureRequest, emulator_client: EmulatorClient
) -> Iterator[Merchant]:
    """A fresh merchant: nothing another test created is visible to it. Scenarios named by
    the test's ``emulator_scenario`` markers are active for this merchant only."""
    merchant = emulator_client.new_merchant()
    with _Scenarios(emulator_client, merchant) as scenarios:
        for marker in request.node.iter_markers("emulator_scenario"):
            if marker.kwargs or not marker.args:
                pytest.fail(SCENARIO_MARKER_USAGE, pytrace=False)
            for name in marker.args:
                scenarios.activate(name)
        yield merchant


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
def _emulator_clock(emulator_client: EmulatorClient) -> EmulatorClock:
    """Freeze, advance, shift, move_to, resume; put back to real time after the test."""
    from emulator.testing import EmulatorClock

    return EmulatorClock(emulator_client)


@pytest.fixture(name="emulator_sink")
def _emulator_sink(
    request: pytest.FixtureRequest, emulator_client: EmulatorClient
) -> Iterator[Sink]:
    """A receiver with a name unique to this test; register ``emulator_sink.url``."""
    sink = emulator_client.sink(prefix=request.node.name)
    yield sink
    sink.clear()
