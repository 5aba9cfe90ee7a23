"""A closed-loop HTTP/1.1 load generator that runs in its own process.

``python -m bench.load`` reads one :class:`Spec` as JSON on stdin, runs it on uvloop and
writes one :class:`Result` as JSON on stdout. The harness calls it through :func:`measure`.

Each of ``concurrency`` keep-alive connections sends a request, waits for the whole response
and sends the next one (no pipelining). Requests are encoded before the clock starts; a
response is parsed only as far as its status line and ``Content-Length``. The first
``warmup`` requests are not recorded; recording stops after ``requests`` requests or
``seconds`` seconds, whichever comes first. Every status is checked against ``expect``.
With ``stop_file``, recording also stops once that file exists, and ``recording`` is written
to stderr as the first recorded request goes out: :func:`measure_during` records the load
while the harness does something else (another merchant's clock advance).

Templates: ``{n}`` in the path or body becomes the request's index (so every request can
carry a unique e-mail address); ``{id}`` becomes ``ids[n % len(ids)]``.
"""

from __future__ import annotations

import asyncio
import os
import resource
import select
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar, cast

import msgspec

from bench.client import BenchError

ROOT = Path(__file__).resolve().parent.parent
T = TypeVar("T")
SAMPLES = 3  # unexpected responses kept as examples
GRACE = 30.0  # seconds a run may take beyond its recording time before it is cut off
STOP_POLL = 0.002  # seconds between looks for a Spec's stop_file
RECORDING = b"recording\n"  # written to stderr when a run with a stop_file starts recording


class Spec(msgspec.Struct, frozen=True, kw_only=True):
    """One measurement: what to send, how hard and for how long."""

    port: int
    method: str
    path: str
    headers: dict[str, str] = {}
    body: str = ""
    ids: list[str] = []
    expect: int = 200
    concurrency: int = 1
    requests: int = 1000  # recorded requests, at most
    seconds: float = 3.0  # recording time, at most
    warmup: int = 0  # requests sent first and not recorded
    keep_ids: bool = False  # return the "id" of every recorded JSON response
    stop_file: str = ""  # stop once this file exists (polled every STOP_POLL seconds)


class Result(msgspec.Struct, frozen=True, kw_only=True):
    """What one measurement observed (latencies in milliseconds)."""

    requests: int  # recorded responses, whatever their status
    errors: int  # unexpected statuses (warm-up included), broken connections, timeouts
    statuses: dict[str, int]
    seconds: float
    rps: float
    p50_ms: float
    p99_ms: float
    max_ms: float
    active_seconds: float  # from connecting to the last response, warmup included
    cpu_percent: float  # of one core, used by the load generator over active_seconds
    machine_percent: float | None  # of one core, used by every process on the machine (Linux)
    error_samples: list[str]
    ids: list[str]


def percentile(sorted_values: list[float], q: float) -> float:
    """Linear interpolation between closest ranks (numpy's default); 0.0 when empty."""
    if not sorted_values:
        return 0.0
    position = q * (len(sorted_values) - 1)
    low = int(position)
    high = min(low + 1, len(sorted_values) - 1)
    return sorted_values[low] + (sorted_values[high] - sorted_values[low]) * (position - low)


def encode_requests(spec: Spec) -> list[bytes]:
    """Every distinct request of the run, as bytes ready to write."""
    templated = "{n}" in spec.path or "{n}" in spec.body
    if templated:
        count = spec.warmup + spec.requests
    elif "{id}" in spec.path or "{id}" in spec.body:
        count = len(spec.ids)
        if count == 0:
            raise ValueError("the path or body uses {id} but no ids were given")
    else:
        count = 1
    extra = "".join(f"{name}: {value}\r\n" for name, value in spec.headers.items())
    out: list[bytes] = []
    for n in range(count):
        path, body = spec.path, spec.body
        if spec.ids:
            ident = spec.ids[n % len(spec.ids)]
            path, body = path.replace("{id}", ident), body.replace("{id}", ident)
        path, body = path.replace("{n}", str(n)), body.replace("{n}", str(n))
        payload = body.encode()
        length = f"Content-Length: {len(payload)}\r\n" if payload or spec.method != "GET" else ""
        head = (
            f"{spec.method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{spec.port}\r\n{extra}{length}\r\n"
        )
        out.append(head.encode("latin-1") + payload)
    return out


class _Run:
    """State shared by the connections of one measurement."""

    def __init__(self, spec: Spec, loop: asyncio.AbstractEventLoop) -> None:
        self.spec = spec
        self.loop = loop
        self.payloads = encode_requests(spec)
        self.total = spec.warmup + spec.requests
        self.limit_ns = int(spec.seconds * 1e9)
        self.issued = 0
        self.stopping = False  # the stop file appeared: send nothing more
        self.started_ns: int | None = None  # first recorded request sent
        self.last_ns = 0  # last recorded response received
        self.latencies_ns: list[int] = []
        self.statuses: Counter[int] = Counter()
        self.errors = 0
        self.samples: list[str] = []
        self.id_bodies: list[bytes] = []  # responses whose ids are wanted (keep_ids)
        self.open = spec.concurrency  # connections not yet closed, counting those to come
        self.finished: asyncio.Future[None] = loop.create_future()
        self.connections: set[_Connection] = set()
        self.reconnecting: set[asyncio.Task[None]] = set()  # strong references to the tasks

    def next_request(self) -> tuple[bytes, bool] | None:
        """The next request and whether it is recorded; None once the run is over."""
        if self.issued >= self.total or self.finished.done() or self.stopping:
            return None
        recorded = self.issued >= self.spec.warmup
        if recorded:
            now = time.perf_counter_ns()
            if self.started_ns is None:
                self.started_ns = now
                if self.spec.stop_file:
                    os.write(sys.stderr.fileno(), RECORDING)
            elif now - self.started_ns >= self.limit_ns:
                return None
        payload = self.payloads[self.issued % len(self.payloads)]
        self.issued += 1
        return payload, recorded

    def response(self, status: int, body: bytes, latency_ns: int, recorded: bool) -> None:
        ok = status == self.spec.expect
        if not ok:
            self.errors += 1
            if len(self.samples) < SAMPLES:
                self.samples.append(f"{status} {body[:300].decode('utf-8', 'replace')}")
        if not recorded:
            return
        self.last_ns = time.perf_counter_ns()
        self.statuses[status] += 1
        self.latencies_ns.append(latency_ns)
        if self.spec.keep_ids and ok:
            self.id_bodies.append(body)

    def failure(self, reason: str) -> None:
        self.errors += 1
        if len(self.samples) < SAMPLES:
            self.samples.append(reason)

    def closed(self, connection: _Connection) -> None:
        self.connections.discard(connection)
        self._release()

    def _release(self) -> None:
        self.open -= 1
        if self.open == 0 and not self.finished.done():
            self.finished.set_result(None)

    async def connect(self) -> _Connection:
        _, protocol = await self.loop.create_connection(
            lambda: _Connection(self), "127.0.0.1", self.spec.port
        )
        self.connections.add(protocol)
        return protocol

    def replace(self) -> None:
        """The server closed a connection after a response: carry on on a new one."""
        self.open += 1  # before the old connection's connection_lost can end the run

        async def reconnect() -> None:
            try:
                connection = await self.connect()
            except OSError as exc:
                self.failure(f"reconnect failed: {exc}")
                self._release()
                return
            connection.send_next()

        task = self.loop.create_task(reconnect())
        self.reconnecting.add(task)
        task.add_done_callback(self.reconnecting.discard)

    def abort(self) -> None:
        """Cut every connection (the run overran its time limit)."""
        for connection in list(self.connections):
            if connection.waiting:
                self.failure("timeout: no complete response")
                connection.waiting = False
            connection.transport.abort()
        if not self.finished.done():
            self.finished.set_result(None)


class _Connection(asyncio.Protocol):
    """One keep-alive connection: one request in flight at a time."""

    def __init__(self, run: _Run) -> None:
        self.run = run
        self.transport: asyncio.Transport
        self.buffer = bytearray()
        self.header_end = -1  # index of the blank line of the response being read
        self.status = 0
        self.complete_at = 0  # buffer length at which the response is complete
        self.must_close = False
        self.waiting = False
        self.recorded = False
        self.sent_ns = 0

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.Transport, transport)  # uvloop's is not a subclass

    def send_next(self) -> None:
        request = self.run.next_request()
        if request is None:
            self.transport.close()
            return
        payload, self.recorded = request
        self.waiting = True
        self.sent_ns = time.perf_counter_ns()
        self.transport.write(payload)

    def data_received(self, data: bytes) -> None:
        buffer = self.buffer
        buffer += data
        while True:
            if self.header_end < 0 and not self._read_head():
                return
            if len(buffer) < self.complete_at:
                return
            body = bytes(buffer[self.header_end + 4 : self.complete_at])
            del buffer[: self.complete_at]
            self.header_end = -1
            if not self.waiting:
                self.run.failure(f"unexpected response {self.status}")
                self.transport.abort()
                return
            self.waiting = False
            latency = time.perf_counter_ns() - self.sent_ns
            self.run.response(self.status, body, latency, self.recorded)
            if self.must_close:
                self.transport.close()
                self.run.replace()
                return
            self.send_next()

    def _read_head(self) -> bool:
        """Parse status line and headers once they are all in; False until then."""
        end = self.buffer.find(b"\r\n\r\n")
        if end < 0:
            return False
        head = bytes(self.buffer[:end]).lower()
        self.header_end = end
        self.status = int(head[9:12])
        length = 0
        at = head.find(b"\r\ncontent-length:")
        if at >= 0:
            stop = head.find(b"\r\n", at + 2)
            length = int(head[at + 17 : stop if stop >= 0 else len(head)])
        elif b"\r\ntransfer-encoding:" in head:
            self.run.failure("chunked response: not supported by the load generator")
            self.transport.abort()
            return False
        self.must_close = b"\r\nconnection: close" in head
        self.complete_at = end + 4 + length
        return True

    def connection_lost(self, exc: Exception | None) -> None:
        if self.waiting:
            self.waiting = False
            self.run.failure(f"connection lost: {exc or 'closed by the server'}")
        self.run.closed(self)


async def run(spec: Spec) -> Result:
    """Carry out one measurement in this process."""
    loop = asyncio.get_running_loop()
    state = _Run(spec, loop)
    cpu_before = _cpu_seconds()
    machine_before = machine_busy_seconds()
    wall_before = time.perf_counter()
    connections = await asyncio.gather(*(state.connect() for _ in range(spec.concurrency)))
    deadline = loop.call_later(spec.seconds + GRACE, state.abort)
    watch: asyncio.TimerHandle | None = None

    def look_for_stop() -> None:
        nonlocal watch
        if os.path.exists(spec.stop_file):
            state.stopping = True  # each connection closes after its response in flight
        else:
            watch = loop.call_later(STOP_POLL, look_for_stop)

    if spec.stop_file:
        look_for_stop()
    try:
        for connection in connections:
            connection.send_next()
        await state.finished
    finally:
        deadline.cancel()
        if watch is not None:
            watch.cancel()
    cpu = _cpu_seconds() - cpu_before
    wall = time.perf_counter() - wall_before
    machine_after = machine_busy_seconds()
    machine = None
    if machine_before is not None and machine_after is not None and wall > 0:
        machine = 100.0 * (machine_after - machine_before) / wall
    latencies = sorted(ns / 1e6 for ns in state.latencies_ns)
    recorded = len(latencies)
    seconds = (state.last_ns - state.started_ns) / 1e9 if state.started_ns and recorded else 0.0
    return Result(
        requests=recorded,
        errors=state.errors,
        statuses={str(code): count for code, count in sorted(state.statuses.items())},
        seconds=seconds,
        rps=recorded / seconds if seconds > 0 else 0.0,
        p50_ms=percentile(latencies, 0.50),
        p99_ms=percentile(latencies, 0.99),
        max_ms=latencies[-1] if latencies else 0.0,
        active_seconds=wall,
        cpu_percent=100.0 * cpu / wall if wall > 0 else 0.0,
        machine_percent=machine,
        error_samples=state.samples,
        ids=[str(_decode_id(body).id) for body in state.id_bodies],
    )


class _Identified(msgspec.Struct):
    id: str | int


_decode_id = msgspec.json.Decoder(_Identified).decode


def _cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def machine_busy_seconds() -> float | None:
    """CPU seconds all cores have spent busy since boot (/proc/stat); None elsewhere."""
    try:
        with open("/proc/stat", encoding="ascii") as stat:
            fields = [int(x) for x in stat.readline().split()[1:9]]
    except (OSError, ValueError):
        return None
    user, nice, system, _idle, _iowait, irq, softirq, steal = fields
    return (user + nice + system + irq + softirq + steal) / os.sysconf("SC_CLK_TCK")


def measure(spec: Spec) -> Result:
    """Run ``spec`` in a fresh load-generator process; bounded in time, killed on overrun."""
    timeout = spec.seconds + GRACE + 15.0
    try:
        completed = subprocess.run(
            [sys.executable, "-m", "bench.load"],
            input=msgspec.json.encode(spec),
            capture_output=True,
            cwd=ROOT,
            timeout=timeout,
            check=False,
        )
    except subprocess.TimeoutExpired:
        raise BenchError(f"load generator still running after {timeout:.0f} s: killed") from None
    if completed.returncode != 0:
        raise BenchError(
            f"load generator failed ({completed.returncode}): "
            f"{completed.stderr.decode('utf-8', 'replace')[-2000:]}"
        )
    return msgspec.json.decode(completed.stdout, type=Result)


def measure_during(spec: Spec, action: Callable[[], T]) -> tuple[Result, T]:
    """Run ``spec`` in a fresh load-generator process and, once it records, ``action()`` in
    this one; recording stops when ``action`` returns (the requests then in flight complete).

    ``spec.seconds`` and ``spec.requests`` are ceilings only: make them larger than
    ``action`` can take, and compare ``Result.seconds`` with its duration.
    """
    with tempfile.TemporaryDirectory(prefix="payments-bench-stop-") as tmp:
        stop = Path(tmp) / "stop"
        given = Path(tmp) / "spec.json"
        given.write_bytes(msgspec.json.encode(msgspec.structs.replace(spec, stop_file=str(stop))))
        with given.open("rb") as stdin:
            process = subprocess.Popen(
                [sys.executable, "-m", "bench.load"],
                stdin=stdin,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                cwd=ROOT,
                bufsize=0,
            )
        try:
            assert process.stderr is not None
            early = _await_recording(process.stderr.fileno(), deadline=GRACE + 15.0)
            if not early.startswith(RECORDING):
                process.kill()
                _, rest = process.communicate()
                raise BenchError(
                    "load generator did not start recording: "
                    f"{(early + rest).decode('utf-8', 'replace')[-2000:]}"
                )
            try:
                outcome = action()
            finally:
                stop.touch()
            timeout = GRACE + 15.0
            try:
                out, err = process.communicate(timeout=timeout)
            except subprocess.TimeoutExpired:
                raise BenchError(
                    f"load generator still running {timeout:.0f} s after its stop: killed"
                ) from None
        finally:
            if process.poll() is None:
                process.kill()
                process.wait()
    if process.returncode != 0:
        raise BenchError(
            f"load generator failed ({process.returncode}): "
            f"{err.decode('utf-8', 'replace')[-2000:]}"
        )
    return msgspec.json.decode(out, type=Result), outcome


def _await_recording(fd: int, deadline: float) -> bytes:
    """What the load generator wrote to stderr up to its first line (or its exit, or the
    deadline in seconds)."""
    data = b""
    end = time.monotonic() + deadline
    while b"\n" not in data:
        left = end - time.monotonic()
        if left <= 0 or not select.select([fd], [], [], left)[0]:
            break
        chunk = os.read(fd, 4096)
        if not chunk:
            break
        data += chunk
    return data


def main() -> None:
    import uvloop

    spec = msgspec.json.decode(sys.stdin.buffer.read(), type=Spec)
    result = uvloop.run(run(spec))
    # os.write in a loop: a large result reaches the pipe in several partial writes, and
    # sys.stdout.buffer.write was seen to report a short write here without raising.
    view = memoryview(msgspec.json.encode(result))
    while view:
        view = view[os.write(sys.stdout.fileno(), view) :]


if __name__ == "__main__":
    main()
