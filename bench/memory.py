"""In memory against a file (issue 28): create-purchase throughput of an emulator on
``--db :memory:`` (``serve --ephemeral``: no file, no WAL, no fsync, one connection) over the
same on a fresh file, both fresh servers measured the same way, alternately when repeated."""

from __future__ import annotations

import contextlib
import statistics
import sys
from pathlib import Path

from bench.figures import CREATE_PURCHASE, JSON, bearer, measure_load, new_merchant
from bench.load import Spec
from bench.plan import Plan
from bench.procs import Server, free_port, launch, start_python, wait_healthy
from bench.purchases import purchase_body
from bench.report import Load, Ratio, Target

FILE = f"{CREATE_PURCHASE}, file"
MEMORY = f"{CREATE_PURCHASE}, in memory"
RATIO = "create-purchase in memory / file"


def start_in_memory(workdir: Path) -> Server:
    port = free_port()
    argv = [sys.executable, "-m", "bench.serve_emulator", "--port", str(port), "--db", ":memory:"]
    server = launch("emulator-memory", argv, port, workdir / "emulator-memory.log")
    try:
        wait_healthy(server, "/_emulator/health")
    except BaseException:
        server.stop()
        raise
    return server


def memory_vs_file(
    plan: Plan, workdir: Path, servers: contextlib.ExitStack
) -> tuple[list[Load], Ratio]:
    on_file = start_python("emulator-file", "bench.serve_emulator", workdir, "/_emulator/health")
    servers.callback(on_file.stop)
    in_memory = start_in_memory(workdir)
    servers.callback(in_memory.stop)
    c = plan.ratio_concurrency
    runs: dict[str, list[Load]] = {FILE: [], MEMORY: []}
    for _ in range(plan.repeat):
        for name, server in ((FILE, on_file), (MEMORY, in_memory)):
            merchant = new_merchant(server)
            spec = Spec(
                port=server.port, method="POST", path="/api/v1/purchases/",
                headers={**bearer(merchant), **JSON},
                body=purchase_body(merchant["brand_id"], f"m{len(runs[name])}"), expect=201,
                concurrency=c, requests=plan.max_requests, seconds=plan.seconds,
                warmup=plan.warmup,
            )  # fmt: skip
            runs[name].append(measure_load(name, server, spec))
    loads = [sorted(runs[n], key=lambda x: x.rps)[len(runs[n]) // 2] for n in (FILE, MEMORY)]
    file_rps = statistics.median(x.rps for x in runs[FILE])
    memory_rps = statistics.median(x.rps for x in runs[MEMORY])
    value = memory_rps / file_rps if file_rps else 0.0
    return loads, Ratio(RATIO, c, value, Target(">=", 1.0))
