"""Flows from Python: ``run_flow(path_or_text, client=...)`` runs one against the client's
emulator and returns its report, raising ``AssertionError`` with the step report when it
fails (``emulator.testing.flow_items`` makes flow files pytest items).

    from emulator.testing import run_flow

    def test_payout_story(emulator_client):
        report = run_flow("flows/payout-settles-after-three-days.yaml", client=emulator_client)
        assert report.merchant is not None
"""

from __future__ import annotations

import asyncio
import concurrent.futures
from pathlib import Path
from typing import Any

from emulator.flows import batch, library
from emulator.flows.model import Flow
from emulator.flows.parse import parse
from emulator.flows.report import Report, text

FLOW_SUFFIXES = library.SUFFIXES


def served_routes() -> dict[str, list[tuple[str, str]]]:
    from emulator.serving.app import route_table  # the app's modules: only when flows run

    return library.routes_of(route_table())


def load_flow(path_or_text: str | Path) -> Flow:
    """A flow from a file (a ``Path``, or a string naming a file) or from its YAML text;
    ``FlowError`` (a ValueError) naming the line, column and key path of its first error."""
    routes = served_routes()
    if isinstance(path_or_text, Path) or (
        "\n" not in path_or_text and path_or_text.endswith(FLOW_SUFFIXES)
    ):
        return library.read(Path(path_or_text), routes)
    return parse(path_or_text, routes)


def _token(client: Any) -> str | None:
    token = getattr(client, "admin_token", None)
    if token:
        return str(token)
    http = getattr(client, "http", None)
    header = str(http.headers.get("Authorization", "")) if http is not None else ""
    return header.removeprefix("Bearer ") or None


def run_flow(
    path_or_text: str | Path | Flow,
    client: Any = None,
    *,
    url: str | None = None,
    admin_token: str | None = None,
    keep: bool = False,
    check: bool = True,
) -> Report:
    """Run one flow on a fresh merchant of the emulator of ``client`` (an ``EmulatorClient``,
    or an ``Emulator``: anything with a ``url``) or at ``url``. Its report; with ``check``
    (the default) an ``AssertionError`` holding the step report when it failed."""
    flow = path_or_text if isinstance(path_or_text, Flow) else load_flow(path_or_text)
    base = url or getattr(client, "url", None)
    if base is None:
        raise ValueError("run_flow needs client= (an EmulatorClient or Emulator) or url=")
    token = admin_token or (_token(client) if client is not None else None)

    async def go() -> Report:
        async with batch.client(str(base)) as http:
            [report] = await batch.run_all([flow], http, token, keep=keep)
            return report

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        report = asyncio.run(go())
    else:  # called from async code: the run gets a loop of its own, in a thread
        with concurrent.futures.ThreadPoolExecutor(1) as pool:
            report = pool.submit(asyncio.run, go()).result()
    if check and not report.passed:
        raise AssertionError(text(report))
    return report
