"""How an emulator is configured: command-line flags, environment variables, defaults."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from emulator.kernel.clock import Mode, parse_iso

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8400
DEFAULT_DB = Path(".emulator") / "emulator.sqlite3"

LOOPBACK_HOSTS = frozenset({"127.0.0.1", "localhost", "::1"})


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
    admin_token: str | None = None  # required on the control plane when not bound to loopback
    ticker_interval: float = 1.0
    extra: dict[str, str] = field(default_factory=dict)

    @property
    def loopback(self) -> bool:
        return self.host in LOOPBACK_HOSTS or self.host.startswith("127.")

    @property
    def base_url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}"


def from_env(env: dict[str, str] | None = None) -> dict[str, object]:
    """Values from EMULATOR_* environment variables (flags override them)."""
    env = dict(os.environ) if env is None else env
    out: dict[str, object] = {}
    if "EMULATOR_HOST" in env:
        out["host"] = env["EMULATOR_HOST"]
    if "EMULATOR_PORT" in env:
        out["port"] = int(env["EMULATOR_PORT"])
    if "EMULATOR_DB" in env:
        out["db_path"] = Path(env["EMULATOR_DB"])
    if "EMULATOR_CLOCK" in env:
        out["clock"] = env["EMULATOR_CLOCK"]
    if "EMULATOR_START" in env:
        out["start"] = parse_iso(env["EMULATOR_START"])
    if "EMULATOR_SEED" in env:
        out["seed"] = int(env["EMULATOR_SEED"])
    if "EMULATOR_ADMIN_TOKEN" in env:
        out["admin_token"] = env["EMULATOR_ADMIN_TOKEN"]
    return out
