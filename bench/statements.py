"""``python -m bench.statements [--collections N] [--subscribers N]``: SQL statements the one
writer runs per job, counted with SQLite's trace callback on the write connection, for the two
clock-advance figures (a day over pending EFT collections, a year of monthly billing).

In process, on a fresh file, through the real app (httpx's ASGI transport): a cost per job that
does not depend on how busy the machine is. Only the advance is counted, not the setup.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import collections
import re
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import httpx

from bench.bank import MONDAY
from bench.billing import START, TEMPLATES, YEAR_SECONDS


def _shape(sql: str) -> str:
    """The statement without its values (the trace callback sees them bound)."""
    return " ".join(re.sub(r"\b\d+\b", "?", re.sub(r"[xX]?'[^']*'", "?", sql)).split())


class Counter:
    def __init__(self) -> None:
        self.kinds: collections.Counter[str] = collections.Counter()
        self.ms = 0.0  # the advance, counting included

    def __call__(self, sql: str) -> None:
        words = sql.split(None, 3)
        kind = words[0].upper() if words else "?"
        if kind in ("INSERT", "UPDATE", "DELETE", "SELECT", "REPLACE"):
            self.kinds[_shape(sql)[:90]] += 1
        else:
            self.kinds[kind] += 1

    @property
    def total(self) -> int:
        return sum(self.kinds.values())


async def _advance(rt: Any, http: httpx.AsyncClient, seconds: int) -> tuple[int, Counter]:
    counter = Counter()
    conn = rt.db._writer_conn._conn
    conn.set_trace_callback(counter)
    started = time.perf_counter()
    try:
        reply = await http.post("/_emulator/clock/advance", json={"seconds": seconds})
    finally:
        conn.set_trace_callback(None)
    counter.ms = (time.perf_counter() - started) * 1000
    assert reply.status_code == 200, reply.text
    return int(reply.json()["jobs_run"]), counter


async def _token(http: httpx.AsyncClient, merchant: dict[str, Any]) -> dict[str, str]:
    basic = base64.b64encode(f"{merchant['client_id']}:{merchant['client_secret']}".encode())
    reply = await http.post(
        "/oauth2/token",
        content=b"grant_type=client_credentials",
        headers={
            "Authorization": f"Basic {basic.decode()}",
            "Content-Type": "application/x-www-form-urlencoded",
        },
    )
    return {"Authorization": f"Bearer {reply.json()['access_token']}"}


async def pending_collections(http: httpx.AsyncClient, rt: Any, count: int) -> None:
    await http.post("/_emulator/clock/freeze", json={"at": MONDAY})
    merchant = (await http.post("/_emulator/merchants")).json()
    headers = await _token(http, merchant)
    profile = merchant["profiles"][0]["profileCode"]
    for n in range(count):
        body = {
            "debtor": {"accountNumber": "62000000001", "branchCode": "250655"},
            "amountCents": 12345,
            "serviceType": "SAMEDAY",
            "profileCode": profile,
            "externalReference": f"st-{n}",
            "abbreviatedName": "BENCH",
        }
        reply = await http.post("/v2/collection/eft", json=body, headers=headers)
        assert reply.status_code == 201, reply.text
    jobs, counter = await _advance(rt, http, 86_400)
    _print(f"a day over {count} pending EFT collections", jobs, counter)


async def monthly_billing(http: httpx.AsyncClient, rt: Any, count: int) -> None:
    await http.post("/_emulator/clock/freeze", json={"at": START})
    merchant = (await http.post("/_emulator/merchants")).json()
    headers = {"Authorization": f"Bearer {merchant['api_key']}"}
    body = {
        "purchase": {"currency": "ZAR", "products": [{"name": "Bench plan", "price": 9900}]},
        "is_subscription": True,
        "brand_id": merchant["brand_id"],
    }
    template = (await http.post(TEMPLATES, json=body, headers=headers)).json()["id"]
    for n in range(count):
        client = await http.post(
            "/api/v1/clients/", json={"email": f"s{n}@bench.example"}, headers=headers
        )
        added = await http.post(
            f"{TEMPLATES}{template}/add_subscriber/",
            json={"client_id": client.json()["id"]},
            headers=headers,
        )
        purchase = added.json()["purchase"]["id"]
        paid = await http.post(f"/_emulator/purchases/{purchase}/pay")
        assert paid.status_code == 200, paid.text
    jobs, counter = await _advance(rt, http, YEAR_SECONDS)
    _print(f"a year of monthly billing, {count} subscribers", jobs, counter)


def _print(name: str, jobs: int, counter: Counter) -> None:
    print(
        f"{name}: {jobs} jobs, {counter.total} statements = {counter.total / jobs:.2f} per job"
        f" ({counter.ms:,.0f} ms with the counting)"
    )
    for kind, n in counter.kinds.most_common(25):
        print(f"  {n / jobs:7.2f}  {kind}")


async def run(collections_count: int, subscribers: int) -> None:
    from emulator.runtime.runtime import Runtime
    from emulator.runtime.settings import Settings
    from emulator.serving.app import create_app

    for scenario, count in (
        (pending_collections, collections_count),
        (monthly_billing, subscribers),
    ):
        with tempfile.TemporaryDirectory() as folder:
            # retention off: its daily prune job is not the domain's work per job
            settings = Settings(db_path=Path(folder) / "statements.sqlite3", retain_seconds=None)
            async with Runtime(settings) as rt:
                transport = httpx.ASGITransport(app=create_app(rt))
                async with httpx.AsyncClient(transport=transport, base_url="http://e") as http:
                    await scenario(http, rt, count)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.statements")
    parser.add_argument("--collections", type=int, default=200)
    parser.add_argument("--subscribers", type=int, default=20)
    args = parser.parse_args(argv)
    asyncio.run(run(args.collections, args.subscribers))


if __name__ == "__main__":
    main()
