"""Shared fixtures: a real runtime on a real SQLite file, the real app in-process over HTTP."""

from __future__ import annotations

import inspect
from collections.abc import AsyncIterator, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import pytest

from emulator.runtime.runtime import Runtime
from emulator.runtime.settings import MEMORY, Settings
from emulator.serving.app import create_app
from emulator.testing import EmulatorClient, EmulatorServer

# Tests set time explicitly at a fixed epoch, never "now".
EPOCH = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)
EPOCH_S = int(EPOCH.timestamp())

# A live emulator's start (served over real HTTP, as the CLI and the testing helpers use it).
LIVE_START = "2026-01-05T09:00:00Z"

DEFAULT_KEY = "sk_test_emulator_default_key"
DEFAULT_CLIENT = ("emulator-default-client", "emulator-default-secret")


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--openapi-check",
        choices=("on", "off"),
        default="on",
        help="check every answer of the in-process `http` client against the OpenAPI"
        " document (tests/openapi_check.py); default on",
    )
    parser.addoption(
        "--db-mode",
        choices=("file", "memory"),
        default="file",
        help="the database of the in-process runtimes (settings_for): a file in the test's"
        " directory (default) or :memory: (serve --ephemeral); `make memory-tests`",
    )


DB_MODE = {"mode": "file"}  # --db-mode, read by settings_for (a plain function)


def pytest_configure(config: pytest.Config) -> None:
    DB_MODE["mode"] = config.getoption("--db-mode")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if DB_MODE["mode"] != "memory":
        return
    skip = pytest.mark.skip(reason="needs a database file (--db-mode=memory)")
    for item in items:
        if item.get_closest_marker("needs_file") is not None:
            item.add_marker(skip)


async def check_against_the_document(response: httpx.Response) -> None:
    """An httpx response hook: an answer the document does not describe fails the test."""
    from tests.openapi_check import checker

    await response.aread()
    request = response.request
    problems = checker().problems(
        request.method,
        request.url.path,
        response.status_code,
        {k.lower(): v for k, v in response.headers.items()},
        response.content,
    )
    if problems:
        raise AssertionError("not as the OpenAPI document says:\n" + "\n".join(problems))


@pytest.hookimpl(tryfirst=True)
def pytest_pycollect_makeitem(collector: pytest.Collector, name: str, obj: object) -> None:
    """Every ``async def`` test runs on anyio (asyncio backend, pinned below)."""
    inner = getattr(getattr(obj, "hypothesis", None), "inner_test", obj)  # @given wraps tests
    if name.startswith("test") and inspect.iscoroutinefunction(inner):
        pytest.mark.anyio(obj)


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def settings_for(path: Path, **overrides: Any) -> Settings:
    values: dict[str, Any] = {
        "db_path": MEMORY if DB_MODE["mode"] == "memory" else path / "emulator.sqlite3",
        "clock": "frozen",
        "start": EPOCH,
        "clock_explicit": True,
        "seed": 1234,
    }
    values.update(overrides)
    return Settings(**values)


@pytest.fixture
async def runtime(tmp_path: Path) -> AsyncIterator[Runtime]:
    async with Runtime(settings_for(tmp_path)) as rt:
        yield rt


@pytest.fixture
async def http(
    runtime: Runtime, request: pytest.FixtureRequest
) -> AsyncIterator[httpx.AsyncClient]:
    """The app in-process; every answer is checked against the OpenAPI document unless
    ``--openapi-check=off``."""
    transport = httpx.ASGITransport(app=create_app(runtime))
    hooks = {"response": [check_against_the_document]}
    if request.config.getoption("--openapi-check") == "off":
        hooks = {}
    async with httpx.AsyncClient(
        transport=transport, base_url="http://emulator", event_hooks=hooks
    ) as client:
        yield client


@pytest.fixture
async def merchant(http: httpx.AsyncClient) -> dict[str, Any]:
    response = await http.post("/_emulator/merchants")
    assert response.status_code == 201
    body: dict[str, Any] = response.json()
    return body


@pytest.fixture
def gw(merchant: dict[str, Any]) -> dict[str, str]:
    """Headers of the test merchant's gateway calls."""
    return {"Authorization": f"Bearer {merchant['api_key']}"}


async def token_for(http: httpx.AsyncClient, client_id: str, secret: str) -> str:
    response = await http.post(
        "/oauth2/token", auth=(client_id, secret), data={"grant_type": "client_credentials"}
    )
    assert response.status_code == 200, response.text
    token: str = response.json()["access_token"]
    return token


@pytest.fixture
async def v2(http: httpx.AsyncClient, merchant: dict[str, Any]) -> dict[str, str]:
    """Headers of the test merchant's bank (v2) calls."""
    token = await token_for(http, merchant["client_id"], merchant["client_secret"])
    return {"Authorization": f"Bearer {token}"}


@pytest.fixture(scope="module")
def server() -> Iterator[EmulatorServer]:
    """One live emulator for the module (uvicorn on a free port, its own file), frozen at
    ``LIVE_START``; tests give their merchants clocks of their own. A module that needs
    another kind defines its own ``server``."""
    with EmulatorServer(clock="frozen", start=LIVE_START) as running:
        yield running


@pytest.fixture
def control(server: EmulatorServer) -> Iterator[EmulatorClient]:
    """The control plane of the module's live emulator."""
    with server.client() as client:
        yield client


# The container test (tests/container/) is one module of one test, its first run minutes long
# (it makes a Debian base): under loadscope, which hands out the modules with the most tests
# first, it would start last and the suite would wait for it alone. It goes first instead, on
# one worker, while the other works through the rest.
FIRST_SCOPES = ("tests/container/",)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    if config.getvalue("dist") != "loadscope":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class FirstScopesFirst(LoadScopeScheduling):
        def _assign_work_unit(self, node: Any) -> None:
            for scope in [s for s in self.workqueue if s.startswith(FIRST_SCOPES)]:
                self.workqueue.move_to_end(scope, last=False)
            super()._assign_work_unit(node)

    return FirstScopesFirst(config, log)
