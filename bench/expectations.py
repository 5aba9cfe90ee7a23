"""Figures of expectations (issue 26): how soon a wait answers after the fact it waits for,
with many waits open across merchants; a verify over a long history; a wait that steps a
merchant's own clock through a year of monthly billing."""

from __future__ import annotations

import asyncio
import statistics
import time
from datetime import datetime
from typing import Any

import msgspec

from bench import billing, load
from bench.client import BenchError, call, expect
from bench.clocks import new_merchant_with_clock
from bench.figures import JSON, SETUP_SECONDS, bearer, new_merchant, progress
from bench.load import Spec, percentile
from bench.plan import Plan
from bench.procs import Server
from bench.purchases import purchase_body
from bench.report import Target, Timing
from bench.serving import HOST

WAKE = "fact to a wait's answer"
VERIFY = "verify of 10 expectations"
ADVANCE_WAIT = "wait with advance, a year of monthly billing"
WAIT_SECONDS = 60.0  # each wait's own timeout: far more than any figure takes


def _merchant_path(merchant: dict[str, str], verb: str) -> str:
    return f"/_emulator/merchants/{merchant['company_id']}/{verb}"


def _sink_webhook(server: Server, merchant: dict[str, str], sink: str) -> None:
    """A webhook of ``merchant`` for purchase.created, to the emulator's own sink."""
    hook = {
        "title": "bench",
        "events": ["purchase.created"],
        "callback": f"http://{HOST}:{server.port}/_emulator/sink/{sink}",
    }
    reply = call(server.port, "POST", "/api/v1/webhooks/", hook, bearer(merchant))
    expect(reply, 201, "create a webhook to the sink")


def _create_purchase(server: Server, merchant: dict[str, str], tag: str) -> str:
    body = purchase_body(merchant["brand_id"], tag).replace("{n}", "1").encode()
    headers = {**bearer(merchant), **JSON}
    reply = expect(
        call(server.port, "POST", "/api/v1/purchases/", body, headers), 201, "create a purchase"
    )
    return str(reply.json()["id"])


# -- from the fact to the wait's answer ------------------------------------------------------


async def _post(port: int, path: str, body: object) -> tuple[int, Any, float]:
    """One POST on its own connection: the status, the JSON answer, and the wall-clock time
    (``time.time()``) at which its last byte was read."""
    payload = msgspec.json.encode(body)
    reader, writer = await asyncio.open_connection(HOST, port)
    try:
        writer.write(
            f"POST {path} HTTP/1.1\r\nHost: {HOST}\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(payload)}\r\n\r\n".encode()
            + payload
        )
        await writer.drain()
        head = await reader.readuntil(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        length = next(
            int(line.split(":", 1)[1])
            for line in lines
            if line.lower().startswith("content-length:")
        )
        data = await reader.readexactly(length)
        answered = time.time()
    finally:
        writer.close()
    return int(lines[0].split(" ")[1]), msgspec.json.decode(data), answered


def _open_waits(server: Server, count: int) -> None:
    """Returns once the emulator holds ``count`` waits open."""
    deadline = time.monotonic() + WAIT_SECONDS
    while time.monotonic() < deadline:
        reply = expect(call(server.port, "GET", "/_emulator/waits"), 200, "count open waits")
        if int(reply.json()["open"]) >= count:
            return
        time.sleep(0.01)
    raise BenchError(f"fewer than {count} waits opened in {WAIT_SECONDS:g} s")


def _seconds(instant: str) -> float:
    return datetime.fromisoformat(instant.replace("Z", "+00:00")).timestamp()


async def _wake(plan: Plan, server: Server) -> tuple[list[float], list[float], list[str]]:
    merchants = [new_merchant(server) for _ in range(plan.wait_merchants)]
    for n, merchant in enumerate(merchants):
        _sink_webhook(server, merchant, f"wake-{n}")
    each = max(1, plan.waits // len(merchants))
    progress(f"opening {each * len(merchants)} waits over {len(merchants)} merchants")
    waits = [
        asyncio.ensure_future(
            _post(
                server.port,
                _merchant_path(merchant, "wait"),
                {
                    "expect": [{"delivery": {"event": "purchase.created", "sink": f"wake-{n}"}}],
                    "timeout_seconds": WAIT_SECONDS,
                },
            )
        )
        for n, merchant in enumerate(merchants)
        for _ in range(each)
    ]
    await asyncio.to_thread(_open_waits, server, len(waits))

    def facts() -> None:
        for n, merchant in enumerate(merchants):
            _create_purchase(server, merchant, f"wake{n}")

    await asyncio.to_thread(facts)
    answers = await asyncio.gather(*waits)
    recorded = await asyncio.to_thread(_recorded, server, merchants)
    latencies: list[float] = []
    from_start: list[float] = []
    problems: list[str] = []
    for status, answer, answered in answers:
        if status != 200 or not answer.get("ok"):
            problems.append(f"{status}: {str(answer)[:200]}")
            continue
        match = answer["results"][0]["matches"][0]
        started = _seconds(match["at"])
        latencies.append((answered - recorded.get(match["id"], started)) * 1000)
        from_start.append((answered - started) * 1000)
    return latencies, from_start, problems


def _recorded(server: Server, merchants: list[dict[str, str]]) -> dict[int, float]:
    """Each attempt's id: when it was recorded, as near as the log says (its instant plus its
    response time: the attempt is written once its answer came)."""
    found: dict[int, float] = {}
    for merchant in merchants:
        path = f"/_emulator/deliveries?merchant={merchant['company_id']}&limit=10"
        for attempt in expect(call(server.port, "GET", path), 200, "list deliveries").json()[
            "deliveries"
        ]:
            found[int(attempt["id"])] = (
                _seconds(attempt["at"]) + (attempt.get("duration_ms") or 0) / 1000
            )
    return found


def wake_latency(plan: Plan, server: Server) -> Timing:
    """``waits`` waits open at once across ``wait_merchants`` merchants (following the
    server's real clock), each for a purchase.created delivered to its merchant's sink; then
    one purchase per merchant. Each wait's latency: from its delivery attempt recorded (the
    attempt's instant, as the answer names it, plus its response time, as the log says) to
    the answer's last byte read by the client."""
    latencies, from_start, problems = asyncio.run(_wake(plan, server))
    latencies.sort()
    from_start.sort()
    p99 = percentile(latencies, 0.99) if latencies else 0.0
    p99_start = percentile(from_start, 0.99) if from_start else 0.0
    return Timing(
        name=f"{WAKE}, {len(latencies) + len(problems)} waits over {plan.wait_merchants} merchants",
        runs=len(latencies),
        errors=len(problems),
        label="p50",
        value_ms=percentile(latencies, 0.5) if latencies else 0.0,
        p99_ms=p99,
        target=Target("<=", 20, "ms"),
        judged=p99,
        detail="from a delivery attempt recorded (its instant plus its response time) to the"
        f" wait's answer read; max {max(latencies, default=0):.1f} ms; from the attempt's start:"
        f" p99 {p99_start:.1f} ms",
        extra={"p99_ms": p99, "p99_from_start_ms": p99_start},
        error_samples=problems[:5],
    )


# -- verify over a long history --------------------------------------------------------------


def _history(plan: Plan, server: Server) -> tuple[dict[str, str], list[str]]:
    """A merchant with ``history`` purchases created (one journal entry each), each delivered
    as purchase.created to its sink: the purchases' ids."""
    merchant = new_merchant(server)
    _sink_webhook(server, merchant, "verify")
    count = plan.history
    progress(f"creating {count:,} purchases, each delivered to a sink")
    created = load.measure(
        Spec(
            port=server.port, method="POST", path="/api/v1/purchases/",
            headers={**bearer(merchant), **JSON}, body=purchase_body(merchant["brand_id"], "v"),
            expect=201, concurrency=min(16, count), requests=count, seconds=SETUP_SECONDS,
            keep_ids=True,
        )
    )  # fmt: skip
    if created.errors or created.requests != count:
        raise BenchError(f"creating purchases: {created.errors} errors, {created.error_samples}")
    delivered = {"delivery": {"event": "purchase.created", "sink": "verify"}, "count": count}
    reply = call(
        server.port,
        "POST",
        _merchant_path(merchant, "wait"),
        {"expect": [delivered], "timeout_seconds": WAIT_SECONDS},
        timeout=WAIT_SECONDS + 10,
    )
    if not expect(reply, 200, "wait for the deliveries").json()["ok"]:
        raise BenchError(f"{count} deliveries did not arrive in {WAIT_SECONDS:g} s")
    return merchant, created.ids


def ten_expectations(ids: list[str], count: int) -> list[object]:
    """What a test of a shop might say: its requests (one with a body subset), deliveries,
    events, a transition. A body subset reads the bodies of every request its method and
    path narrow to: one over all 10,000 purchases would cost more than the rest together."""
    first, last = ids[0], ids[-1]
    purchases = "/api/v1/purchases/"
    return [
        {"request": {"method": "POST", "path": purchases, "status": 201}, "count": count},
        {"request": {"method": "POST", "path": purchases + "{id}/refund/"}, "never": True},
        {"request": {"method": "POST", "path": purchases + "{id}/refund/",
                     "body": {"amount": {"any": "integer"}}}, "never": True},
        {"request": {"api": "bank"}, "never": True},
        {"delivery": {"event": "purchase.created", "sink": "verify"}, "count": count},
        {"delivery": {"event": "purchase.paid"}, "never": True},
        {"delivery": {"object_id": last, "outcome": "ok"}, "count": 1, "within": "1h"},
        {"event": {"event": "purchase.created", "object_id": first}, "count": 1},
        {"transition": {"object_id": first, "status": "created"}},
        {"event": {"event": "payout.*"}, "never": True},
    ]  # fmt: skip


def verify_over_history(plan: Plan, server: Server) -> Timing:
    """``history`` journal entries and as many deliveries of one merchant (and nothing else
    of it), then ``verify_runs`` verifies of ten expectations over them; the median."""
    merchant, ids = _history(plan, server)
    body = {"expect": ten_expectations(ids, plan.history)}
    path = _merchant_path(merchant, "verify")
    times: list[float] = []
    problems: list[str] = []
    progress(f"verifying 10 expectations {plan.verify_runs} times")
    for _ in range(plan.verify_runs):
        reply = call(server.port, "POST", path, body)
        times.append(reply.ms)
        if reply.status != 200 or not reply.json()["ok"]:
            problems.append(f"{reply.status}: {reply.body[:300]!r}")
    median = statistics.median(times)
    return Timing(
        name=f"{VERIFY} ({plan.history:,} journal entries + {plan.history:,} deliveries)",
        runs=len(times),
        errors=len(problems),
        label="median",
        value_ms=median,
        target=Target("<=", 50, "ms"),
        judged_as="",
        detail=f"max {max(times):.1f} ms over {len(times)} runs",
        error_samples=problems[:3],
    )


# -- a wait that advances a merchant's own clock ---------------------------------------------


def wait_with_advance(plan: Plan, server: Server) -> Timing:
    """One subscriber of a monthly template, its first purchase paid, on a merchant's own
    clock frozen at that instant; then one wait for the twelfth bill's purchase.paid (13 in
    all), stepping the clock from one due job to the next, up to 366 days."""
    merchant = new_merchant_with_clock(server, billing.START)
    billing.subscribe_and_pay(server, merchant, 1)
    body = {
        "expect": [
            {"event": {"event": "purchase.paid"}, "at_least": 1 + billing.BILLS_PER_SUBSCRIBER}
        ],
        "timeout_seconds": WAIT_SECONDS,
        "advance": {"up_to": {"days": 366}},
    }
    progress("waiting for a year of monthly billing, advancing the merchant's own clock")
    problems: list[str] = []
    reply = call(
        server.port, "POST", _merchant_path(merchant, "wait"), body, timeout=WAIT_SECONDS + 10
    )
    answer = reply.json() if reply.status == 200 else {}
    if not answer.get("ok"):
        problems.append(f"{reply.status}: {reply.body[:300]!r}")
    jobs = int((answer.get("advanced") or {}).get("jobs_run", 0))
    return Timing(
        name=ADVANCE_WAIT,
        runs=1,
        errors=len(problems),
        label="total",
        value_ms=reply.ms,
        target=Target("<=", 100, "ms"),
        judged_as="",
        detail=f"1 subscriber, 12 bills; {jobs} jobs run; it held at {answer.get('at')}",
        extra={"jobs_run": jobs},
        error_samples=problems,
    )
