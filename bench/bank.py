"""The bank interface's figures: EFT collection create throughput, and a clock advance over a
day with many pending collections."""

from __future__ import annotations

import base64

from bench import load
from bench.client import BenchError, call, expect
from bench.figures import JSON, SETUP_SECONDS, measure_load, new_merchant, progress
from bench.load import Spec
from bench.plan import Plan
from bench.procs import Server
from bench.report import Load, Target, Timing

CREATE_EFT = "emulator create-eft-collection"
PENDING_ADVANCE = "advance a day, pending collections"
MONDAY = "2026-01-05T08:00:00Z"  # 10:00 SAST on a business day: SAMEDAY lands at 18:00 SAST


def _token(server: Server, merchant: dict[str, str]) -> dict[str, str]:
    basic = base64.b64encode(f"{merchant['client_id']}:{merchant['client_secret']}".encode())
    reply = expect(
        call(
            server.port,
            "POST",
            "/oauth2/token",
            b"grant_type=client_credentials",
            headers={
                "Authorization": f"Basic {basic.decode()}",
                "Content-Type": "application/x-www-form-urlencoded",
            },
        ),
        200,
        "issue a token",
    )
    return {"Authorization": f"Bearer {reply.json()['access_token']}", **JSON}


def collection_body(profile: str, tag: str, service: str = "ONEDAY") -> str:
    """An EFT collection whose externalReference is unique per request ({n})."""
    return (
        '{"debtor": {"accountNumber": "62000000001", "branchCode": "250655"}, '
        f'"amountCents": 12345, "serviceType": "{service}", "profileCode": "{profile}", '
        f'"externalReference": "{tag}-{{n}}", "abbreviatedName": "BENCH"}}'
    )


def eft_collection_creates(plan: Plan, server: Server) -> list[Load]:
    """POST /v2/collection/eft (a mandate and a collection each) at each concurrency."""
    merchant = new_merchant(server)
    headers = _token(server, merchant)
    profile = str(merchant["profiles"][0]["profileCode"])
    loads = []
    for c in plan.concurrencies:
        spec = Spec(
            port=server.port,
            method="POST",
            path="/v2/collection/eft",
            headers=headers,
            body=collection_body(profile, f"c{c}"),
            expect=201,
            concurrency=c,
            requests=plan.max_requests,
            seconds=plan.seconds,
            warmup=plan.warmup,
        )
        loads.append(measure_load(CREATE_EFT, server, spec))
    return loads


def advance_with_pending(plan: Plan, server: Server) -> Timing:
    """Freeze on a Monday morning, create ``pending_collections`` SAMEDAY collections (one
    outcome job each, due at 18:00 SAST), then time advancing the clock one day."""
    expect(call(server.port, "POST", "/_emulator/clock/freeze", {"at": MONDAY}), 200, "freeze")
    merchant = new_merchant(server)
    headers = _token(server, merchant)
    profile = str(merchant["profiles"][0]["profileCode"])
    count = plan.pending_collections
    progress(f"creating {count:,} pending EFT collections")
    created = load.measure(
        Spec(
            port=server.port,
            method="POST",
            path="/v2/collection/eft",
            headers=headers,
            body=collection_body(profile, "pending", "SAMEDAY"),
            expect=201,
            concurrency=min(64, count),
            requests=count,
            seconds=SETUP_SECONDS,
        )
    )
    if created.errors or created.requests != count:
        raise BenchError(f"creating collections: {created.errors} errors, {created.error_samples}")
    progress("advancing the clock one day")
    reply = expect(
        call(
            server.port,
            "POST",
            "/_emulator/clock/advance",
            {"seconds": 86_400},
            timeout=SETUP_SECONDS,
        ),
        200,
        "advance the clock",
    )
    jobs = int(reply.json()["jobs_run"])
    short = jobs < count
    return Timing(
        name=f"{PENDING_ADVANCE} ({count:,})",
        runs=1,
        errors=int(short),
        label="total",
        value_ms=reply.ms,
        target=Target("<=", 800, "ms"),
        judged_as="",
        detail=f"{jobs:,} jobs run (each completes a collection: statement, ledger, event); "
        f"created at {created.rps:,.0f} req/s",
        extra={"jobs_run": jobs, "create_rps": created.rps},
        error_samples=[f"only {jobs} of {count} outcome jobs ran"] if short else [],
    )
