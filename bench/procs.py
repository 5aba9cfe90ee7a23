"""Child servers: start on a free port, wait until healthy, always stop (process groups)."""

from __future__ import annotations

import contextlib
import http.client
import os
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from bench.client import BenchError, call
from bench.load import ROOT
from bench.serving import HOST

POLL = 0.005  # seconds between health polls
START_TIMEOUT = 20.0
STOP_TIMEOUT = 5.0


def free_port() -> int:
    """A port nobody listens on right now (the OS picks it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((HOST, 0))
        port: int = sock.getsockname()[1]
        return port


@dataclass
class Server:
    """A server process in its own process group, logging to ``log``."""

    name: str
    port: int
    process: subprocess.Popen[bytes]
    log: Path
    db: Path | None = None

    def stop(self) -> None:
        """SIGTERM to its process group, SIGKILL if it lingers; never raises, never hangs.

        The group is signalled only while its leader is not yet reaped, so the group id is
        still this server's (our servers start no children of their own).
        """
        for sig in (signal.SIGTERM, signal.SIGKILL):
            if self.process.poll() is not None:
                return
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, sig)
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.process.wait(STOP_TIMEOUT)

    def cpu_seconds(self) -> float | None:
        """CPU time used so far by the server (all threads); None where /proc is missing."""
        try:
            fields = Path(f"/proc/{self.process.pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            return None
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def log_tail(self, lines: int = 20) -> str:
        try:
            return "\n".join(self.log.read_text("utf-8", "replace").splitlines()[-lines:])
        except OSError:
            return ""


def launch(
    name: str, argv: list[str], port: int, log: Path, db: Path | None = None, cwd: Path = ROOT
) -> Server:
    """Start ``argv`` in a new session (Ctrl-C reaches only the harness, which stops it)."""
    with log.open("ab") as out:
        process = subprocess.Popen(
            argv,
            cwd=cwd,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    return Server(name, port, process, log, db)


def wait_healthy(server: Server, path: str, timeout: float = START_TIMEOUT) -> float:
    """Poll ``path`` every 5 ms until it answers 200; returns the seconds that took."""
    started = time.perf_counter()
    deadline = started + timeout
    while time.perf_counter() < deadline:
        if server.process.poll() is not None:
            raise BenchError(
                f"{server.name} exited with {server.process.returncode} before answering:\n"
                f"{server.log_tail()}"
            )
        with contextlib.suppress(OSError, http.client.HTTPException):
            if call(server.port, "GET", path, timeout=1.0).status == 200:
                return time.perf_counter() - started
        time.sleep(POLL)
    raise BenchError(f"{server.name} did not answer {path} within {timeout:.0f} s")


def start_python(name: str, module: str, workdir: Path, health: str) -> Server:
    """``python -m module --port N --db PATH`` on a free port and a fresh database file."""
    for attempt in range(3):  # the free port may be taken between choosing and binding it
        port = free_port()
        db = workdir / f"{name}-{attempt}.sqlite3"
        argv = [sys.executable, "-m", module, "--port", str(port), "--db", str(db)]
        server = launch(name, argv, port, workdir / f"{name}.log", db)
        try:
            wait_healthy(server, health)
        except BenchError:
            server.stop()
            if attempt == 2:
                raise
            continue
        return server
    raise AssertionError("unreachable")
