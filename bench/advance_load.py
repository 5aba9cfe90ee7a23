"""The advance-under-load figures (issue 32): a 60-second advance of the server clock, idle
and while four clients create purchases on that clock (each purchase a ``purchase.created``
webhook to a receiver in its own process: deliveries that requests served during the advance
cause). The advance's own work is the same each time: a token's expiry and the webhooks of
purchases made before it. Idle and loaded runs alternate (the machine is shared and noisy);
the figures are their medians: the advance's duration under load against idle (target: within
1 s of it), and the loading merchant's p99 meanwhile (target: ≤ 50 ms)."""

from __future__ import annotations

import statistics

from bench import load
from bench.client import Reply, call, expect
from bench.figures import JSON, SETUP_SECONDS, bearer, new_merchant, progress
from bench.load import Spec
from bench.plan import Plan
from bench.procs import Server
from bench.purchases import purchase_body
from bench.report import Target, Timing

ADVANCE_UNDER_LOAD = "60 s server-clock advance under load"
OTHERS_DURING = "others' create-purchase c4 during an advance"
CLIENTS = 4
ADVANCE = {"seconds": 60}
MARGIN_MS = 1000.0  # the "within about 1 s of what it takes idle"


def _advance(server: Server) -> Reply:
    return expect(
        call(server.port, "POST", "/_emulator/clock/advance", ADVANCE, timeout=SETUP_SECONDS),
        200,
        "advance the server clock",
    )


def advance_under_load(plan: Plan, server: Server, receiver: Server) -> list[Timing]:
    merchant = new_merchant(server)  # follows the server clock
    auth = bearer(merchant)
    hook = {
        "title": "bench",
        "events": ["purchase.created"],
        "callback": f"http://127.0.0.1:{receiver.port}/hook",
    }
    expect(call(server.port, "POST", "/api/v1/webhooks/", hook, auth), 201, "create a webhook")
    idle_ms: list[float] = []
    loaded_ms: list[float] = []
    results: list[load.Result] = []
    for run in range(plan.cold_starts):  # alternate: idle, then under load
        progress(f"60 s advance of the server clock, idle (run {run + 1})")
        idle_ms.append(_advance(server).ms)
        spec = Spec(
            port=server.port, method="POST", path="/api/v1/purchases/", headers={**auth, **JSON},
            body=purchase_body(merchant["brand_id"], f"adv{run}"), expect=201,
            concurrency=CLIENTS, requests=plan.isolation_requests, seconds=SETUP_SECONDS,
            warmup=plan.warmup,
        )  # fmt: skip
        progress(f"60 s advance of the server clock, {CLIENTS} clients creating (run {run + 1})")
        during, reply = load.measure_during(spec, lambda: _advance(server))
        loaded_ms.append(reply.ms)
        results.append(during)
    idle, loaded = statistics.median(idle_ms), statistics.median(loaded_ms)
    worst = max(results, key=lambda r: r.p99_ms)
    middle = sorted(results, key=lambda r: r.p99_ms)[len(results) // 2]
    runs = ", ".join(f"{a:.0f}/{b:.0f}" for a, b in zip(idle_ms, loaded_ms, strict=True))
    return [
        Timing(
            name=ADVANCE_UNDER_LOAD,
            runs=len(loaded_ms),
            errors=sum(r.errors for r in results),
            label="median",
            value_ms=loaded,
            target=Target("<=", MARGIN_MS, "ms over idle"),
            judged=loaded - idle,
            judged_as="over idle",
            detail=f"idle median {idle:.1f} ms; idle/loaded per run (ms): {runs}; "
            f"{CLIENTS} clients creating purchases (a webhook each) on the server clock",
            extra={"idle_ms": idle, "loaded_ms": loaded},
        ),
        Timing(
            name=OTHERS_DURING,
            runs=sum(r.requests for r in results),
            errors=sum(r.errors for r in results),
            label="p50",
            value_ms=middle.p50_ms,
            p99_ms=middle.p99_ms,
            target=Target("<=", 50, "ms"),
            judged=middle.p99_ms,
            detail=f"median run: {middle.rps:,.0f} req/s over {middle.seconds:.2f} s, "
            f"max {middle.max_ms:.1f} ms; worst run's p99 {worst.p99_ms:.1f} ms",
            extra={"rps": middle.rps, "worst_p99_ms": worst.p99_ms},
        ),
    ]
