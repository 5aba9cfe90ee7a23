"""Outcomes per request: keep an ``X-Emulator-Outcome`` with the object it was given for, as
an activation scoped to its merchant whose one rule per point matches the object's id
(``emulator/scenarios/outcomes.py``), so it decides when the object's decision comes and the
scenario listing says that an outcome header made it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from emulator.sandbox.scenarios import service as scenarios
from emulator.scenarios import outcomes
from emulator.scenarios.rules import parse

if TYPE_CHECKING:
    from emulator.kernel.context import Context


async def keep(
    rt: Context, merchant_id: str, object_id: str, forced: outcomes.Forced, where: str
) -> str | None:
    """Activate the object's own outcome; its activation's name (None: the id cannot name
    one, and then only the decisions of the creating request itself were forced)."""
    name = outcomes.name_of(object_id)
    if name is None:
        return None
    scenario = parse(outcomes.source(object_id, forced, where))
    await scenarios.activate(rt, name, merchant_id, scenario)
    return name
