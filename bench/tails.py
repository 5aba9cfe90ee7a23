"""Latency targets read off the throughput figures: the tails a test suite feels."""

from __future__ import annotations

from bench.figures import CREATE_PURCHASE, GET_CLIENT
from bench.plan import Plan
from bench.report import Load, Target, Timing


def tails(plan: Plan, loads: list[Load]) -> list[Timing]:
    """get-client's p99 one request at a time (nothing periodic may stall a lone caller), and
    create-purchase's p99 at the highest concurrency."""
    by_key = {(x.name, x.concurrency): x for x in loads}
    wanted = (
        (GET_CLIENT, min(plan.concurrencies), 1.0),
        (CREATE_PURCHASE, plan.ratio_concurrency, 30.0),
    )
    found: list[Timing] = []
    for name, concurrency, bound in wanted:
        load = by_key.get((name, concurrency))
        if load is None:
            continue
        found.append(
            Timing(
                name=f"{name} p99, concurrency {concurrency}",
                runs=load.requests,
                errors=load.errors,
                label="p50",
                value_ms=load.p50_ms,
                p99_ms=load.p99_ms,
                target=Target("<=", bound, "ms"),
                judged=load.p99_ms,
                detail=f"{load.rps:,.0f} req/s",
            )
        )
    return found
