"""Loaded scenarios, activations and `times` counters in SQLite."""

from __future__ import annotations

import msgspec

from emulator.kernel.storage import Tx

GLOBAL = ""  # the scope of an activation for every merchant


class ActivationRow(msgspec.Struct, frozen=True):
    id: int
    name: str
    scope: str
    source: str
    activated_us: int


def save_definition(tx: Tx, name: str, source: str, at_us: int) -> None:
    tx.execute(
        "INSERT INTO scenarios (name, source, loaded_us) VALUES (?, ?, ?) ON CONFLICT (name)"
        " DO UPDATE SET source = excluded.source, loaded_us = excluded.loaded_us",
        (name, source, at_us),
    )


def definitions(tx: Tx) -> dict[str, str]:
    return {row[0]: row[1] for row in tx.all("SELECT name, source FROM scenarios ORDER BY name")}


def definition(tx: Tx, name: str) -> str | None:
    row = tx.one("SELECT source FROM scenarios WHERE name = ?", (name,))
    return None if row is None else str(row[0])


def activate(tx: Tx, name: str, scope: str, source: str, at_us: int, uses: dict[int, int]) -> int:
    """A new activation (replacing one of the same name and scope: it becomes the newest, and
    its counters start over). ``uses``: rule index → times."""
    tx.execute("DELETE FROM scenario_activations WHERE name = ? AND scope = ?", (name, scope))
    cursor = tx.execute(
        "INSERT INTO scenario_activations (name, scope, source, activated_us) VALUES (?, ?, ?, ?)",
        (name, scope, source, at_us),
    )
    activation_id = cursor.lastrowid
    assert activation_id is not None
    tx.conn.executemany(
        "INSERT INTO scenario_uses (activation_id, rule_index, remaining) VALUES (?, ?, ?)",
        [(activation_id, index, times) for index, times in uses.items()],
    )
    return activation_id


def deactivate(tx: Tx, name: str, scope: str) -> bool:
    cursor = tx.execute(
        "DELETE FROM scenario_activations WHERE name = ? AND scope = ?", (name, scope)
    )
    return cursor.rowcount > 0


def activations(tx: Tx) -> list[ActivationRow]:
    rows = tx.all(
        "SELECT id, name, scope, source, activated_us FROM scenario_activations ORDER BY id DESC"
    )
    return [ActivationRow(*row) for row in rows]


def remaining(tx: Tx) -> dict[int, dict[int, int]]:
    """activation id → rule index → uses left."""
    found: dict[int, dict[int, int]] = {}
    for row in tx.all("SELECT activation_id, rule_index, remaining FROM scenario_uses"):
        found.setdefault(row[0], {})[row[1]] = row[2]
    return found


def take_use(tx: Tx, activation_id: int, rule_index: int) -> bool:
    """Spend one use of a counted rule; False when none is left (or it was deactivated)."""
    cursor = tx.execute(
        "UPDATE scenario_uses SET remaining = remaining - 1"
        " WHERE activation_id = ? AND rule_index = ? AND remaining > 0",
        (activation_id, rule_index),
    )
    return cursor.rowcount > 0


def merchant_exists(tx: Tx, merchant_id: str) -> bool:
    return tx.one("SELECT 1 FROM merchants WHERE id = ?", (merchant_id,)) is not None
