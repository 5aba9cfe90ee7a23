"""What ``payments-emulator serve`` checks before it creates anything: the port and log level,
the database path, the admin token, the listening socket; and what it reads from a database
it reuses (the stored clock), for the banner."""

from __future__ import annotations

import errno
import socket
import sqlite3
from dataclasses import dataclass
from pathlib import Path

import msgspec

from emulator.kernel.clock import Clock, ClockState, iso, to_us
from emulator.runtime.settings import Settings

SQLITE_HEADER = b"SQLite format 3\x00"


def parse_port(text: str, name: str) -> int:
    """A TCP port, 1..65535; a ValueError naming ``name`` (the flag or variable) otherwise."""
    try:
        port = int(text)
    except ValueError:
        port = 0
    if not 1 <= port <= 65535:
        raise ValueError(f"{name} must be a port number 1..65535, not {text!r}")
    return port


def check_log_level(level: str, name: str = "--log-level") -> str:
    from uvicorn.config import LOG_LEVELS

    if level.lower() not in LOG_LEVELS:
        raise ValueError(f"{name} must be one of {', '.join(LOG_LEVELS)}, not {level!r}")
    return level.lower()


def check_admin_token(settings: Settings) -> None:
    """An empty admin token would let ``Authorization: Bearer `` in: refused off loopback."""
    if settings.admin_token == "" and not settings.loopback:
        raise ValueError(
            "--admin-token / EMULATOR_ADMIN_TOKEN must not be empty: an admin token is required"
            f" when bound to {settings.host} (leave it unset to have one generated)"
        )


def check_db_path(path: Path) -> None:
    """``--db`` must be a file that does not exist yet, is empty, or is an SQLite database.
    Nothing is created or changed here."""
    if str(path) == ":memory:":
        return
    if path.is_dir():
        raise ValueError(f"--db {path} is a directory, not an SQLite file")
    if path.exists() and not path.is_file():
        raise ValueError(f"--db {path} is not a regular file")
    if path.is_file():
        try:
            with open(path, "rb") as file:
                header = file.read(len(SQLITE_HEADER))
        except OSError as exc:
            raise ValueError(f"--db {path} cannot be read ({exc.strerror})") from None
        if header and header != SQLITE_HEADER:
            raise ValueError(f"--db {path}: file is not a database (not SQLite)")
    if path.parent.exists() and not path.parent.is_dir():
        raise ValueError(f"--db {path}: {path.parent} is not a directory")


def bind(settings: Settings) -> socket.socket:
    """The listening socket, bound before the database is created or the banner printed."""
    family = socket.AF_INET6 if ":" in settings.host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((settings.host, settings.port))
    except OSError as exc:
        sock.close()
        if exc.errno == errno.EADDRINUSE:
            raise ValueError(
                f"--port {settings.port}: {settings.host}:{settings.port} is already in use"
            ) from None
        raise ValueError(
            f"--host/--port: cannot listen on {settings.host}:{settings.port}"
            f" ({exc.strerror or exc})"
        ) from None
    return sock


@dataclass(frozen=True)
class DatabaseState:
    reused: bool  # the file existed and held something
    stored_clock: ClockState | None  # the server clock it stored, if it could be read


def inspect_database(path: Path) -> DatabaseState:
    """Whether ``path`` is a database being reused, and its stored clock (read only)."""
    if str(path) == ":memory:" or not path.is_file() or path.stat().st_size == 0:
        return DatabaseState(reused=False, stored_clock=None)
    stored: ClockState | None = None
    try:
        conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
        try:
            row = conn.execute("SELECT value FROM settings WHERE key = 'clock'").fetchone()
        finally:
            conn.close()
        if row is not None:
            stored = msgspec.json.decode(row[0], type=ClockState)
    except (sqlite3.Error, msgspec.DecodeError, msgspec.ValidationError):
        stored = None
    return DatabaseState(reused=True, stored_clock=stored)


def serving_clock(settings: Settings, state: DatabaseState) -> Clock:
    """The clock the server will start with (what ``Runtime.start`` will decide)."""
    clock = Clock(settings.clock, settings.start)
    if not settings.clock_explicit and state.stored_clock is not None:
        clock.restore(state.stored_clock)
    return clock


def clock_lines(settings: Settings, state: DatabaseState) -> list[str]:
    clock = serving_clock(settings, state)
    where = "existing file, reused" if state.reused else "new file"
    if settings.in_memory:
        where = "in memory: nothing is kept when it stops"
    lines = [f"  clock         {clock.mode}, now {iso(clock.now())}"]
    stored = None if settings.clock_explicit else state.stored_clock  # restored at start
    if stored is not None and clock.mode == "real":
        offset_s = round(stored.offset_us / 1_000_000)
        if offset_s != 0:  # an advance, a freeze or resume --at, kept across the restart
            sign, how = ("+", "ahead of") if offset_s > 0 else ("-", "behind")
            lines.append(
                f"                real time {sign} {span(abs(offset_s))} (the stored clock is"
                f" {how} the system clock; `payments-emulator clock resume --system` to"
                " follow it)"
            )
    return [*lines, f"  database      {settings.db_path} ({where})"]


def span(seconds: int) -> str:
    """``3d 2h``, ``5m 10s``, ``42s``: the two largest units of a duration."""
    parts: list[str] = []
    for unit, size in (("d", 86_400), ("h", 3600), ("m", 60), ("s", 1)):
        if seconds >= size or (size == 1 and not parts):
            parts.append(f"{seconds // size}{unit}")
            seconds %= size
        if len(parts) == 2 or (parts and seconds == 0):
            break
    return " ".join(parts)


def start_warning(settings: Settings, state: DatabaseState) -> str | None:
    """A warning when ``--start`` moves a reused database's clock backwards."""
    if settings.start is None or state.stored_clock is None:
        return None
    stored = Clock()
    stored.restore(state.stored_clock)
    if to_us(settings.start) >= stored.now_us():
        return None
    return (
        f"warning: --start {iso(settings.start)} is before the clock stored in"
        f" {settings.db_path} ({iso(stored.now())}): the clock moves backwards"
    )
