"""``python -m bench.floor [--purchases N] [--rounds R] [--seconds S]``: a create-purchase
against its floor, by layer, each beside the bare insert measured in the same run.

- **SQL**: the statements and parameters the one writer runs for ``N`` create-purchases
  (each with a new client, at 64 in flight, the journal's writes included) are captured in
  process through the real app, then replayed with plain ``sqlite3`` on a copy of the file as
  it was before them, 64 purchases per transaction, with the emulator's pragmas: the CPU of
  the replay's thread per purchase (a WAL checkpoint's share apart). Beside it the bare
  insert's own statements replayed the same way (one INSERT and one COMMIT per request).
- **HTTP and JSON**: ``bench.floor_app`` (Starlette, msgspec into the emulator's
  ``PurchaseInput``, the same 3.4 KB answer) served as the bare app is, under the same
  concurrency-64 load as the bare insert and the emulator's create-purchase: the servers'
  CPU per request, in alternating rounds (the emulator's split by thread: the event loop's,
  the writer's, the rest).

CPU, not wall time: on a shared machine the times move, the CPU per request much less. No
target: the figures say how far the emulator stands above what its stack costs at least.
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import os
import shutil
import sqlite3
import statistics
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import msgspec

from bench.figures import JSON, bearer, email_body, measure_cpu, new_merchant, progress
from bench.load import Spec
from bench.procs import Server, start_python
from bench.purchases import purchase_body

BATCH = 64  # purchases per transaction in the replay: the load's concurrency
SKIPPED = ("BEGIN", "COMMIT", "ROLLBACK", "SAVEPOINT", "RELEASE", "PRAGMA")

Statement = tuple[bool, bool, str, Any]  # many, reads rows, sql, parameters


class _Recording(sqlite3.Connection):
    """A connection that notes the writer's statements while ``log`` is a list."""

    log: list[Statement] | None = None
    writer = False

    def execute(self, sql: str, params: Any = (), /) -> sqlite3.Cursor:
        if sql.startswith("PRAGMA wal_autocheckpoint"):
            self.writer = True  # only the writer sets it (emulator.kernel.connections)
        log = _Recording.log
        if log is not None and self.writer and not sql.lstrip().upper().startswith(SKIPPED):
            log.append((False, sql.lstrip()[:6].upper() == "SELECT", sql, params))
        return super().execute(sql, params)

    def executemany(self, sql: str, rows: Any, /) -> sqlite3.Cursor:
        rows = list(rows)
        if _Recording.log is not None and self.writer:
            _Recording.log.append((True, False, sql, rows))
        return super().executemany(sql, rows)


class Capture(msgspec.Struct):
    purchases: int
    statements: list[Statement]
    answer: bytes  # one create's 201 body


async def _create(http: Any, headers: dict[str, str], brand: str, tag: str, n: int) -> bytes:
    body = purchase_body(brand, tag).replace("{n}", str(n))
    reply = await http.post("/api/v1/purchases/", content=body, headers=headers)
    assert reply.status_code == 201, reply.text
    content: bytes = reply.content
    return content


async def _capture(purchases: int, folder: Path, before: Path) -> Capture:
    import aiosqlite
    import httpx

    from emulator.runtime.runtime import Runtime
    from emulator.runtime.settings import Settings
    from emulator.serving.app import create_app

    connect = aiosqlite.connect
    aiosqlite.connect = functools.partial(connect, factory=_Recording)  # type: ignore[assignment]
    try:
        async with Runtime(Settings(db_path=folder / "capture.sqlite3")) as rt:
            transport = httpx.ASGITransport(app=create_app(rt))
            async with httpx.AsyncClient(transport=transport, base_url="http://e") as http:
                merchant = (await http.post("/_emulator/merchants")).json()
                headers = {**bearer(merchant), **JSON}
                brand = merchant["brand_id"]

                async def round_of(tag: str, count: int) -> list[bytes]:
                    out: list[bytes] = []
                    for start in range(0, count, BATCH):
                        ns = range(start, min(count, start + BATCH))
                        out += await asyncio.gather(
                            *(_create(http, headers, brand, tag, n) for n in ns)
                        )
                    return out

                await round_of("warm", BATCH)
                await rt.journal.flush()
                await rt.db.write(lambda tx: None)  # what the warm-up queued is done
                with sqlite3.connect(folder / "capture.sqlite3") as source:
                    with sqlite3.connect(before) as copy:
                        source.backup(copy)
                log: list[Statement] = []
                _Recording.log = log
                answers = await round_of("floor", purchases)
                await rt.journal.flush()
                await rt.db.write(lambda tx: None)
                await rt.db.write(lambda tx: None)  # and what their commits queued
                _Recording.log = None
    finally:
        aiosqlite.connect = connect  # type: ignore[assignment]
        _Recording.log = None
    return Capture(purchases, log, answers[0])


def _open(path: Path) -> sqlite3.Connection:
    from emulator.kernel.connections import configure

    conn = sqlite3.connect(path, isolation_level=None, cached_statements=1024)
    configure(conn, readonly=False)
    return conn


def replay(capture: Capture, before: Path, work: Path, batch: int = BATCH) -> tuple[float, float]:
    """CPU seconds per purchase of the captured statements (``batch`` purchases a
    transaction) on a copy of ``before``, and of the WAL checkpoint after them."""
    shutil.copyfile(before, work)
    conn = _open(work)
    statements = capture.statements
    per_batch = max(1, round(len(statements) * batch / capture.purchases))
    started = time.thread_time()
    for start in range(0, len(statements), per_batch):
        conn.execute("BEGIN IMMEDIATE")
        for many, reads, sql, params in statements[start : start + per_batch]:
            _run(conn, many, reads, sql, params)
        conn.execute("COMMIT")
    replayed = time.thread_time()
    conn.execute("PRAGMA wal_checkpoint(PASSIVE)")
    checkpoint = time.thread_time() - replayed
    conn.close()
    return (replayed - started) / capture.purchases, checkpoint / capture.purchases


def _run(conn: sqlite3.Connection, many: bool, reads: bool, sql: str, params: Any) -> None:
    """One captured statement, as the writer ran it (a read's rows fetched)."""
    if many:
        conn.executemany(sql, params)
    elif reads:
        conn.execute(sql, params).fetchall()
    else:
        conn.execute(sql, params)


def _shape(sql: str) -> str:
    return " ".join(sql.split())[:64]


def by_statement(capture: Capture, before: Path, work: Path) -> dict[str, tuple[float, float]]:
    """Each statement's kind: CPU seconds and bytes bound per purchase, the commits apart
    (timed one by one, which adds a clock read to each: the total is above ``replay``'s)."""
    shutil.copyfile(before, work)
    conn = _open(work)
    statements = capture.statements
    per_batch = max(1, round(len(statements) * BATCH / capture.purchases))
    spent: dict[str, tuple[float, float]] = {}
    clock = time.thread_time_ns

    def note(key: str, ns: int, size: int) -> None:
        cpu, sizes = spent.get(key, (0.0, 0.0))
        spent[key] = (cpu + ns / 1e9 / capture.purchases, sizes + size / capture.purchases)

    for start in range(0, len(statements), per_batch):
        conn.execute("BEGIN IMMEDIATE")
        for many, reads, sql, params in statements[start : start + per_batch]:
            rows = params if many else [params]
            size = sum(len(v) for row in rows for v in row if isinstance(v, str | bytes))
            began = clock()
            _run(conn, many, reads, sql, params)
            note(_shape(sql), clock() - began, size)
        began = clock()
        conn.execute("COMMIT")
        note("COMMIT", clock() - began, 0)
    conn.close()
    return spent


def bare_replay(count: int, work: Path) -> float:
    """CPU seconds per request of the bare insert's statements: an INSERT, a COMMIT."""
    import json

    from bench.bare import SCHEMA

    conn = sqlite3.connect(work, isolation_level=None)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=NORMAL")
    conn.execute(SCHEMA)
    started = time.thread_time()
    for n in range(count):
        body = json.loads(email_body("b").replace("{n}", str(n)))
        conn.execute("BEGIN")
        conn.execute(
            "INSERT INTO items (email, data) VALUES (?, ?)", (body["email"], json.dumps(body))
        )
        conn.execute("COMMIT")
    cpu = time.thread_time() - started
    conn.close()
    return cpu / count


def _threads(server: Server) -> dict[str, float]:
    """CPU seconds of each thread of ``server`` so far: the event loop's ("loop") apart."""
    out: dict[str, float] = {}
    tasks = Path(f"/proc/{server.process.pid}/task")
    for task in tasks.iterdir():
        try:
            stat = (task / "stat").read_text()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        name = "loop" if task.name == str(server.process.pid) else f"thread {task.name}"
        out[name] = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return out


def _served_round(servers: dict[str, tuple[Server, Spec]], figures: dict[str, list[float]]) -> None:
    for name, (server, spec) in servers.items():
        progress(f"floor: {name} at concurrency {spec.concurrency}")
        before = _threads(server)
        result, cpu = measure_cpu(server, spec)
        after = _threads(server)
        answered = result.requests + spec.warmup
        if cpu is None or result.errors or not answered:
            raise SystemExit(f"{name}: {result.errors} errors, e.g. {result.error_samples}")
        figures.setdefault(name, []).append(cpu / answered)
        figures.setdefault(f"{name} req/s", []).append(result.rps)
        if name == "emulator create-purchase":
            spent = {k: v - before.get(k, 0.0) for k, v in after.items()}
            loop = spent.pop("loop", 0.0)
            busiest = max(spent.values(), default=0.0)  # the writer's thread
            for part, value in (
                ("loop", loop),
                ("writer", busiest),
                ("other threads", sum(spent.values()) - busiest),
            ):
                figures.setdefault(f"  {part}", []).append(value / answered)


def served(folder: Path, answer: bytes, rounds: int, seconds: float) -> dict[str, list[float]]:
    """CPU seconds per request of the three servers at concurrency 64, rounds alternating."""
    (folder / "purchase.json").write_bytes(answer)
    started: list[Server] = []
    try:
        for name, module, health in (
            ("bare", "bench.bare", "/health"),
            ("floor", "bench.floor_app", "/health"),
            ("emu", "bench.serve_emulator", "/_emulator/health"),
        ):
            started.append(start_python(name, module, folder, health))
        bare, floor, emulator = started
        merchant = new_merchant(emulator)
        body = purchase_body(merchant["brand_id"], "{r}")

        def spec(server: Server, path: str, text: str, headers: dict[str, str]) -> Spec:
            return Spec(
                port=server.port, method="POST", path=path, headers=headers, body=text,
                expect=201, concurrency=BATCH, requests=1_000_000, seconds=seconds, warmup=300,
            )  # fmt: skip

        figures: dict[str, list[float]] = {}
        for r in range(rounds):
            tag = f"r{r}"
            _served_round(
                {
                    "bare insert": (bare, spec(bare, "/items", email_body(tag), JSON)),
                    "HTTP+JSON floor": (
                        floor,
                        spec(floor, "/purchases", body.replace("{r}", tag), JSON),
                    ),
                    "emulator create-purchase": (
                        emulator,
                        spec(
                            emulator,
                            "/api/v1/purchases/",
                            body.replace("{r}", tag),
                            {**bearer(merchant), **JSON},
                        ),
                    ),
                },
                figures,
            )
        return figures
    finally:
        for server in started:
            server.stop()


def _us(values: list[float]) -> str:
    return f"{statistics.median(values) * 1e6:6.0f} us (runs {min(values) * 1e6:.0f}-" + (
        f"{max(values) * 1e6:.0f})"
    )


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.floor")
    parser.add_argument("--purchases", type=int, default=1024, help="captured and replayed")
    parser.add_argument("--rounds", type=int, default=3, help="alternating served rounds")
    parser.add_argument("--seconds", type=float, default=3.0, help="of each served run")
    parser.add_argument("--no-served", action="store_true", help="the SQL floor only")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="bench-floor-") as name:
        folder = Path(name)
        progress(f"floor: capturing {args.purchases} create-purchases' statements")
        before = folder / "before.sqlite3"
        capture = asyncio.run(_capture(args.purchases, folder, before))
        kinds: dict[str, int] = {}
        for _many, _reads, sql, _params in capture.statements:
            kinds[_shape(sql)] = kinds.get(_shape(sql), 0) + 1
        spent = by_statement(capture, before, folder / "by-statement.sqlite3")
        sql_runs = [replay(capture, before, folder / f"replay-{n}.sqlite3") for n in range(3)]
        smaller = {
            batch: [replay(capture, before, folder / f"b{batch}-{n}.db", batch) for n in (1, 2)]
            for batch in (1, 8, 32)
        }
        bare_sql = [bare_replay(2 * args.purchases, folder / f"bare-{n}.sqlite3") for n in range(3)]
        figures = {}
        if not args.no_served:
            figures = served(folder, capture.answer, args.rounds, args.seconds)
    print(
        f"create-purchase: {len(capture.statements) / capture.purchases:.2f} statements each,"
        f" answer {len(capture.answer)} bytes"
    )
    print("  each  CPU (us) bytes  statement, replayed one by one")
    for key, (cpu, size) in sorted(spent.items(), key=lambda kv: -kv[1][0]):
        each = kinds.get(key, 0) / capture.purchases if key != "COMMIT" else 1 / BATCH
        print(f"  {each:4.2f}  {cpu * 1e6:8.1f} {size:5.0f}  {key}")
    print("SQL alone, CPU of the replaying thread:")
    print(f"  create-purchase, {BATCH} a transaction    {_us([s for s, _ in sql_runs])}")
    print(f"  its WAL checkpoint, per purchase        {_us([c for _, c in sql_runs])}")
    for batch, runs in smaller.items():
        label = f"{batch} a transaction" if batch > 1 else "a transaction each"
        print(f"  create-purchase, {label:22s}{_us([s for s, _ in runs])}")
    print(f"  bare insert, a commit each              {_us(bare_sql)}")
    if figures:
        print(f"served at concurrency {BATCH}, server CPU per request ({args.rounds} rounds):")
        for name, values in figures.items():
            if name.endswith("req/s"):
                print(f"  {name:40s} {statistics.median(values):8.0f}")
            else:
                print(f"  {name:40s} {_us(values)}")
        bare = statistics.median(figures["bare insert"])
        http = statistics.median(figures["HTTP+JSON floor"])
        sql = statistics.median([s + c for s, c in sql_runs])
        emulator = statistics.median(figures["emulator create-purchase"])
        print(
            f"floor (HTTP+JSON + SQL) {(http + sql) * 1e6:.0f} us = {(http + sql) / bare:.2f} x"
            f" the bare insert; the emulator {emulator / bare:.2f} x"
        )


if __name__ == "__main__":
    main()
