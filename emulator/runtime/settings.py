"""How an emulator is configured: command-line flags, environment variables, defaults."""

from __future__ import annotations

import ipaddress
import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from emulator.domain.urls import host_and_port
from emulator.kernel.clock import MODES, Mode, parse_iso

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8400
DEFAULT_DB = Path(".emulator") / "emulator.sqlite3"
MEMORY = Path(":memory:")  # --db :memory: / --ephemeral: everything in memory, no file

LOOPBACK_HOSTS = frozenset({"127.0.0.1", "localhost", "::1"})


@dataclass(frozen=True)
class RateLimitSetting:
    limit: int
    window_seconds: int

    @classmethod
    def parse(cls, text: str) -> RateLimitSetting:
        """``N`` (per minute) or ``N/SECONDS``."""
        count, _, window = text.strip().partition("/")
        try:
            limit, seconds = int(count), int(window) if window else 60
        except ValueError:
            raise ValueError(f"expected N or N/SECONDS, not {text!r}") from None
        if not (1 <= limit <= 1_000_000 and 1 <= seconds <= 86_400):
            raise ValueError("the limit must be 1..1000000 requests per 1..86400 seconds")
        return cls(limit, seconds)

    def __str__(self) -> str:
        return f"{self.limit}/{self.window_seconds}"


_DURATION = re.compile(r"(\d+)([smhd])")
_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86_400}
DEFAULT_RETAIN = 7 * 86_400


def parse_retain(text: str) -> int | None:
    """``7d``, ``12h``, ``2h30m``, ``90m``, ``3600`` (seconds): the retention window in
    seconds; ``0`` or ``off``: None (keep everything)."""
    text = text.strip().lower()
    if text in ("0", "off", "none", "never"):
        return None
    if text.isdigit():
        seconds = int(text)
    elif _DURATION.sub("", text) == "" and text:
        seconds = sum(int(n) * _UNITS[u] for n, u in _DURATION.findall(text))
    else:
        raise ValueError(f"expected a duration like 7d, 12h, 2h30m or 0/off, not {text!r}")
    if not 0 <= seconds <= 100 * 365 * 86_400:
        raise ValueError("the window must be at most 100 years")
    return seconds or None


def parse_hosts(text: str) -> tuple[str, ...]:
    """``app,worker:8000`` (or ``*``): hosts reached over plain HTTP, a bare host on any
    port, ``host:port`` on that port only."""
    hosts = tuple(h.strip().lower() for h in text.split(",") if h.strip())
    for entry in hosts:
        if entry == "*":
            continue
        host, _ = host_and_port(entry)
        if ":" in host:  # only an IPv6 address has colons
            try:
                ipaddress.IPv6Address(host)
            except ValueError:
                raise ValueError(f"{entry!r} is not a host name or host:port") from None
        elif not re.fullmatch(r"[a-z0-9._-]{1,253}", host):
            raise ValueError(f"{entry!r} is not a host name or host:port")
    return hosts


def parse_names(text: str) -> tuple[str, ...]:
    """``a,b``: a comma-separated list (EMULATOR_SCENARIO), blanks dropped."""
    return tuple(name.strip() for name in text.split(",") if name.strip())


def parse_switch(text: str) -> bool:
    """``1``, ``true``, ``yes``, ``on`` or ``0``, ``false``, ``no``, ``off`` (any case)."""
    word = text.strip().lower()
    if word in ("1", "true", "yes", "on"):
        return True
    if word in ("0", "false", "no", "off", ""):
        return False
    raise ValueError(f"expected 1/true/yes/on or 0/false/no/off, not {text!r}")


def parse_paths(text: str) -> tuple[Path, ...]:
    """Paths separated as PATH separates them (``:``; ``;`` on Windows)."""
    return tuple(Path(p) for p in text.split(os.pathsep) if p.strip())


@dataclass(frozen=True)
class Settings:
    host: str = DEFAULT_HOST
    port: int = DEFAULT_PORT
    db_path: Path = DEFAULT_DB
    clock: Mode = "real"
    start: datetime | None = None
    # True when the clock was given on the command line / environment: it then wins over the
    # clock state stored in the database by an earlier run.
    clock_explicit: bool = False
    seed: int | None = None  # seeds the random source: repeatable ids and tokens
    # Required on the control plane when set (always set when not bound to loopback).
    admin_token: str | None = None
    ticker_interval: float = 1.0
    # Scenarios active for every merchant from the start (names of shipped ones or files).
    scenarios: tuple[str, ...] = ()
    # A requests-per-window limit per merchant (429 rate_limit_exceeded over it), or None.
    rate_limit: RateLimitSetting | None = None
    # Hosts webhooks and callbacks may reach over plain HTTP besides loopback ("*": any).
    callback_hosts: tuple[str, ...] = ()
    # Delivered outbox events, deliveries and sink messages older than this many seconds (on
    # the emulator's clock) are pruned; None keeps everything.
    retain_seconds: int | None = DEFAULT_RETAIN
    # HTTPS: with a certificate the emulator makes (tls_cert None) or the one given.
    tls: bool = False
    tls_cert: Path | None = None
    tls_key: Path | None = None
    tls_ca: Path | None = None  # the CA of a certificate the emulator made (clients trust it)
    # A CA file outbound deliveries trust besides the system's (a receiver's own CA).
    callback_ca: Path | None = None
    # Request bodies with keys the platform ignores are refused (400) instead of warned about.
    strict_requests: bool = False
    # The X-Emulator-Outcome request header forces an object's outcome; off: it is ignored.
    outcome_header: bool = True
    log_level: str = "info"  # uvicorn's
    # State files loaded at every start, in order (``--load``); the folder of named states.
    load: tuple[Path, ...] = ()
    states: Path | None = None
    flows: Path | None = None  # the flow library (``--flows``); None: the shipped flows/
    extra: dict[str, str] = field(default_factory=dict)

    @property
    def in_memory(self) -> bool:
        return self.db_path == MEMORY

    @property
    def loopback(self) -> bool:
        return self.host in LOOPBACK_HOSTS or self.host.startswith("127.")

    @property
    def base_url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{'https' if self.tls else 'http'}://{host}:{self.port}"


def _port(text: str) -> int:
    port = int(text)
    if not 1 <= port <= 65535:
        raise ValueError("must be a port number 1..65535")
    return port


@dataclass(frozen=True)
class Variable:
    """An environment variable the emulator reads, the flag that wins over it and its default
    (as the reference says it). ``key``: the Settings field ``serve`` sets from it (None: only
    the client verbs read it, in ``emulator.cli.client``)."""

    name: str
    flag: str
    default: str
    key: str | None = None
    parse: Callable[[str], object] = str
    read_by: tuple[str, ...] = ("serve",)


CLIENT_VERBS = "the client verbs"
DEFAULT_URL = f"http://{DEFAULT_HOST}:{DEFAULT_PORT}"  # where the client verbs look

# Every EMULATOR_* variable, in one place: ``from_env`` reads the ones with a key, the
# reference (tools/reference.py) tabulates them all.
VARIABLES: tuple[Variable, ...] = (
    Variable("EMULATOR_HOST", "--host", DEFAULT_HOST, "host"),
    Variable("EMULATOR_PORT", "--port", str(DEFAULT_PORT), "port", _port),
    Variable("EMULATOR_DB", "--db", str(DEFAULT_DB), "db_path", Path),
    Variable("EMULATOR_CLOCK", "--clock", "real", "clock"),
    Variable("EMULATOR_START", "--start", "now", "start", parse_iso),
    Variable("EMULATOR_SEED", "--seed", "random", "seed", int),
    Variable(
        "EMULATOR_ADMIN_TOKEN",
        "--admin-token",
        "none on loopback; generated (and printed) when not bound to loopback",
        "admin_token",
        read_by=("serve", CLIENT_VERBS),
    ),
    Variable("EMULATOR_RATE_LIMIT", "--rate-limit", "none", "rate_limit", RateLimitSetting.parse),
    Variable("EMULATOR_CALLBACK_HOSTS", "--callback-hosts", "none", "callback_hosts", parse_hosts),
    Variable(
        "EMULATOR_RETAIN",
        "--retain",
        f"{DEFAULT_RETAIN // 86_400}d",
        "retain_seconds",
        parse_retain,
    ),
    Variable(
        "EMULATOR_STRICT_REQUESTS", "--strict-requests", "off", "strict_requests", parse_switch
    ),
    Variable(
        "EMULATOR_NO_OUTCOME_HEADER",
        "--no-outcome-header",
        "off",
        "outcome_header",
        lambda text: not parse_switch(text),
    ),
    Variable("EMULATOR_SCENARIO", "--scenario", "none", "scenarios", parse_names),
    Variable("EMULATOR_LOG_LEVEL", "--log-level", "info", "log_level", str.lower),
    Variable("EMULATOR_EPHEMERAL", "--ephemeral", "off", "ephemeral", parse_switch),
    Variable("EMULATOR_TLS", "--tls", "off", "tls", parse_switch),
    Variable("EMULATOR_TLS_CERT", "--tls-cert", "none", "tls_cert", Path),
    Variable("EMULATOR_TLS_KEY", "--tls-key", "none", "tls_key", Path),
    Variable("EMULATOR_CALLBACK_CA", "--callback-ca", "none", "callback_ca", Path),
    Variable("EMULATOR_LOAD", "--load", "none", "load", parse_paths),
    Variable("EMULATOR_STATES", "--states", "none", "states", Path),
    Variable("EMULATOR_FLOWS", "--flows", "the shipped flows/", "flows", Path),
    Variable("EMULATOR_URL", "--url", DEFAULT_URL, read_by=(CLIENT_VERBS,)),
)


# (variable, Settings field, parser) of what ``serve`` reads.
def from_env(env: dict[str, str] | None = None) -> dict[str, object]:
    """Values from EMULATOR_* environment variables (flags override them). A value that does
    not parse is a ValueError naming its variable."""
    env = dict(os.environ) if env is None else env
    out: dict[str, object] = {}
    for variable in VARIABLES:
        if variable.key is not None and variable.name in env:
            text = env[variable.name]
            try:
                out[variable.key] = variable.parse(text)
            except ValueError as exc:
                raise ValueError(f"{variable.name}={text!r}: {exc}") from None
    clock = out.get("clock")
    if clock is not None and clock not in MODES:
        raise ValueError(f"EMULATOR_CLOCK must be one of {', '.join(MODES)}, not {clock!r}")
    return out
