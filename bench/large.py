"""Figures of a large state (``--state``: they take a while): what a long-lived emulator with
many objects stored pays for a reset."""

from __future__ import annotations

from bench.client import call, expect
from bench.figures import bearer, create_objects, new_merchant, progress
from bench.plan import Plan
from bench.procs import Server
from bench.report import Target, Timing

RESET = "reset with objects stored"


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
        target=Target("<=", 500, "ms"),
        judged_as="",
        detail=f"{left} merchant left (the default)",
        error_samples=[] if left == 1 else [f"{left} merchants left after the reset"],
    )
