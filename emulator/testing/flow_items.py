"""Flow files as pytest items, when the user opts in (``--emulator-flows PATH``, repeatable,
or the ``emulator_flows`` ini option: files or folders): each file one test, run on a fresh
merchant of the session's flow emulator (``--emulator-url``, else one started in process on
first use and stopped at the end), its failure the step report."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from emulator.flows import library
from emulator.flows.model import Flow
from emulator.flows.parse import FlowError
from emulator.flows.report import text
from emulator.testing.flows import run_flow, served_routes

FLOWS_OPTION = "emulator_flows"
_SERVER = pytest.StashKey[Any]()


def flow_paths(config: pytest.Config) -> list[Path]:
    """The files and folders the user opted in, as absolute paths."""
    given = list(config.getoption(FLOWS_OPTION) or []) or list(config.getini(FLOWS_OPTION))
    root = config.rootpath
    return [p if p.is_absolute() else (root / p) for p in map(Path, map(str, given))]


def wanted(config: pytest.Config, path: Path) -> bool:
    """Whether ``path`` is a flow file the user opted in."""
    if path.suffix not in library.SUFFIXES:
        return False
    path = path.resolve()
    for opted in flow_paths(config):
        opted = opted.resolve()
        if path == opted or opted in path.parents:
            return True
    return False


def flow_emulator(config: pytest.Config) -> Any:
    """The emulator flow items run on: ``--emulator-url``'s, else one in process (once)."""
    if _SERVER not in config.stash:
        from emulator.testing import EmulatorServer, ExternalEmulator

        url = config.getoption("emulator_url") or config.getini("emulator_url")
        token = config.getoption("emulator_admin_token") or config.getini("emulator_admin_token")
        server = ExternalEmulator(url, admin_token=token or None) if url else EmulatorServer()
        config.stash[_SERVER] = server.start()
    return config.stash[_SERVER]


def stop_flow_emulator(config: pytest.Config) -> None:
    server = config.stash.get(_SERVER, None)
    if server is not None:
        server.stop()


class FlowFailed(Exception):
    """A flow item's failure: its step report."""


class FlowFile(pytest.File):
    """A flow file: one test item, named after its flow."""

    def collect(self) -> list[pytest.Item]:
        try:
            flow = library.read(self.path, served_routes())
        except FlowError as exc:
            raise self.CollectError(str(exc)) from None
        return [FlowItem.from_parent(self, name=flow.name, flow=flow)]


class FlowItem(pytest.Item):
    """One run of a flow against the session's emulator (``--emulator-url``, else one started
    in process for the flows)."""

    def __init__(self, *, flow: Flow, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.flow = flow

    def runtest(self) -> None:
        server = flow_emulator(self.config)
        report = run_flow(self.flow, server, check=False)
        if not report.passed:
            raise FlowFailed(text(report))

    def repr_failure(self, excinfo: Any, style: Any = None) -> Any:
        if isinstance(excinfo.value, FlowFailed):
            return str(excinfo.value)
        return super().repr_failure(excinfo, style)

    def reportinfo(self) -> tuple[Path, int | None, str]:
        return self.path, None, f"flow {self.flow.name}"
