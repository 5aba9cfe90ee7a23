"""``python -m bench.soak [--seconds S] [--workers N] [--retain DURATION]``: disk under load.

Starts ``python -m emulator serve`` (real clock, a fresh database, ``--retain`` passed on) and
runs N closed-loop workers of mixed traffic for S seconds: a client, a purchase (its
``purchase.created`` goes to a webhook on the built-in sink), paying it through the control
plane (``purchase.paid`` to the webhook and the success callback), reading it back and reading
the sink. Prints the database's size (file plus WAL), the rows of the tables retention
prunes and the server's resident memory (its own part apart) every ``--every`` seconds, and
at the end. SQLite reuses the pages of deleted rows: with
retention the file stops growing rather than shrinking.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

KEY = {"Authorization": "Bearer sk_test_emulator_default_key"}
TABLES = ("outbox", "delivery_messages", "delivery_attempts", "sink_messages", "requests")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _size(db: Path) -> int:
    return sum(p.stat().st_size for p in (db, Path(f"{db}-wal")) if p.exists())


def _memory(pid: int | None) -> str:
    """The server's RSS and its own (anonymous) part, in MiB; empty without /proc."""
    fields: dict[str, float] = {}
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            key, _, value = line.partition(":")
            if key in ("VmRSS", "RssAnon"):
                fields[key] = int(value.split()[0]) / 1024
    except (OSError, ValueError):
        return ""
    return f"  RSS {fields.get('VmRSS', 0):.0f} MiB ({fields.get('RssAnon', 0):.0f} its own)"


def _rows(db: Path) -> dict[str, int]:
    with contextlib.closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=10)) as c:
        return {t: int(c.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0]) for t in TABLES}


async def _worker(client: httpx.AsyncClient, brand_id: str, n: int, stop: float) -> int:
    done = 0
    sink = f"{client.base_url}/_emulator/sink/soak-{n}"
    while time.monotonic() < stop:
        email = f"soak-{n}-{done}@example.com"
        await client.post("/api/v1/clients/", json={"email": email}, headers=KEY)
        body = {
            "client": {"email": email},
            "purchase": {"currency": "ZAR", "products": [{"name": "Soak", "price": 1000}]},
            "brand_id": brand_id,
            "success_callback": sink,
        }
        made = await client.post("/api/v1/purchases/", json=body, headers=KEY)
        made.raise_for_status()
        purchase_id = made.json()["id"]
        (await client.post(f"/_emulator/purchases/{purchase_id}/pay", json={})).raise_for_status()
        await client.get(f"/api/v1/purchases/{purchase_id}/", headers=KEY)
        if done % 20 == 0:
            await client.get(f"/_emulator/sink/soak-{n}")
        done += 5
    return done


async def _soak(
    url: str, db: Path, seconds: float, workers: int, every: float, pid: int | None = None
) -> int:
    async with httpx.AsyncClient(base_url=url, timeout=30) as client:
        merchant = (await client.get("/_emulator/merchants")).json()["merchants"][0]
        hook = {"title": "soak", "all_events": True, "callback": f"{url}/_emulator/sink/hooks"}
        (await client.post("/api/v1/webhooks/", json=hook, headers=KEY)).raise_for_status()
        started = time.monotonic()
        stop = started + seconds
        tasks = [
            asyncio.create_task(_worker(client, merchant["brand_id"], n, stop))
            for n in range(workers)
        ]
        while not all(t.done() for t in tasks):
            await asyncio.wait(tasks, timeout=every)
            elapsed = time.monotonic() - started
            memory = _memory(pid) if pid is not None else ""
            print(f"{elapsed:6.0f} s  {_size(db) / 1e6:8.1f} MB  {_rows(db)}{memory}", flush=True)
        return sum(t.result() for t in tasks)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.soak", description=__doc__)
    parser.add_argument("--seconds", type=float, default=600)
    parser.add_argument("--workers", type=int, default=6)
    parser.add_argument("--retain", default="7d", help="passed to serve --retain (0/off: none)")
    parser.add_argument("--every", type=float, default=30, help="seconds between reports")
    args = parser.parse_args(argv)
    port = _free_port()
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "soak.sqlite3"
        server = subprocess.Popen(
            [sys.executable, "-m", "emulator", "serve", "--port", str(port), "--db", str(db),
             "--retain", args.retain, "--log-level", "warning"],
            stdout=subprocess.DEVNULL, start_new_session=True,
        )  # fmt: skip
        url = f"http://127.0.0.1:{port}"
        try:
            deadline = time.monotonic() + 20
            while True:
                with contextlib.suppress(httpx.TransportError):
                    if httpx.get(f"{url}/_emulator/health", timeout=1).is_success:
                        break
                if server.poll() is not None or time.monotonic() > deadline:
                    print("the emulator did not start", file=sys.stderr)
                    return 2
                time.sleep(0.05)
            print(f"soak: {args.workers} workers, {args.seconds:g} s, --retain {args.retain}")
            soak = _soak(url, db, args.seconds, args.workers, args.every, server.pid)
            requests = asyncio.run(soak)
            memory = _memory(server.pid)
        finally:
            os.killpg(server.pid, signal.SIGTERM)
            server.wait(timeout=30)
        size = _size(db)
        print(
            f"done: {requests:,} requests; database {size / 1e6:.1f} MB"
            f" ({size / max(requests, 1) / 1e3:.2f} KB per request); rows {_rows(db)}{memory}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
