"""Figures of the test loop (issue 32): what one typical test costs a user, setup and teardown
included, with the pytest plugin's in-process emulator and against a served one; and the
wall time of a user's file of twelve such tests (``bench/usertests/test_typical.py``) run by
pytest with ``-n 2`` against one shared server.

A typical test does what the plugin's fixtures and a test body do: a control client, a new
merchant with its own frozen clock, a sink, the merchant's gateway client, a webhook to the
sink, a purchase, its payment, an advance of one day, the webhook waited for in the sink,
then the clients closed (the fixtures' teardown). ``python -m bench.pertest [N]`` prints the
in-process figure alone (N tests), for profiling and A/B runs.
"""

from __future__ import annotations

import itertools
import statistics
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from datetime import timedelta
from pathlib import Path
from typing import NamedTuple

from bench.figures import progress
from bench.load import percentile
from bench.plan import Plan
from bench.procs import Server, start_python
from bench.report import Target, Timing
from bench.serving import HOST
from emulator.testing import Emulator, EmulatorClock, EmulatorServer, ExternalEmulator

TYPICAL = "typical test"
USER_FILE = "12-test user file, pytest -n 2, one served emulator"
ROOT = Path(__file__).resolve().parent.parent
TESTS = ROOT / "bench" / "usertests" / "test_typical.py"
WARMUP = 5  # tests run first and not counted (connections, caches, the key pool's start)
MEDIAN_MS = {"in process": 15.0, "served": 25.0}
P99_MS = 50.0
TEARDOWN_MS = 5.0  # the fixtures' teardown, at its p99
FILE_SECONDS = 120.0  # ceiling on the user file's run
HEALTH = "/_emulator/health"


STEPS = ("merchant", "webhook", "purchase", "pay", "advance", "sink", "teardown")


class Measured(NamedTuple):
    """One typical test: its whole time, its teardown's, and each step's (``STEPS``), ms."""

    total: float
    teardown: float
    steps: tuple[float, ...]


def measure(emulator: Emulator) -> Measured:
    """One typical test from its first fixture to its teardown's end (the clients closed, as
    the fixtures do), each step timed; the control client's and the gateway client's making
    count with the merchant's and the webhook's steps."""
    marks = [time.perf_counter()]
    with emulator.client() as control:
        merchant = control.new_merchant(clock="frozen")
        marks.append(time.perf_counter())
        sink = control.sink(prefix="pertest")
        with control.gateway(merchant) as gateway:
            hook = {"title": "t", "callback": sink.url, "events": ["purchase.paid"]}
            gateway.post("webhooks/", json=hook).raise_for_status()
            marks.append(time.perf_counter())
            body = {
                "client": {"email": "payer@example.com"},
                "purchase": {"products": [{"name": "Book", "price": 2500}]},
                "brand_id": merchant.brand_id,
            }
            made = gateway.post("purchases/", json=body)
            made.raise_for_status()
            marks.append(time.perf_counter())
            purchase_id = made.json()["id"]
            if control.pay(purchase_id)["status"] != "paid":
                raise AssertionError(f"purchase {purchase_id} was not paid")
            marks.append(time.perf_counter())
            EmulatorClock(control, merchant).advance(timedelta(days=1))
            marks.append(time.perf_counter())
            [message] = sink.wait_for(1)
            if message.json is None or message.json.get("id") != purchase_id:
                raise AssertionError(f"the sink received {message.body[:200]!r}")
            marks.append(time.perf_counter())
    marks.append(time.perf_counter())
    steps = tuple((after - before) * 1000 for before, after in itertools.pairwise(marks))
    return Measured((marks[-1] - marks[0]) * 1000, steps[-1], steps)


def _times(
    emulator: Emulator, runs: int, server: Server | None = None
) -> tuple[list[Measured], list[str], str]:
    """``runs`` typical tests after ``WARMUP`` ones; their problems; and the CPU they cost
    per test (this process's, the tests' and the in-process emulator's with its key pool, and
    of it the test's own thread's: its clients; and a served emulator's), which a loaded
    machine inflates less than their times."""
    for _ in range(WARMUP):
        measure(emulator)
    times: list[Measured] = []
    problems: list[str] = []
    server_before = server.cpu_seconds() if server is not None else None
    process_before, thread_before = time.process_time(), time.thread_time()
    for _ in range(runs):
        try:
            times.append(measure(emulator))
        except Exception as exc:  # a failed test is a figure's error, not the harness's
            problems.append(f"{type(exc).__name__}: {exc}")
    spent = (time.process_time() - process_before) / runs * 1000
    own = (time.thread_time() - thread_before) / runs * 1000
    cpu = f"CPU per test: this process {spent:.1f} ms (the test's thread {own:.1f} ms)"
    server_after = server.cpu_seconds() if server is not None else None
    if server_before is not None and server_after is not None:
        cpu += f", the server {(server_after - server_before) / runs * 1000:.1f} ms"
    return times, problems, cpu


def steps_detail(measured: list[Measured]) -> str:
    """Each step's median and p99 (where the median and the tail go)."""
    parts = []
    for index, step in enumerate(STEPS):
        times = sorted(m.steps[index] for m in measured)
        parts.append(f"{step} {percentile(times, 0.5):.1f}/{percentile(times, 0.99):.1f}")
    return "steps, median/p99 ms: " + ", ".join(parts)


def _timings(where: str, measured: list[Measured], problems: list[str], cpu: str) -> list[Timing]:
    """The median figure and the p99 one (each step's times in its detail), each with its
    target; and the teardown's."""
    times = [m.total for m in measured]
    teardowns = sorted(m.teardown for m in measured)
    median = statistics.median(times) if times else 0.0
    p99 = percentile(sorted(times), 0.99)
    name = f"{TYPICAL}, {where}"
    detail = (
        f"min {min(times, default=0):.1f} ms, max {max(times, default=0):.1f} ms; teardown"
        f" median {percentile(teardowns, 0.5):.2f} ms, p99 {percentile(teardowns, 0.99):.2f} ms;"
        f" {cpu}"
    )
    runs, errors, samples = len(times), len(problems), problems[:3]
    return [
        Timing(
            name=name,
            label="median",
            value_ms=median,
            p99_ms=p99,
            target=Target("<=", MEDIAN_MS[where], "ms"),
            judged=median,
            judged_as="",
            detail=detail,
            runs=runs,
            errors=errors,
            error_samples=samples,
        ),
        Timing(
            name=f"{name}, p99",
            label="p99",
            value_ms=p99,
            target=Target("<=", P99_MS, "ms"),
            judged=p99,
            judged_as="",
            detail=steps_detail(measured) if measured else "",
            runs=runs,
            errors=errors,
            error_samples=samples,
        ),
        Timing(
            name=f"{name}, teardown",
            label="p50",
            value_ms=percentile(teardowns, 0.5),
            p99_ms=percentile(teardowns, 0.99),
            target=Target("<=", TEARDOWN_MS, "ms"),
            judged=percentile(teardowns, 0.99),
            runs=runs,
            errors=errors,
        ),
    ]


def in_process(plan: Plan) -> list[Timing]:
    """Typical tests against the plugin's in-process emulator (``EmulatorServer``), in this
    process: the test and the emulator share it, as they do under pytest."""
    progress(f"{plan.typical_tests} typical tests, in process")
    with EmulatorServer() as server:
        times, problems, cpu = _times(server, plan.typical_tests)
    return _timings("in process", times, problems, cpu)


def served(plan: Plan, server: Server) -> list[Timing]:
    """Typical tests against a served emulator (``--emulator-url``)."""
    progress(f"{plan.typical_tests} typical tests, against a served emulator")
    with ExternalEmulator(f"http://{HOST}:{server.port}") as emulator:
        times, problems, cpu = _times(emulator, plan.typical_tests, server)
    return _timings("served", times, problems, cpu)


def user_file(server: Server) -> Timing:
    """``pytest -p xdist -n 2 --emulator-url URL bench/usertests/test_typical.py``: its wall
    time, pytest's start and its workers' included; each test's own time (setup, call and
    teardown: pytest's JUnit report) in the detail."""
    progress("the 12-test user file, pytest -n 2 against one served emulator")
    with tempfile.TemporaryDirectory(prefix="payments-bench-pytest-") as tmp:
        junit = Path(tmp) / "junit.xml"
        argv = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "xdist"]
        argv += ["-n", "2", "--emulator-url", f"http://{HOST}:{server.port}"]
        argv += [f"--junitxml={junit}", "-o", "junit_duration_report=total", str(TESTS)]
        started = time.perf_counter()
        done = subprocess.run(
            argv, cwd=ROOT, capture_output=True, text=True, timeout=FILE_SECONDS, check=False
        )
        wall_ms = (time.perf_counter() - started) * 1000
        each = _test_times(junit) if junit.exists() else []
    problems = [] if done.returncode == 0 else [(done.stdout + done.stderr)[-400:]]
    median = statistics.median(each) if each else 0.0
    return Timing(
        name=USER_FILE,
        runs=len(each),
        errors=len(problems),
        label="wall",
        value_ms=wall_ms,
        detail=f"each test, setup and teardown included: median {median:.1f} ms, "
        f"max {max(each, default=0):.1f} ms",
        extra={"test_median_ms": median},
        error_samples=problems,
    )


def _test_times(junit: Path) -> list[float]:
    return [float(case.get("time", 0)) * 1000 for case in ET.parse(junit).iter("testcase")]


def main(argv: list[str]) -> int:
    """``python -m bench.pertest [N] [--served]``: the in-process figures over N tests (the
    full plan's count by default); with ``--served`` also those against a served emulator and
    the user file's run."""
    from bench.plan import FULL

    counts = [arg for arg in argv if arg != "--served"]
    plan = Plan(typical_tests=int(counts[0])) if counts else FULL
    timings = in_process(plan)
    if "--served" in argv:
        with tempfile.TemporaryDirectory(prefix="payments-bench-") as workdir:
            server = start_python("emulator-tests", "bench.serve_emulator", Path(workdir), HEALTH)
            try:
                timings += served(plan, server)
                timings.append(user_file(server))
            finally:
                server.stop()
    for timing in timings:
        p99 = "" if timing.p99_ms is None else f", p99 {timing.p99_ms:.1f} ms"
        detail = f"; {timing.detail}" if timing.detail else ""
        print(
            f"{timing.name}: {timing.label} {timing.value_ms:.1f} ms{p99} ({timing.verdict})"
            + detail
        )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
