"""How much work one run does: the full plan, and the tiny one ``--quick`` uses."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Plan:
    seconds: float = 3.0  # recording time of each throughput measurement, at most
    max_requests: int = 100_000  # recorded requests of each throughput measurement, at most
    warmup: int = 300  # requests sent before each throughput measurement records
    concurrencies: tuple[int, ...] = (1, 64)
    repeat: int = 1  # runs of each throughput measurement; the report keeps the median one
    read_objects: int = 1_000  # clients / rows created first for the read figures
    merchants: int = 200  # sequential POST /_emulator/merchants
    snapshot_objects: int = 10_000
    restores: int = 5
    cold_starts: int = 3
    tokens: int = 2_000  # each schedules one job the clock advance then runs
    advance_seconds: int = 90_000
    pending_collections: int = 10_000  # EFT collections pending when the clock advances a day
    deliveries: int = 1_000  # payouts executed, each delivering one signed webhook
    subscribers: int = 1_000  # monthly subscribers billed for a year in one clock advance
    isolation_requests: int = 200_000  # ceiling of B's requests during A's advance (isolation)
    state: bool = False  # --state: the large-state figures too
    reset_objects: int = 200_000  # clients stored when the reset figure resets
    page_objects: int = 100_000  # mandates, collections, events stored for the v2 page figures
    growth_objects: int = 100_000  # clients and purchases stored for the state-growth ratios
    waits: int = 200  # waits open at once when their facts happen (the wake-up figure)
    wait_merchants: int = 50  # the merchants those waits are spread over
    history: int = 10_000  # journal entries and deliveries of the merchant a verify reads
    verify_runs: int = 20  # verifies timed over that history (the median is the figure)
    flow_library: bool = True  # the whole flows/ library through the CLI (else one flow)
    flow_runs: int = 20  # runs of the short flow (the median is the figure)
    typical_tests: int = 200  # typical tests timed, in process and against a served emulator
    user_file: bool = True  # run the 12-test user file under pytest -n 2 (seconds: not --quick)
    cli_runs: int = 7  # `payments-emulator clock` runs against a served emulator (median)
    restart_objects: int = 100_000  # clients stored in the file the restart figure reopens
    restarts: int = 3
    soak_seconds: float = 120.0  # the mixed traffic of bench.soak before RSS is read
    soak_workers: int = 6

    @property
    def ratio_concurrency(self) -> int:
        return max(self.concurrencies)


FULL = Plan()

QUICK = Plan(
    seconds=0.25,
    max_requests=400,
    warmup=20,
    read_objects=50,
    merchants=20,
    snapshot_objects=200,
    restores=3,
    cold_starts=1,
    tokens=50,
    pending_collections=50,
    deliveries=30,
    subscribers=20,
    isolation_requests=20_000,
    reset_objects=200,
    page_objects=1_000,
    growth_objects=200,
    waits=20,
    wait_merchants=5,
    history=100,
    verify_runs=3,
    flow_library=False,
    flow_runs=3,
    typical_tests=10,
    user_file=False,
    cli_runs=2,
    restart_objects=200,
    restarts=1,
    soak_seconds=2.0,
    soak_workers=2,
)
