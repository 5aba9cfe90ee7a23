"""The runs a server makes in the background (``POST /_emulator/flows/runs``): each an asyncio
task running the runner through the app in process, its report filled in step by step; the
last ``KEEP`` runs remembered, numbered from 1. When the server stops, a run under way is
abandoned: its task cancelled, its state failed with a reason."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

import msgspec

from emulator.flows import batch
from emulator.flows.model import Flow
from emulator.flows.report import Report
from emulator.flows.runner import Runner

KEEP = 200  # runs remembered (the oldest finished ones are forgotten first)
ABANDON_SECONDS = 5.0  # how long a stopping server waits for its cancelled runs
INTERNAL_URL = "http://emulator"


class Run(msgspec.Struct):
    number: int
    report: Report
    task: asyncio.Task[Report] | None = None


class Runs:
    def __init__(self) -> None:
        self.runs: dict[str, Run] = {}
        self.count = 0

    def start(
        self, flow: Flow, app: Any, admin_token: str | None, url: str, keep: bool = False
    ) -> Run:
        """A run of ``flow`` on ``app`` (in process); ``url``: the emulator's own address, as
        its deliveries reach it (``${run.url}``)."""
        self.count += 1
        run_id = batch.run_id()
        report = Report(id=run_id, flow=flow.name, source=flow.source)
        run = Run(number=self.count, report=report)

        async def go() -> Report:
            async with batch.client(INTERNAL_URL, app) as http:
                return await Runner(http, admin_token, keep=keep, url=url).run(flow, run_id, report)

        run.task = asyncio.get_running_loop().create_task(go(), name=f"flow run {run_id}")
        self.runs[run_id] = run
        self._forget()
        return run

    def _forget(self) -> None:
        finished = [k for k, r in self.runs.items() if r.report.state != "running"]
        while len(self.runs) > KEEP and finished:
            del self.runs[finished.pop(0)]

    def get(self, run_id: str) -> Run | None:
        return self.runs.get(run_id)

    def listing(self) -> list[dict[str, Any]]:
        """Every remembered run, newest first, without its steps."""
        return [view(run, steps=False) for run in reversed(self.runs.values())]

    async def abandon(self) -> None:
        """Cancel what is under way and wait (a little) for it to stop."""
        going = [r for r in self.runs.values() if r.task is not None and not r.task.done()]
        for run in going:
            assert run.task is not None
            run.task.cancel()
        if going:
            tasks = [r.task for r in going if r.task is not None]
            with contextlib.suppress(Exception):
                await asyncio.wait(tasks, timeout=ABANDON_SECONDS)
        for run in going:
            if run.report.state == "running":
                run.report.state = "failed"
                run.report.error = "abandoned: the server stopped during the run"


def view(run: Run, steps: bool = True) -> dict[str, Any]:
    """A run as the control plane shows it."""
    found: dict[str, Any] = msgspec.to_builtins(run.report)
    found["number"] = run.number
    found.setdefault("state", run.report.state)
    found.setdefault("steps", [])
    if not steps:
        found["step_count"] = len(found.pop("steps"))
    return found
