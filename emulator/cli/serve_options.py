"""``serve``'s options: its flags, and the settings they make with the environment's
``EMULATOR_*`` variables (a flag given wins over its variable)."""

from __future__ import annotations

import argparse
import dataclasses
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the server's modules: imported when `serve` runs (a verb starts without)
    from emulator.runtime.settings import Settings


def serve_flags(serve: argparse.ArgumentParser) -> None:
    from emulator.kernel.clock import MODES
    from emulator.runtime.settings import DEFAULT_DB, DEFAULT_HOST, DEFAULT_PORT
    from emulator.serving import options as serve_options

    serve.add_argument(
        "--host", help=f"address to bind (env EMULATOR_HOST, default {DEFAULT_HOST})"
    )
    serve.add_argument("--port", help=f"port 1..65535 (env EMULATOR_PORT, default {DEFAULT_PORT})")
    serve.add_argument(
        "--db",
        type=Path,
        help=f"SQLite file, or :memory: to keep everything in memory (env EMULATOR_DB, default"
        f" {DEFAULT_DB})",
    )
    serve.add_argument(
        "--ephemeral",
        action="store_true",
        default=None,
        help="keep everything in memory, no file: --db :memory: (env EMULATOR_EPHEMERAL=1)",
    )
    serve.add_argument(
        "--clock", choices=MODES, help="real or frozen (env EMULATOR_CLOCK, default real)"
    )
    serve.add_argument(
        "--start", help="start the clock at this ISO-8601 instant (env EMULATOR_START)"
    )
    serve.add_argument("--seed", type=int, help="seed for ids and tokens (env EMULATOR_SEED)")
    serve.add_argument(
        "--admin-token",
        default=argparse.SUPPRESS,  # given before `serve` too; absent means none given
        help="control-plane token, required wherever it is given; generated when not bound to"
        " loopback (env EMULATOR_ADMIN_TOKEN)",
    )
    serve.add_argument(
        "--scenario",
        action="append",
        default=[],
        metavar="NAME_OR_FILE",
        help="activate a shipped scenario or a scenario file for every merchant (repeatable;"
        " EMULATOR_SCENARIO takes them comma-separated)",
    )
    serve.add_argument(
        "--rate-limit",
        metavar="N[/SECONDS]",
        help="at most N requests per merchant per window (default 60 s) (env EMULATOR_RATE_LIMIT)",
    )
    serve.add_argument(
        "--log-level", help="uvicorn log level (env EMULATOR_LOG_LEVEL, default info)"
    )
    serve_options.add_flags(serve)


def settings_from(args: argparse.Namespace, env: dict[str, str] | None = None) -> Settings:
    from datetime import datetime

    from emulator.kernel.clock import CLOCK_RANGE, in_clock_range, parse_iso, to_us
    from emulator.runtime.settings import MEMORY, RateLimitSetting, Settings, from_env
    from emulator.serving import options as serve_options
    from emulator.serving.startup import (
        check_admin_token,
        check_db_path,
        check_log_level,
        parse_port,
    )

    values = from_env(env)
    if args.log_level is not None:
        values["log_level"] = args.log_level.lower()
    check_log_level(
        str(values.get("log_level", "info")),
        "--log-level" if args.log_level is not None else "EMULATOR_LOG_LEVEL",
    )
    if args.port is not None:
        values["port"] = parse_port(args.port, "--port")
    if values.pop("ephemeral", False) and args.db is None:
        values["db_path"] = MEMORY
    if args.ephemeral:
        if args.db is not None and args.db != MEMORY:
            raise ValueError("--ephemeral keeps everything in memory: give it or --db, not both")
        values["db_path"] = MEMORY
    for flag, key in (("host", "host"), ("db", "db_path"), ("seed", "seed")):
        if getattr(args, flag) is not None:
            values[key] = getattr(args, flag)
    if args.clock is not None:
        values["clock"] = args.clock
    if args.start is not None:
        values["start"] = parse_iso(args.start)
    if getattr(args, "admin_token", None) is not None:
        values["admin_token"] = args.admin_token
    if args.rate_limit is not None:
        try:
            values["rate_limit"] = RateLimitSetting.parse(args.rate_limit)
        except ValueError as exc:
            raise ValueError(f"--rate-limit: {exc}") from None
    serve_options.apply(args, values)
    if args.scenario:
        values["scenarios"] = tuple(args.scenario)
    from emulator.sandbox.scenarios.service import resolve  # the services: only when serving

    try:  # bad names and files are refused before anything starts
        resolve(tuple(values.get("scenarios", ())))  # type: ignore[arg-type]
    except ValueError as exc:
        raise ValueError(f"{'' if args.scenario else 'EMULATOR_SCENARIO: '}{exc}") from None
    values["clock_explicit"] = "clock" in values or "start" in values
    start = values.get("start")
    if isinstance(start, datetime) and not in_clock_range(to_us(start)):
        raise ValueError(f"--start / EMULATOR_START must be {CLOCK_RANGE}")
    settings = Settings(**values)  # type: ignore[arg-type]
    check_admin_token(settings)
    check_db_path(settings.db_path)
    if settings.admin_token == "":  # on loopback an empty token (an unset variable) is none
        settings = dataclasses.replace(settings, admin_token=None)
    if not settings.loopback and settings.admin_token is None:
        from emulator.kernel.ids import Ids

        settings = dataclasses.replace(settings, admin_token=Ids().token(32))
    return settings
