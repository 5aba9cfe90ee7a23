"""The delivery figure: signed webhooks per second from the emulator to a local receiver."""

from __future__ import annotations

import time
from datetime import datetime

from bench import load
from bench.client import BenchError, call, expect
from bench.figures import JSON, SETUP_SECONDS, bearer, new_merchant, progress
from bench.load import Spec
from bench.plan import Plan
from bench.procs import Server
from bench.report import Target, Timing

DELIVERIES = "deliveries per second to a local receiver"
CARD = (
    '{"card_number": "4444333322221111", "cardholder_name": "Bench", "expiry_month": "12",'
    ' "expiry_year": "99"}'
)
WAIT_SECONDS = 120.0


def _payout_body(brand_id: str) -> str:
    return (
        '{"client": {"email": "payee-{n}@bench.example"}, "payment": {"amount": 100,'
        ' "currency": "ZAR"}, "brand_id": "' + brand_id + '"}'
    )


def _execution_paths(server: Server, auth: dict[str, str], count: int) -> list[str]:
    paths: list[str] = []
    page = 1
    while len(paths) < count:
        reply = expect(
            call(server.port, "GET", f"/api/v1/payouts/?page_size=100&page={page}", headers=auth),
            200,
            "list payouts",
        )
        results = reply.json()["results"]
        if not results:
            break
        for payout in results:
            url: str = payout["execution_url"]
            paths.append(url[url.index("/payouts/") :])
        page += 1
    return paths[:count]


def _attempts(server: Server, merchant_id: str) -> list[dict[str, object]]:
    found: list[dict[str, object]] = []
    before = ""
    while True:
        reply = expect(
            call(
                server.port,
                "GET",
                f"/_emulator/deliveries?merchant={merchant_id}&limit=1000{before}",
            ),
            200,
            "list deliveries",
        )
        page = reply.json()["deliveries"]
        found += page
        if len(page) < 1000:
            return found
        before = f"&before={page[-1]['id']}"


def deliveries(plan: Plan, server: Server, receiver: Server) -> Timing:
    """``plan.deliveries`` payouts executed at once (one payout.success each), each delivered
    to a webhook on a receiver in its own process; the rate is measured on the attempts'
    own times (first to last). Attempts that keep pace with the executions emitting their
    events make it the lower of the two: the executions' own rate is printed beside it."""
    count = plan.deliveries
    merchant = new_merchant(server)
    auth = bearer(merchant)
    hook = {
        "title": "bench",
        "events": ["payout.success"],
        "callback": f"http://127.0.0.1:{receiver.port}/hook",
    }
    expect(call(server.port, "POST", "/api/v1/webhooks/", hook, auth), 201, "create a webhook")
    progress(f"creating {count:,} payouts")
    created = load.measure(
        Spec(
            port=server.port,
            method="POST",
            path="/api/v1/payouts/",
            headers={**auth, **JSON},
            body=_payout_body(merchant["brand_id"]),
            expect=201,
            concurrency=min(16, count),
            requests=count,
            seconds=SETUP_SECONDS,
        )
    )
    if created.errors or created.requests != count:
        raise BenchError(f"creating payouts: {created.errors} errors, {created.error_samples}")
    paths = _execution_paths(server, auth, count)
    progress(f"executing {count:,} payouts and waiting for their webhooks")
    started = time.perf_counter()
    executed = load.measure(
        Spec(
            port=server.port,
            method="POST",
            path="{id}",
            ids=paths,
            headers=JSON,
            body=CARD,
            concurrency=min(16, count),
            requests=count,
            seconds=SETUP_SECONDS,
        )
    )
    found: list[dict[str, object]] = []
    while time.perf_counter() - started < WAIT_SECONDS:
        found = _attempts(server, merchant["company_id"])
        if len(found) >= count:
            break
        time.sleep(0.1)
    total = time.perf_counter() - started
    times = sorted(datetime.fromisoformat(str(a["at"])) for a in found)
    span = (times[-1] - times[0]).total_seconds() if len(times) > 1 else 0.0
    rate = (len(times) - 1) / span if span > 0 else 0.0
    failed = sum(1 for a in found if not a["success"])
    missing = count - len(found)
    return Timing(
        name=DELIVERIES,
        runs=len(found),
        errors=executed.errors + failed + max(0, missing),
        label="mean",
        value_ms=1000 / rate if rate else 0.0,
        target=Target(">=", 1_000, "deliveries/s"),
        judged=rate,
        judged_as="",
        detail=f"{rate:,.0f} deliveries/s ({len(found):,} signed webhooks, first to last attempt "
        f"{span * 1000:,.0f} ms; executions to last delivery {total:,.1f} s; the executions "
        f"themselves {executed.rps:,.0f}/s)",
        extra={"deliveries_per_second": rate, "span_ms": span * 1000},
        error_samples=[f"{failed} attempts failed, {missing} missing"] if failed or missing else [],
    )
