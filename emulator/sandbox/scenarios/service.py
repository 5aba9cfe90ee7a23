"""Scenarios through the control plane, the CLI and the pytest plugin: load, activate,
deactivate, list. The engine (``emulator/scenarios/engine.py``) answers the decisions."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec

from emulator.domain.errors import ControlError
from emulator.kernel.clock import from_us, iso
from emulator.kernel.storage import Tx
from emulator.scenarios import library, outcomes, repo
from emulator.scenarios.points import REGISTRY
from emulator.scenarios.rules import InvalidScenario, Scenario, parse

if TYPE_CHECKING:
    from emulator.kernel.context import Context


def _invalid(exc: InvalidScenario) -> ControlError:
    return ControlError(400, "invalid_scenario", str(exc))


def _find(tx: Tx, name: str) -> Scenario | None:
    """A loaded scenario of that name, else the shipped one."""
    source = repo.definition(tx, name)
    if source is not None:
        try:
            return parse(source)
        except InvalidScenario:  # stored by an older version; the library may still have it
            pass
    return library.shipped().get(name)


async def define(rt: Context, source: bytes | str) -> Scenario:
    """Load (or replace) a scenario from YAML; it is not active until activated."""
    try:
        scenario = parse(source)
    except InvalidScenario as exc:
        raise _invalid(exc) from None
    if scenario.name.startswith(outcomes.PREFIX):
        raise ControlError(
            400,
            "invalid_scenario",
            f"name: '{outcomes.PREFIX}...' names an object's X-Emulator-Outcome; choose another",
        )
    now = rt.clock.now_us()
    await rt.db.write(lambda tx: repo.save_definition(tx, scenario.name, scenario.source, now))
    return scenario


async def activate(
    rt: Context, name: str, merchant_id: str | None, chosen: Scenario | None = None
) -> dict[str, Any]:
    """Activate ``name`` (the loaded definition, else the shipped one; or ``chosen``)."""
    now = rt.clock.now_us()

    def unit(tx: Tx) -> Scenario:
        scenario = chosen or _find(tx, name)
        if scenario is None:
            raise ControlError(404, "scenario_not_found", f"no scenario named {name!r}")
        if merchant_id is not None and not repo.merchant_exists(tx, merchant_id):
            raise ControlError(404, "merchant_not_found", f"no merchant {merchant_id!r}")
        uses = {r.index: r.times for r in scenario.rules if r.times is not None}
        repo.activate(tx, name, merchant_id or repo.GLOBAL, scenario.source, now, uses)
        return scenario

    scenario = await rt.db.write(unit)
    await rt.scenarios.load()
    return {
        "name": scenario.name,
        "active": True,
        "merchant": merchant_id,
        "activated_at": iso(from_us(now)),
    }


async def deactivate(rt: Context, name: str, merchant_id: str | None) -> dict[str, Any]:
    scope = merchant_id or repo.GLOBAL
    found = await rt.db.write(lambda tx: repo.deactivate(tx, name, scope))
    if not found:
        whom = f"merchant {merchant_id!r}" if merchant_id else "every merchant (global)"
        raise ControlError(404, "not_active", f"scenario {name!r} is not active for {whom}")
    await rt.scenarios.load()
    return {"name": name, "active": False, "merchant": merchant_id}


class StartScenario(msgspec.Struct, frozen=True):
    scenario: Scenario
    from_file: bool


def resolve(items: tuple[str, ...]) -> list[StartScenario]:
    """``serve --scenario`` values: files are read now (once: a reset later activates what the
    process started with, even if a file changed or went away), names must be shipped."""
    found: list[StartScenario] = []
    for item in items:
        if looks_like_file(item):
            found.append(StartScenario(library.read_file(Path(item)), from_file=True))
            continue
        shipped = library.shipped().get(item)
        if shipped is None:
            raise ValueError(
                f"--scenario {item}: no shipped scenario of that name and no such file"
                " (`payments-emulator scenario list` lists them)"
            )
        found.append(StartScenario(shipped, from_file=False))
    return found


async def activate_at_start(rt: Context, chosen: list[StartScenario], *, keep_counts: bool) -> None:
    """Activate the ``serve --scenario`` scenarios for every merchant. At a restart
    (``keep_counts``) one already active with the same definition is left as it is, so its
    ``times`` counts go on where they were; after a reset each starts afresh."""
    active = await rt.db.read(repo.activations)
    for item in chosen:
        scenario = item.scenario
        if keep_counts and any(
            a.name == scenario.name and a.scope == repo.GLOBAL and a.source == scenario.source
            for a in active
        ):
            continue
        if item.from_file:
            await define(rt, scenario.source)
        await activate(rt, scenario.name, None, scenario)


def looks_like_file(item: str) -> bool:
    return item.endswith((".yaml", ".yml")) or "/" in item or Path(item).is_file()


async def listing(rt: Context) -> dict[str, Any]:
    def unit(tx: Tx) -> dict[str, Any]:
        loaded = repo.definitions(tx)
        active = repo.activations(tx)
        left = repo.remaining(tx)
        entries: dict[str, dict[str, Any]] = {}
        shipped = library.shipped()
        for name in sorted({*shipped, *loaded}):
            origin = "loaded" if name in loaded else "library"
            try:
                scenario = parse(loaded[name]) if name in loaded else shipped[name]
            except InvalidScenario as exc:
                entries[name] = {"name": name, "origin": origin, "error": str(exc), "active": []}
                continue
            entries[name] = _view(scenario, origin)
        for row in active:  # newest first
            if row.name not in entries and row.name.startswith(outcomes.PREFIX):
                entries[row.name] = _view(parse(row.source), "outcome_header")  # one object's
            entry = entries.setdefault(row.name, {"name": row.name, "origin": "gone"})
            entry.setdefault("active", []).append(
                {
                    "merchant": row.scope or None,
                    "activated_at": iso(from_us(row.activated_us)),
                    "uses_left": {str(i): n for i, n in sorted(left.get(row.id, {}).items())},
                }
            )
        return {"scenarios": list(entries.values()), "decision_points": sorted(REGISTRY)}

    return await rt.db.read(unit)


def _view(scenario: Scenario, origin: str) -> dict[str, Any]:
    return {
        "name": scenario.name,
        "description": scenario.description,
        "origin": origin,
        "points": sorted({r.point for r in scenario.rules}),
        "rules": len(scenario.rules),
        "active": [],
    }
