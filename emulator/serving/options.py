"""``serve`` flags of operability: retention, the hosts of a CI network, HTTPS.

Kept apart from ``emulator.cli`` (which gathers them): each flag's parsing, its check at
start-up (one line naming the flag, exit 2, nothing created) and its banner line."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
import sqlite3
import ssl
import tempfile
from pathlib import Path
from typing import Any

from emulator.domain.errors import ControlError
from emulator.runtime.settings import Settings, parse_hosts, parse_retain


def add_flags(serve: argparse.ArgumentParser) -> None:
    serve.add_argument(
        "--retain",
        metavar="DURATION",
        help="prune delivered events, deliveries and sink messages older than this on the"
        " emulator clock: 7d, 12h, 2h30m, or 0/off to keep everything (env EMULATOR_RETAIN,"
        " default 7d)",
    )
    serve.add_argument(
        "--callback-hosts",
        metavar="HOST[,HOST...]",
        help="hosts webhooks and callbacks may reach over plain HTTP besides loopback, e.g."
        " app,worker (any port) or app:8000 (that port only); * for any"
        " (env EMULATOR_CALLBACK_HOSTS)",
    )
    serve.add_argument(
        "--strict-requests",
        action="store_true",
        default=None,
        help="refuse (400) request bodies with keys the platform ignores, instead of naming"
        " them in X-Emulator-Warnings (env EMULATOR_STRICT_REQUESTS=1)",
    )
    serve.add_argument(
        "--no-outcome-header",
        action="store_true",
        default=None,
        help="ignore the X-Emulator-Outcome request header, as the platform would"
        " (env EMULATOR_NO_OUTCOME_HEADER=1)",
    )
    serve.add_argument(
        "--tls",
        action="store_true",
        default=None,
        help="serve HTTPS with a certificate the emulator makes (its CA: the banner says where;"
        " GET /_emulator/tls/ca.pem) (env EMULATOR_TLS=1)",
    )
    serve.add_argument(
        "--tls-cert",
        type=Path,
        metavar="FILE",
        help="serve HTTPS with this PEM (env EMULATOR_TLS_CERT)",
    )
    serve.add_argument(
        "--tls-key", type=Path, metavar="FILE", help="the key of --tls-cert (env EMULATOR_TLS_KEY)"
    )
    serve.add_argument(
        "--callback-ca",
        type=Path,
        metavar="FILE",
        help="trust this CA (PEM) too when delivering webhooks and callbacks"
        " (env EMULATOR_CALLBACK_CA)",
    )

    serve.add_argument(
        "--load",
        action="append",
        type=Path,
        metavar="FILE",
        help="load this state file (YAML or JSON, as GET /_emulator/export writes it) at start"
        " (repeatable; env EMULATOR_LOAD, paths separated like PATH)",
    )
    serve.add_argument(
        "--states",
        type=Path,
        metavar="DIR",
        help="the folder of named states: POST /_emulator/states/{name} loads DIR/name.yaml"
        " (env EMULATOR_STATES)",
    )
    serve.add_argument(
        "--flows",
        type=Path,
        metavar="DIR",
        help="the flow library: GET /_emulator/flows lists DIR/*.yaml, POST"
        " /_emulator/flows/runs runs one by name (env EMULATOR_FLOWS; default: the shipped flows/)",
    )


def apply(args: argparse.Namespace, values: dict[str, Any]) -> None:
    """The flags into ``values`` (over the environment's); a ValueError naming the flag (or
    the variable, for what only the environment gave)."""
    if args.retain is not None:
        try:
            values["retain_seconds"] = parse_retain(args.retain)
        except ValueError as exc:
            raise ValueError(f"--retain: {exc}") from None
    if args.callback_hosts is not None:
        try:
            values["callback_hosts"] = parse_hosts(args.callback_hosts)
        except ValueError as exc:
            raise ValueError(f"--callback-hosts: {exc}") from None
    if args.strict_requests:
        values["strict_requests"] = True
    if args.no_outcome_header:
        values["outcome_header"] = False
    if args.tls_cert is not None or args.tls_key is not None:
        if (args.tls_cert is None) != (args.tls_key is None):
            raise ValueError("--tls-cert and --tls-key go together")
        values.update(tls_cert=args.tls_cert, tls_key=args.tls_key)
    elif (values.get("tls_cert") is None) != (values.get("tls_key") is None):
        raise ValueError("EMULATOR_TLS_CERT and EMULATOR_TLS_KEY go together")
    if values.get("tls_cert") is not None:
        try:
            from emulator.serving import tls  # cryptography: only when serving HTTPS

            tls.check_given(values["tls_cert"], values["tls_key"])
        except ValueError as exc:
            if args.tls_cert is not None:
                raise
            named = str(exc).replace("--tls-cert", "EMULATOR_TLS_CERT")
            raise ValueError(named.replace("--tls-key", "EMULATOR_TLS_KEY")) from None
        values["tls"] = True
    elif args.tls:
        values["tls"] = True
    callback_ca = args.callback_ca if args.callback_ca is not None else values.get("callback_ca")
    if callback_ca is not None:
        name = "--callback-ca" if args.callback_ca is not None else "EMULATOR_CALLBACK_CA"
        try:
            ssl.create_default_context().load_verify_locations(cafile=callback_ca)
        except (OSError, ssl.SSLError) as exc:
            raise ValueError(f"{name}: {callback_ca} is not a PEM CA file ({exc})") from None
        values["callback_ca"] = callback_ca
    if args.load:
        values["load"] = tuple(args.load)
    if args.states is not None:
        values["states"] = args.states
    if args.flows is not None:
        values["flows"] = args.flows
    flows = values.get("flows")
    if isinstance(flows, Path) and not flows.is_dir():
        raise ValueError(f"--flows: {flows} is not a folder")
    _check_state_files(values)


def _check_state_files(values: dict[str, Any]) -> None:
    """State files are read and checked before anything starts (what they hold is checked
    against the database when they load)."""
    folder = values.get("states")
    if isinstance(folder, Path) and not folder.is_dir():
        raise ValueError(f"--states: {folder} is not a folder")
    from emulator.sandbox.state import (
        service_load as state_load,  # the state package: only for --load
    )
    from emulator.sandbox.state.service_tables import Refused

    loads = values.get("load", ())
    assert isinstance(loads, tuple)
    files: list[tuple[Path, bytes]] = []
    for path in loads:
        try:
            raw = path.read_bytes()
        except OSError as exc:
            raise ValueError(f"--load: {path}: {exc.strerror or exc}") from None
        try:
            state_load.check_top(state_load.decode(raw, path.suffix == ".json"))
        except Refused as exc:
            raise ValueError(f"--load: {path}: {exc}") from None
        files.append((path, raw))
    if files:
        asyncio.run(_dry_run(files, values))


async def _dry_run(files: list[tuple[Path, bytes]], values: dict[str, Any]) -> None:
    """Load the files into a throwaway emulator set as this one (its callback hosts, clock,
    seed), on a copy of the database it will serve when that exists: what they hold, and a
    clash with what the database holds, is refused before anything starts."""
    from emulator.runtime.runtime import Runtime
    from emulator.sandbox.state import service_load as state_load

    fields = {f.name for f in dataclasses.fields(Settings)}
    given = {k: v for k, v in values.items() if k in fields}
    settings = Settings(**given)
    with tempfile.TemporaryDirectory(prefix="emulator-load-") as folder:
        copy = Path(folder) / "check.sqlite3"
        if not settings.in_memory and settings.db_path.is_file():
            _copy_database(settings.db_path, copy)
        scratch = dataclasses.replace(
            settings,
            db_path=copy,
            load=(),
            retain_seconds=None,
            tls=False,
            tls_cert=None,
            tls_key=None,
        )
        async with Runtime(scratch) as rt:
            for path, raw in files:
                try:
                    await state_load.load_bytes(rt, raw, scratch.base_url, path.suffix == ".json")
                except ControlError as exc:
                    raise ValueError(f"--load: {path}: {exc.detail}") from None


def _copy_database(source: Path, target: Path) -> None:
    """A consistent copy of a database file (its WAL included), read-only on the source."""
    with contextlib.closing(sqlite3.connect(f"{source.as_uri()}?mode=ro", uri=True)) as src:
        with contextlib.closing(sqlite3.connect(target)) as dst:
            src.backup(dst)


def make_certificate(settings: Settings) -> Settings:
    """With ``--tls`` and no certificate given: the emulator's own, made (or reused) now."""
    if not settings.tls or settings.tls_cert is not None:
        return settings
    from emulator.serving import tls  # cryptography: only when serving HTTPS

    # In memory there is no file to keep it beside: one of its own, made for this run.
    where = (
        Path(tempfile.mkdtemp(prefix="payments-emulator-tls-"))
        if settings.in_memory
        else tls.directory_for(settings.db_path)
    )
    files = tls.ensure(where, settings.host)
    return dataclasses.replace(settings, tls_cert=files.cert, tls_key=files.key, tls_ca=files.ca)


def banner_lines(settings: Settings) -> list[str]:
    lines = []
    if settings.tls_ca is not None:
        lines.append(
            f"HTTPS: trust the emulator's CA {settings.tls_ca} (GET /_emulator/tls/ca.pem)"
        )
    elif settings.tls_cert is not None:
        lines.append(f"HTTPS: certificate {settings.tls_cert}")
    if settings.callback_hosts:
        lines.append(f"plain-HTTP callback hosts: {', '.join(settings.callback_hosts)}")
    if settings.callback_ca is not None:
        lines.append(f"deliveries also trust the CA {settings.callback_ca}")
    if settings.strict_requests:
        lines.append("strict requests: keys the platform ignores are refused (400)")
    if not settings.outcome_header:
        lines.append("X-Emulator-Outcome: ignored, as the platform would")
    if settings.load:
        lines.append(f"state loaded at start: {', '.join(str(p) for p in settings.load)}")
    if settings.states is not None:
        lines.append(f"named states: {settings.states} (POST /_emulator/states/NAME)")
    retain = settings.retain_seconds
    lines.append(f"retention: {'off (keeps everything)' if retain is None else _span(retain)}")
    return lines


def _span(seconds: int) -> str:
    for unit, size in (("d", 86_400), ("h", 3600), ("m", 60)):
        if seconds % size == 0:
            return f"{seconds // size}{unit} on the emulator clock"
    return f"{seconds}s on the emulator clock"
