"""``python -m bench [--quick] [--seconds S] [--repeat N] [--json PATH] [--state]
[--results PATH]``: every figure, printed (``--state``: the large-state ones too), then written
to bench/RESULTS.md (a ``--quick`` run writes no page unless ``--results`` says where).

Exit status: 0 when every response was the expected one, 1 when some were not (the figures
are then suspect; the report lists them), 2 when the harness could not run, 130 on Ctrl-C.
Targets that are missed do not change the exit status: they are printed as MISS.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import http.client
import importlib.util
import os
import platform
import signal
import sqlite3
import sys
import tempfile
from collections.abc import Sequence
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from types import FrameType

from bench import (
    advance_load,
    bank,
    bank_pages,
    billing,
    clocks,
    deliveries,
    expectations,
    figures,
    flows,
    large,
    memory,
    pertest,
    purchases,
    results,
    startup,
    tails,
)
from bench.client import BenchError
from bench.figures import progress
from bench.plan import FULL, QUICK, Plan
from bench.procs import Server, start_python
from bench.report import Report, render
from bench.serving import SERVER


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="tiny counts (the smoke test)")
    parser.add_argument(
        "--seconds", type=float, help="recording time of each throughput measurement"
    )
    parser.add_argument(
        "--repeat",
        type=int,
        default=1,
        help="run each throughput measurement N times (interleaved) and keep the median",
    )
    parser.add_argument("--json", type=Path, help="also write the figures as JSON here")
    parser.add_argument(
        "--state",
        action="store_true",
        help="also the large-state figures (a reset with 200,000 clients stored: minutes)",
    )
    parser.add_argument(
        "--results",
        type=Path,
        help="write the results page here (default: bench/RESULTS.md, none for --quick)",
    )
    return parser


def _terminate(signum: int, frame: FrameType | None) -> None:
    raise SystemExit(128 + signum)  # unwinds through every finally: the servers are stopped


def _journal_mode(db: Path | None) -> str:
    if db is None:
        return "?"
    with contextlib.closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True)) as conn:
        return str(conn.execute("PRAGMA journal_mode").fetchone()[0])


def _environment(plan: Plan) -> dict[str, str]:
    versions = ", ".join(
        f"{name} {metadata.version(name)}"
        for name in ("starlette", "uvicorn", "uvloop", "httptools", "aiosqlite", "msgspec")
    )
    return {
        "machine": f"{platform.system()} {platform.machine()}, {os.cpu_count()} cores, "
        f"load average {os.getloadavg()[0]:.2f} at start",
        "python": f"{platform.python_implementation()} {platform.python_version()}",
        "packages": versions,
        "servers": f"one process each; {SERVER}; 127.0.0.1",
        "emulator": "bench/serve_emulator.py: create_app(Runtime(Settings(...))) on a fresh "
        "SQLite file, real clock, request journal on, serve's HTTP protocol (httptools', an "
        "answer's head and body in one write) and logging at its default level (info: the "
        "compact access log, deliveries, advances)",
        "baseline": "bench/bare.py: Starlette + aiosqlite, one connection, execute + commit per "
        "request, stdlib json, uvicorn logging at warning",
        "load generator": "own process, uvloop protocols, HTTP/1.1 keep-alive, closed loop",
        "per measurement": f"{plan.warmup} warm-up requests, then at most {plan.seconds:g} s "
        f"or {plan.max_requests:,} requests",
    }


def _auto_choice() -> str:
    """What uvicorn's "auto" loop and HTTP parser resolve to in this environment."""
    loop = "uvloop" if importlib.util.find_spec("uvloop") else "asyncio"
    parser = "httptools" if importlib.util.find_spec("httptools") else "h11"
    return f"{loop} and {parser}"


def run(plan: Plan, workdir: Path, servers: contextlib.ExitStack) -> Report:
    """Every figure, in an order where each one starts from the state it expects."""
    report = Report(environment=_environment(plan))

    def start(name: str, module: str, health: str) -> Server:
        progress(f"starting {name}")
        server = start_python(name, module, workdir, health)
        servers.callback(server.stop)
        return server

    emulator = start("emulator", "bench.serve_emulator", "/_emulator/health")
    bare = start("bare", "bench.bare", "/health")
    report.loads = figures.throughput(plan, emulator, bare)
    report.loads += purchases.throughput(plan, emulator)
    report.ratios = figures.ratios(plan, report.loads)
    report.timings += tails.tails(plan, report.loads)
    report.loads += bank.eft_collection_creates(plan, emulator)
    report.timings.append(figures.fresh_merchants(plan, emulator))
    report.timings.append(clocks.fresh_merchants_with_clock(plan, emulator))
    journal = figures.journal_entries(emulator)
    modes = f"{_journal_mode(emulator.db)} (emulator), {_journal_mode(bare.db)} (bare)"

    state = start("emulator-state", "bench.serve_emulator", "/_emulator/health")
    report.timings.append(figures.snapshot_restore(plan, state))
    report.timings.append(figures.clock_advance(plan, state))
    report.timings.append(clocks.own_clock_advance(plan, state))
    receiver = start("receiver", "bench.receiver", "/health")
    report.timings.append(deliveries.deliveries(plan, state, receiver))
    report.timings += advance_load.advance_under_load(plan, state, receiver)
    report.timings.append(clocks.far_jump(plan, state))
    report.timings.append(figures.cold_start(plan, workdir))
    report.timings.append(startup.cli_verb(plan, state))
    report.timings.append(startup.restart_with_objects(plan, workdir))
    report.timings.append(startup.soak_rss(plan, workdir))
    collections = start("emulator-collections", "bench.serve_emulator", "/_emulator/health")
    report.timings.append(bank.advance_with_pending(plan, collections))
    subscriptions = start("emulator-billing", "bench.serve_emulator", "/_emulator/health")
    report.timings.append(billing.year_of_monthly_billing(plan, subscriptions))
    isolation = start("emulator-isolation", "bench.serve_emulator", "/_emulator/health")
    report.timings += clocks.latency_isolation(plan, isolation)
    expecting = start("emulator-expect", "bench.serve_emulator", "/_emulator/health")
    report.timings.append(expectations.wake_latency(plan, expecting))
    report.timings.append(expectations.verify_over_history(plan, expecting))
    report.timings.append(expectations.wait_with_advance(plan, expecting))
    flowing = start("emulator-flows", "bench.serve_emulator", "/_emulator/health")
    report.timings.append(flows.library(plan, flowing))
    report.timings.append(flows.short_flow(plan, flowing))
    report.timings.append(flows.recorded_export(plan, flowing))
    tests = start("emulator-tests", "bench.serve_emulator", "/_emulator/health")
    report.timings += pertest.in_process(plan)
    report.timings += pertest.served(plan, tests)
    if plan.user_file:
        report.timings.append(pertest.user_file(tests))
    tests.stop()
    in_memory, ratio = memory.memory_vs_file(plan, workdir, servers)
    report.loads += in_memory
    report.ratios.append(ratio)

    if plan.state:
        big = start("emulator-large", "bench.serve_emulator", "/_emulator/health")
        report.timings.append(large.reset_with_objects(plan, big))
        big.stop()
        grown = start("emulator-growth", "bench.serve_emulator", "/_emulator/health")
        report.ratios += large.growth(plan, grown)
        grown.stop()
        pages = start("emulator-pages", "bench.serve_emulator", "/_emulator/health")
        report.timings += bank_pages.list_pages(plan, pages)
        pages.stop()

    report.environment["sqlite"] = (
        f"{sqlite3.sqlite_version}; journal_mode read back from the files: {modes}; "
        "synchronous=NORMAL on every connection of both (emulator/kernel/storage.py, "
        "bench/bare.py)"
    )
    report.notes += [
        f"request journal on: {journal:,} API requests journaled by the throughput emulator",
        "throughput figures share one emulator and one baseline, measured alternately; "
        "snapshot and clock figures use a second, fresh emulator; the pending-collections "
        "advance a third (its clock frozen on a Monday morning), the year of billing a "
        "fourth (frozen at its subscribers' first payment), the latency isolation a fifth "
        "(merchant A on its own clock, frozen at its subscribers' first payment; merchant B "
        "on the server's real clock), the expectations' figures a sixth (the waits' merchants "
        "on the server's real clock, the advancing wait's merchant on its own), the flows' a "
        "seventh",
        "merchant-clock figures: each own clock is frozen at creation; the own-clock advance "
        "issues its tokens on a merchant's own clock (on the snapshot emulator, after the "
        "server-clock advance) and advances that clock alone",
        f"ratios compare req/s at concurrency {plan.ratio_concurrency}; "
        "the fresh-merchant targets and the isolation target apply to their p99",
        "cold start runs the payments-emulator console script, whose uvicorn loop='auto' and "
        f"http='auto' pick {_auto_choice()}; the package's bytecode is written first, as "
        "pip install writes it (PYTHONDONTWRITEBYTECODE=1 would leave an editable install "
        "without it)",
    ]
    others = [x.other_cpu for x in report.loads if x.other_cpu is not None]
    if others and max(others) >= 20:
        report.notes.append(
            f"other processes used up to {max(others):.0f}% of a core during the throughput "
            f"figures (machine has {os.cpu_count()} cores): they competed with the servers and "
            "the load generator; rerun on a quiet machine before trusting small differences"
        )
    servers_run = (emulator, bare, state, collections, subscriptions, isolation, expecting, flowing)
    for server in (*servers_run, receiver):
        if server.log_tail(1):
            report.notes.append(f"{server.name} logged: {server.log_tail(5)!r}")
    return report


def main(argv: Sequence[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    args = _parser().parse_args(argv)
    plan = QUICK if args.quick else FULL
    if args.seconds is not None:
        plan = dataclasses.replace(plan, seconds=args.seconds)
    if args.repeat < 1:
        print("bench: --repeat must be at least 1", file=sys.stderr)
        return 2
    plan = dataclasses.replace(plan, repeat=args.repeat, state=args.state)
    signal.signal(signal.SIGTERM, _terminate)
    try:
        with (
            tempfile.TemporaryDirectory(prefix="payments-bench-") as tmp,
            contextlib.ExitStack() as servers,
        ):
            report = run(plan, Path(tmp), servers)
    except (BenchError, OSError, http.client.HTTPException) as exc:
        print(f"bench: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("bench: interrupted; every server was stopped", file=sys.stderr)
        return 130
    print(render(report), flush=True)
    if args.json is not None:
        report.save(args.json)
    page = args.results if args.results is not None or args.quick else results.RESULTS
    if page is not None:
        command = " ".join(["python -m bench", *argv])
        results.write(report, plan, command, datetime.now(UTC), page)
        print(f"wrote {page}", file=sys.stderr)
    return 1 if report.errors else 0


if __name__ == "__main__":
    sys.exit(main())
