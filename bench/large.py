"""Figures of a large state (``--state``: they take a while): what a long-lived emulator with
many objects stored pays for a reset, and what its creates and reads cost as state grows."""

from __future__ import annotations

from bench import load
from bench.client import BenchError, call, expect
from bench.figures import JSON, bearer, create_objects, email_body, new_merchant, progress
from bench.plan import Plan
from bench.procs import Server
from bench.purchases import purchase_body
from bench.report import Ratio, Target, Timing

RESET = "reset with objects stored"
RESET_TARGET = Target("<=", 500, "ms")
GROWTH = "stored / few"  # the growth ratios' names end so
GROWTH_TARGET = Target(">=", 0.9)


def reset_with_objects(plan: Plan, server: Server) -> Timing:
    """``plan.reset_objects`` clients stored (one merchant), then ``POST /_emulator/reset``."""
    count = plan.reset_objects
    progress(f"creating {count:,} clients, then resetting")
    create_objects(server, "/api/v1/clients/", bearer(new_merchant(server)), count, "reset")
    reply = expect(call(server.port, "POST", "/_emulator/reset", timeout=120), 200, "reset")
    after = expect(call(server.port, "GET", "/_emulator/merchants"), 200, "list merchants")
    left = len(after.json()["merchants"])
    return Timing(
        name=f"{RESET} ({count:,} clients)",
        runs=1,
        errors=0 if left == 1 else 1,
        label="total",
        value_ms=reply.ms,
        target=RESET_TARGET,
        judged_as="",
        detail=f"{left} merchant left (the default)",
        error_samples=[] if left == 1 else [f"{left} merchants left after the reset"],
    )


def growth(plan: Plan, server: Server) -> list[Ratio]:
    """create-client and get-client at the ratio concurrency on a fresh merchant, then again
    once ``plan.growth_objects`` clients and as many purchases (each with a client of its own)
    are stored for that merchant: the later req/s over the first (target >= 0.9)."""
    merchant = new_merchant(server)
    auth = bearer(merchant)
    c = plan.ratio_concurrency
    ids = create_objects(server, "/api/v1/clients/", auth, plan.read_objects, "grow-read")

    def rates(tag: str) -> tuple[float, float]:
        shared = {"port": server.port, "concurrency": c, "requests": plan.max_requests,
                  "seconds": plan.seconds, "warmup": plan.warmup}  # fmt: skip
        create = load.Spec(method="POST", path="/api/v1/clients/", headers={**auth, **JSON},
                           body=email_body(tag), expect=201, **shared)  # fmt: skip
        read = load.Spec(method="GET", path="/api/v1/clients/{id}/", headers=auth, ids=ids,
                         **shared)  # fmt: skip
        made, got = load.measure(create), load.measure(read)
        if made.errors or got.errors:
            raise BenchError(f"growth {tag}: {made.error_samples or got.error_samples}")
        return made.rps, got.rps

    progress(f"create-client and get-client at concurrency {c}, few objects stored")
    before = rates("grow-before")
    count = plan.growth_objects
    progress(f"storing {count:,} clients and {count:,} purchases")
    create_objects(server, "/api/v1/clients/", auth, count, "grow")
    purchases = load.Spec(
        port=server.port, method="POST", path="/api/v1/purchases/", headers={**auth, **JSON},
        body=purchase_body(merchant["brand_id"], "grow"), expect=201, concurrency=min(64, count),
        requests=count, seconds=600,
    )  # fmt: skip
    stored = load.measure(purchases)
    if stored.errors or stored.requests != count:
        raise BenchError(f"storing {count} purchases: {stored.requests} answered")
    progress(f"create-client and get-client at concurrency {c}, {count:,} of each stored")
    after = rates("grow-after")
    stored_label = growth_label(plan)
    return [
        Ratio(f"create-client, {stored_label}", c, after[0] / before[0], GROWTH_TARGET),
        Ratio(f"get-client, {stored_label}", c, after[1] / before[1], GROWTH_TARGET),
    ]


def growth_label(plan: Plan) -> str:
    count = plan.growth_objects
    return f"{count:,} clients + {count:,} purchases {GROWTH}"
