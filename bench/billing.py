"""The billing engine's figure: one clock advance over a year of monthly billing for many
subscribers (DESIGN.md "Time": the cost follows the jobs, not the span)."""

from __future__ import annotations

from bench import load
from bench.client import BenchError, Reply, call, expect
from bench.figures import JSON, SETUP_SECONDS, bearer, create_objects, new_merchant, progress
from bench.load import Spec
from bench.plan import Plan
from bench.procs import Server
from bench.report import Target, Timing

YEAR_OF_BILLING = "year of monthly billing"
START = "2026-01-05T09:00:00Z"  # the subscriptions' anchor: bills fall on the 5th at 00:00 UTC
YEAR_SECONDS = 365 * 86_400
BILLS_PER_SUBSCRIBER = 12  # 2026-02-05 .. 2027-01-05
TEMPLATES = "/api/v1/billing_templates/"
YEAR_TARGET = Target("<=", 2_500, "ms")  # issue 32: the year on a server doing nothing else


def _template(server: Server, headers: dict[str, str], brand_id: str) -> str:
    body = {
        "purchase": {"currency": "ZAR", "products": [{"name": "Bench plan", "price": 9900}]},
        "is_subscription": True,
        "brand_id": brand_id,
    }
    reply = expect(call(server.port, "POST", TEMPLATES, body, headers), 201, "create a template")
    return str(reply.json()["id"])


def _subscribe(
    server: Server, headers: dict[str, str], template: str, clients: list[str]
) -> list[str]:
    """add_subscriber for each client, one at a time; the ids of their first purchases."""
    path = f"{TEMPLATES}{template}/add_subscriber/"
    purchases = []
    for client_id in clients:
        reply = expect(
            call(server.port, "POST", path, {"client_id": client_id}, headers),
            200,
            "add_subscriber",
        )
        purchases.append(str(reply.json()["purchase"]["id"]))
    return purchases


def _pay(server: Server, purchases: list[str]) -> None:
    """Pay every first purchase through the control plane (the default test card)."""
    result = load.measure(
        Spec(
            port=server.port,
            method="POST",
            path="/_emulator/purchases/{id}/pay",
            ids=purchases,
            expect=200,
            concurrency=min(64, len(purchases)),
            requests=len(purchases),
            seconds=SETUP_SECONDS,
        )
    )
    if result.errors or result.requests != len(purchases):
        raise BenchError(f"paying first purchases: {result.errors} errors, {result.error_samples}")


def _cycles(server: Server, headers: dict[str, str], template: str) -> list[int]:
    """number_of_billing_cycles_passed of every subscriber of the template."""
    passed: list[int] = []
    page = 1
    while True:
        reply = expect(
            call(server.port, "GET", f"{TEMPLATES}{template}/clients/?page={page}&page_size=100",
                 headers=headers),
            200,
            "list the subscribers",
        )  # fmt: skip
        body = reply.json()
        passed += [int(x["number_of_billing_cycles_passed"]) for x in body["results"]]
        if body["next"] is None:
            return passed
        page += 1


def subscribe_and_pay(
    server: Server, merchant: dict[str, str], count: int
) -> tuple[dict[str, str], str]:
    """A monthly template of ``merchant`` with ``count`` subscribers, each first purchase paid
    (at the merchant's instant): the merchant's JSON headers and the template's id."""
    headers = {**bearer(merchant), **JSON}
    template = _template(server, headers, merchant["brand_id"])
    progress(f"subscribing {count:,} clients to a monthly template")
    clients = create_objects(server, "/api/v1/clients/", bearer(merchant), count, "subscriber")
    _pay(server, _subscribe(server, headers, template, clients))
    return headers, template


def billed(
    name: str,
    server: Server,
    headers: dict[str, str],
    template: str,
    count: int,
    advance: Reply,
    target: Target | None = YEAR_TARGET,
) -> Timing:
    """The figure of a year's advance over ``count`` subscribers of ``template``: its time, and
    an error for each subscriber not billed all 12 months."""
    jobs = int(advance.json()["jobs_run"])
    passed = _cycles(server, headers, template)
    bills = sum(passed) - len(passed)  # each subscriber's first cycle is the purchase paid above
    expected = count * BILLS_PER_SUBSCRIBER
    short = [n for n in passed if n != 1 + BILLS_PER_SUBSCRIBER]
    rate = bills / (advance.ms / 1000) if advance.ms > 0 else 0.0
    return Timing(
        name=name,
        runs=1,
        errors=len(short) + abs(count - len(passed)),
        label="total",
        value_ms=advance.ms,
        target=target,
        judged_as="",
        detail=f"{bills:,} bills charged and paid = {rate:,.0f} bills/s; {jobs:,} jobs run",
        extra={"bills": bills, "bills_per_second": rate, "jobs_run": jobs},
        error_samples=[f"{bills} of {expected} bills paid; {len(short)} subscribers short"]
        if bills != expected or short
        else [],
    )


def year_of_monthly_billing(plan: Plan, server: Server) -> Timing:
    """Freeze the clock, subscribe ``subscribers`` clients to a monthly template and pay each
    first purchase, then time one advance of 365 days (12 charges per subscriber)."""
    expect(call(server.port, "POST", "/_emulator/clock/freeze", {"at": START}), 200, "freeze")
    merchant = new_merchant(server)
    count = plan.subscribers
    headers, template = subscribe_and_pay(server, merchant, count)
    progress("advancing the clock 365 days over monthly billing")
    reply = expect(
        call(
            server.port,
            "POST",
            "/_emulator/clock/advance",
            {"seconds": YEAR_SECONDS},
            timeout=SETUP_SECONDS,
        ),
        200,
        "advance the clock",
    )
    return billed(
        f"{YEAR_OF_BILLING} ({count:,} subscribers)", server, headers, template, count, reply
    )
