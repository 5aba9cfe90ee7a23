"""Runs of many flows at once, each on its own merchant, at most ``parallel`` at a time, over
one HTTP client: to an emulator's URL, or to its app in process (``httpx.ASGITransport``)."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx

from emulator.flows.model import Flow
from emulator.flows.report import Report
from emulator.flows.runner import OnStep, Runner
from emulator.kernel.ids import Ids

ANSWER_SECONDS = 30.0
_IDS = Ids()  # unseeded: run ids differ between processes too


def run_id() -> str:
    """A run's id: a path segment and a sink's name (``${run.id}``), unique on any server."""
    return f"run-{_IDS.token(12).lower()}"


def client(url: str, app: Any = None, timeout: float = ANSWER_SECONDS) -> httpx.AsyncClient:
    """An HTTP client for the emulator at ``url``; with ``app``, to that ASGI app in process."""
    transport = None if app is None else httpx.ASGITransport(app=app)
    return httpx.AsyncClient(base_url=url, transport=transport, timeout=timeout)


async def run_all(
    flows: list[Flow],
    http: httpx.AsyncClient,
    admin_token: str | None = None,
    *,
    parallel: int = 1,
    keep: bool = False,
    url: str | None = None,
    on_step: OnStep | None = None,
    on_done: Any = None,
) -> list[Report]:
    """Each flow's report, in the order given; ``on_done(report)`` hears each as it ends."""
    runner = Runner(http, admin_token, keep=keep, on_step=on_step, url=url)
    gate = asyncio.Semaphore(max(1, parallel))

    async def one(flow: Flow) -> Report:
        async with gate:
            report = await runner.run(flow, run_id())
        if on_done is not None:
            on_done(report)
        return report

    return list(await asyncio.gather(*(one(flow) for flow in flows)))
