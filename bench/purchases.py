"""Purchase figures: create-purchase and pay-purchase throughput on the emulator.

Pay goes through the control plane (``POST /_emulator/purchases/{id}/pay``, the default test
card): what a test suite does after each create. Each purchase is paid once, so a pay
measurement records at most as many requests as the create measurement before it made.
"""

from __future__ import annotations

from bench.figures import (
    CREATE_PURCHASE,
    JSON,
    bearer,
    load_of,
    measure_cpu,
    measure_load,
    new_merchant,
    progress,
)
from bench.load import Spec
from bench.plan import Plan
from bench.procs import Server
from bench.report import Load

PAY_PURCHASE = "emulator pay-purchase"


def purchase_body(brand_id: str, tag: str) -> str:
    return (
        '{"client": {"email": "' + tag + '-{n}@bench.example"}, "brand_id": "' + brand_id + '",'
        ' "purchase": {"currency": "ZAR", "products": [{"name": "Bench", "price": 1000}]}}'
    )


def throughput(plan: Plan, emulator: Server) -> list[Load]:
    """At each concurrency: create purchases for the recording time, then pay those."""
    merchant = new_merchant(emulator)
    headers = {**bearer(merchant), **JSON}
    out: list[Load] = []
    for c in plan.concurrencies:
        create = Spec(
            port=emulator.port, method="POST", path="/api/v1/purchases/", headers=headers,
            body=purchase_body(merchant["brand_id"], f"p{c}"), expect=201, concurrency=c,
            requests=plan.max_requests, seconds=plan.seconds, warmup=plan.warmup, keep_ids=True,
        )  # fmt: skip
        progress(f"{CREATE_PURCHASE} at concurrency {c}")
        result, cpu = measure_cpu(emulator, create)
        out.append(load_of(CREATE_PURCHASE, create, result, cpu))
        ids = result.ids
        pay = Spec(
            port=emulator.port, method="POST", path="/_emulator/purchases/{id}/pay", ids=ids,
            expect=200, concurrency=min(c, max(1, len(ids))), requests=len(ids),
            seconds=plan.seconds, warmup=0,
        )  # fmt: skip
        out.append(measure_load(PAY_PURCHASE, emulator, pay))
    return out
