"""The control plane's flows: the library, and runs in the background (``docs/flows.md``);
the shapes of their answers."""

from __future__ import annotations

from typing import Literal

import msgspec
from msgspec import UNSET, UnsetType

from emulator.flows.report import StepResult
from emulator.openapi.control import op
from emulator.openapi.model import Body, Operation


class LibraryFlow(msgspec.Struct):
    """A file of the library: its flow's name, description and step count, or ``error``: why
    it does not read (its line, column and key path)."""

    name: str
    file: str
    description: str | UnsetType = UNSET
    steps: int | UnsetType = UNSET
    error: str | UnsetType = UNSET


class Library(msgspec.Struct):
    folder: str
    flows: list[LibraryFlow]


class RunRequest(msgspec.Struct):
    """Exactly one of ``name`` (a flow of the library) and ``yaml`` (a flow's text); ``keep``
    keeps the run's merchant. The body may also be the flow's YAML itself."""

    name: str | UnsetType = UNSET
    yaml: str | UnsetType = UNSET
    keep: bool | UnsetType = UNSET


class FlowRun(msgspec.Struct):
    """A run: ``state`` running until it ends passed or failed; ``steps``: each step's result
    so far (outcome, milliseconds, the merchant's instant after it; on failure the request and
    answer or the expectations' report); ``error``: why it failed outside its steps."""

    id: str
    number: int
    flow: str
    state: Literal["running", "passed", "failed"]
    steps: list[StepResult]
    source: str | UnsetType = UNSET
    merchant: str | UnsetType = UNSET
    ms: float | UnsetType = UNSET
    error: str | UnsetType = UNSET
    kept: bool | UnsetType = UNSET


class FlowRunSummary(msgspec.Struct):
    id: str
    number: int
    flow: str
    state: Literal["running", "passed", "failed"]
    step_count: int
    source: str | UnsetType = UNSET
    merchant: str | UnsetType = UNSET
    ms: float | UnsetType = UNSET
    error: str | UnsetType = UNSET
    kept: bool | UnsetType = UNSET


class FlowRuns(msgspec.Struct):
    """The runs this server remembers (its last 200), newest first."""

    runs: list[FlowRunSummary]


RUN_BODY = Body(
    RunRequest,
    media="application/json,application/yaml",
    description='JSON `{"name"}` or `{"yaml"}` (and `keep`), or the flow\'s YAML text.',
)

OPERATIONS: list[Operation] = [
    op("flows_list", "GET", "/flows", "The flow library (`--flows DIR`, else the shipped one)",
       "Flows", Library),
    op("flow_runs_start", "POST", "/flows/runs", "Run a flow in the background", "Flows",
       FlowRun, status=202, body=RUN_BODY,
       description="Each run on a fresh merchant of its own (deleted at its end unless"
       " `keep`), through the app in process. A run under way when the server stops is"
       " abandoned (failed, with `error`).",
       errors={400: "A bad flow: its line, column and key path (`invalid_flow`); a bad body"
               " (`invalid`, `malformed_json`).",
               404: "No flow of this name in the library (`flow_not_found`)."}),
    op("flow_runs_list", "GET", "/flows/runs", "The runs, numbered, newest first", "Flows",
       FlowRuns),
    op("flow_runs_read", "GET", "/flows/runs/{id}", "A run's state and its steps so far",
       "Flows", FlowRun, errors={404: "No such run on this server (`run_not_found`)."}),
]  # fmt: skip
