"""Loading a state file: ``POST /_emulator/import``, ``serve --load``, named states.

All or nothing: the file is checked and written in one unit of work; the first error names
its key path and nothing is loaded. Each merchant in the file replaces the one with its id;
the server clock is set when the file has ``clock``; loaded scenarios are replaced by name.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec

from emulator.delivery import keypool
from emulator.delivery.dispatch import CURSOR_KEY
from emulator.domain.errors import ControlError
from emulator.kernel.clock import Clock, ClockState
from emulator.kernel.storage import Tx
from emulator.sandbox.control import service as control
from emulator.sandbox.control import service_snapshots as control_service_snapshots
from emulator.sandbox.state import service_merchant as merchant
from emulator.sandbox.state.service_export import VERSION
from emulator.sandbox.state.service_tables import Refused, parse_instant
from emulator.scenarios import repo as scenarios_repo
from emulator.scenarios.rules import InvalidScenario, parse
from emulator.scenarios.yamlfile import YamlRefused, load_large

if TYPE_CHECKING:
    from emulator.kernel.context import Context

MAX_BYTES = 64 * 1024 * 1024
TOP_KEYS = ("version", "exported_at", "clock", "scenarios", "active_scenarios", "merchants")
STATE_SUFFIXES = (".yaml", ".yml", ".json")


def decode(raw: bytes, json_hint: bool = False) -> Any:
    """The document of a file's bytes: JSON when it says so or starts with ``{``, else YAML."""
    if len(raw) > MAX_BYTES:
        raise Refused("", f"a state file is at most {MAX_BYTES // 1024 // 1024} MiB")
    if json_hint or raw.lstrip()[:1] == b"{":
        try:
            return json.loads(raw)
        except (ValueError, RecursionError) as exc:
            raise Refused("", f"not valid JSON: {exc}") from None
    try:
        document = load_large(raw, MAX_BYTES, "a state file")
    except YamlRefused as exc:
        raise Refused("", str(exc)) from None
    return document


def check_top(doc: Any) -> dict[str, Any]:
    if not isinstance(doc, dict):
        raise Refused("", "a state file is a mapping (version, clock, merchants, ...)")
    for key in doc:
        if key not in TOP_KEYS:
            raise Refused(
                str(key), f"is not a key of a state file; the keys: {', '.join(TOP_KEYS)}"
            )
    version = doc.get("version")
    if version is None:
        raise Refused("version", f"is required (this release writes {VERSION})")
    if version != VERSION or isinstance(version, bool):
        raise Refused("version", f"{version!r} is not a version this release reads ({VERSION})")
    return doc


def _now_of(state: ClockState) -> int:
    clock = Clock()
    clock.restore(state)
    return clock.now_us()


def _loaded(tx: Tx, value: Any, now_us: int) -> dict[str, str]:
    """The file's scenario definitions, stored (replacing those of the same name)."""
    out: dict[str, str] = {}
    for index, entry in enumerate(merchant.entries("scenarios", value)):
        where = f"scenarios[{index}]"
        if not isinstance(entry, dict) or set(entry) - {"name", "source", "loaded"}:
            raise Refused(where, "must be a mapping of name, source, loaded")
        source = merchant.text(f"{where}.source", entry.get("source"))
        try:
            scenario = parse(source)
        except InvalidScenario as exc:
            raise Refused(f"{where}.source", str(exc)) from None
        if entry.get("name", scenario.name) != scenario.name:
            raise Refused(f"{where}.name", f"the source defines {scenario.name!r}")
        at = entry.get("loaded")
        at_us = now_us if at is None else parse_instant(f"{where}.loaded", at)
        scenarios_repo.save_definition(tx, scenario.name, scenario.source, at_us)
        out[scenario.name] = scenario.source
    return out


async def load(rt: Context, doc: Any, base_url: str) -> dict[str, Any]:
    """Load a decoded state file; what was loaded."""
    doc = check_top(doc)
    server = None
    if doc.get("clock") is not None:
        server = merchant.clock_state("clock", doc["clock"])
    listed = merchant.entries("merchants", doc.get("merchants"))
    keys: dict[str, tuple[str, str]] = {}
    for index, item in enumerate(listed):
        for path in merchant.prepare_keys(item, f"merchants[{index}]"):
            keys[path] = await keypool.take()
    prepared = merchant.Prepared(keys=keys, base_url=base_url)
    now_us = rt.clock.server.now_us() if server is None else _now_of(server)

    def unit(tx: Tx) -> list[str]:
        tx.execute("PRAGMA defer_foreign_keys = ON")
        loaded = _loaded(tx, doc.get("scenarios"), now_us)
        merchant.activate(tx, "active_scenarios", "", doc.get("active_scenarios"), now_us, loaded)
        ids = []
        for index, item in enumerate(listed):
            path = f"merchants[{index}]"
            if not isinstance(item, dict):
                raise Refused(path, "must be a mapping")
            own = item.get("clock")
            at = now_us if own is None else _now_of(merchant.clock_state(f"{path}.clock", own))
            ids.append(merchant.write(rt, tx, path, item, at, prepared))
        if len(set(ids)) != len(ids):
            raise Refused("merchants", "a merchant's id is given twice")
        # The file's events are history: dispatched (nothing is sent again for them).
        tx.execute(
            "INSERT INTO settings (key, value) SELECT ?, CAST(COALESCE(MAX(seq), 0) AS TEXT)"
            " FROM outbox WHERE true ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            (CURSOR_KEY,),
        )
        return ids

    await rt.deliveries.flush()  # what is stored is dispatched before the cursor moves on
    async with rt.scheduler.paused():
        try:
            ids = await rt.db.write(unit, alone=True)
        except Refused:
            raise
        except (sqlite3.Error, msgspec.MsgspecError, OverflowError, TypeError, ValueError) as exc:
            # what the checks above did not name: still the file's, and still nothing loaded
            raise Refused("", f"the file cannot be loaded: {exc}") from None
        if server is not None:
            rt.scheduler.server.clock.restore(server)
        rt.scheduler.timelines.forget_own_clocks()
        await control.load_own_clocks(rt)
        await rt.reload_state(wiped=False)
    return {"loaded": True, "merchants": ids, **control.clock_view(rt)}


def refused(exc: Refused) -> ControlError:
    code = "state_conflict" if exc.status == 409 else "invalid_state"
    return ControlError(exc.status, code, str(exc))


async def load_bytes(
    rt: Context, raw: bytes, base_url: str, json_hint: bool = False
) -> dict[str, Any]:
    try:
        return await load(rt, decode(raw, json_hint), base_url)
    except Refused as exc:
        raise refused(exc) from None


def named_states(folder: Path | None) -> list[str]:
    if folder is None or not folder.is_dir():
        return []
    return sorted(p.stem for p in folder.iterdir() if p.suffix in STATE_SUFFIXES and p.is_file())


def named_file(folder: Path | None, name: str) -> Path:
    if not control_service_snapshots.SNAPSHOT_NAME.match(name):
        raise ControlError(400, "invalid", "state names are 1-64 letters, digits, '.', '_' or '-'")
    if folder is None:
        raise ControlError(
            409, "no_states_folder", "no folder of named states: start with --states DIR"
        )
    for suffix in STATE_SUFFIXES:
        path = folder / f"{name}{suffix}"
        if path.is_file():
            return path
    raise ControlError(404, "state_not_found", f"no state named {name!r} in the states folder")


async def load_named(rt: Context, folder: Path | None, name: str, base_url: str) -> dict[str, Any]:
    path = named_file(folder, name)
    raw = await asyncio.to_thread(path.read_bytes)
    return {"name": name, **await load_bytes(rt, raw, base_url, path.suffix == ".json")}
