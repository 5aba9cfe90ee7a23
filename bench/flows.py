"""Issue 27's figures: the shipped flow library through the CLI (``flow run flows/
--parallel 4``), one short flow (5 steps) through the runner, and a recorded 50-step session
exported as a flow file (and replayed green)."""

from __future__ import annotations

import statistics
import subprocess
import sys
import time
from pathlib import Path

from bench.client import BenchError, call, expect
from bench.figures import new_merchant, progress
from bench.plan import Plan
from bench.procs import Server
from bench.report import Target, Timing
from bench.serving import HOST

ROOT = Path(__file__).resolve().parent.parent
LIBRARY = ROOT / "flows"
QUICK_FLOW = LIBRARY / "payout-settles-after-three-days.yaml"

LIBRARY_RUN = "the flow library, flow run --parallel 4"
SHORT_FLOW = "a short flow (5 steps), fresh merchant each"
EXPORT = "a recorded 50-step session exported as a flow"

SHORT = """
name: short
merchant: {clock: {mode: frozen, now: "2026-03-02T08:00:00Z"}}
steps:
  - call: {api: gateway, method: POST, path: /api/v1/purchases/, save: p, expect_status: 201,
           body: {brand_id: "${merchant.brand_id}", client: {email: p@example.com},
                  purchase: {products: [{name: x, price: 100}]}}}
  - act: {pay: "${p.id}"}
  - advance: 1d
  - expect: [{transition: {object_id: "${p.id}", status: paid}}]
  - call: {api: gateway, method: GET, path: "/api/v1/purchases/${p.id}/", expect_status: 200}
"""


def _url(server: Server) -> str:
    return f"http://{HOST}:{server.port}"


def _median(name: str, times: list[float], note: str) -> Timing:
    """The median of ``times`` against issue 27's 100 ms."""
    return Timing(
        name=name,
        runs=len(times),
        errors=0,
        label="median",
        value_ms=statistics.median(times),
        target=Target("<=", 100, "ms"),
        judged_as="median",
        detail=f"max {max(times):.1f} ms; {note}",
    )


def library(plan: Plan, server: Server) -> Timing:
    """Every flow of ``flows/`` through the CLI, four at a time, in one process (its start
    included, as a CI job pays it); the quick plan runs one flow."""
    progress("flows: the library through flow run --parallel 4")
    target = [str(LIBRARY)] if plan.flow_library else [str(QUICK_FLOW)]
    command = [sys.executable, "-m", "emulator", "flow", "run", *target, "--parallel", "4"]
    started = time.perf_counter()
    done = subprocess.run(
        [*command, "--url", _url(server)], capture_output=True, text=True, timeout=300, check=False
    )
    ms = (time.perf_counter() - started) * 1000
    if done.returncode != 0:
        raise BenchError(f"flow run exited {done.returncode}: {(done.stdout + done.stderr)[-800:]}")
    count = len(list(LIBRARY.glob("*.yaml"))) if plan.flow_library else 1
    return Timing(
        name=LIBRARY_RUN,
        runs=count,
        errors=0,
        label="total",
        value_ms=ms,
        target=Target("<=", 10_000, "ms"),
        judged_as="",
        detail=f"{count} flows, all passed; the CLI's start included",
        extra={"flows": count},
    )


def short_flow(plan: Plan, server: Server) -> Timing:
    """One 5-step flow (create, pay, advance a day, expect, read) through the runner over HTTP,
    each run on a merchant of its own made and deleted by the run: the median run."""
    from emulator.testing.flows import load_flow, run_flow  # the emulator's own runner

    progress("flows: a short flow")
    flow = load_flow(SHORT)
    run_flow(flow, url=_url(server))  # warm-up
    times = []
    for _ in range(plan.flow_runs):
        started = time.perf_counter()
        run_flow(flow, url=_url(server))  # raises when it fails
        times.append((time.perf_counter() - started) * 1000)
    return _median(SHORT_FLOW, times, "the merchant's creation and deletion included")


def recorded_export(plan: Plan, server: Server) -> Timing:
    """A merchant's session of 50 steps (25 purchases created, 25 paid) exported as a flow
    file, timed (the median of several exports); the file then replays green."""
    from emulator.testing.flows import run_flow

    progress("flows: a recorded session exported")
    merchant = new_merchant(server)
    key = {"Authorization": f"Bearer {merchant['api_key']}"}
    for i in range(25):
        body = {"brand_id": merchant["brand_id"], "client": {"email": f"p{i}@example.com"},
                "purchase": {"products": [{"name": "x", "price": 100 + i}]}}  # fmt: skip
        made = expect(call(server.port, "POST", "/api/v1/purchases/", body, key), 201, "purchase")
        pay = f"/_emulator/purchases/{made.json()['id']}/pay"
        expect(call(server.port, "POST", pay, {}), 200, "pay")
    path = f"/_emulator/merchants/{merchant['company_id']}/flow.yaml"
    replies = [expect(call(server.port, "GET", path), 200, "flow.yaml") for _ in range(5)]
    run_flow(replies[-1].body.decode(), url=_url(server))  # raises when the replay fails
    times = [reply.ms for reply in replies]
    return _median(EXPORT, times, "the file replayed green on a fresh merchant")
