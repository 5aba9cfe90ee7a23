"""``GET /_emulator/export``: the whole state, or one merchant's, as a readable document.

Stable: merchants in creation order, each one's entries in creation order (then id), an
entry's keys in its table's column order and its objects' keys in the order the API answers
them, so two exports of the same state are equal and two of nearby states diff line by line.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import msgspec
import yaml

from emulator.core.merchants import repo as merchants_repo
from emulator.domain.errors import ControlError
from emulator.kernel.clock import Clock, ClockState
from emulator.kernel.storage import Tx
from emulator.sandbox.control import service as control
from emulator.sandbox.state.service_tables import TABLES, instant, rows_of

if TYPE_CHECKING:
    from emulator.kernel.context import Context

VERSION = 1  # of the file format: a later release reads every earlier version
FORMATS = ("yaml", "json")
# Jobs a state file leaves out: sends of deliveries (their messages are history, not state)
# and the housekeeping the emulator schedules for itself.
UNEXPORTED_JOBS = ("delivery.send", "retention.prune")
_decode = msgspec.json.Decoder()


def clock_entry(state: ClockState) -> dict[str, Any]:
    clock = Clock()
    clock.restore(state)
    return {"mode": state.mode, "now": instant(clock.now_us())}


def _jobs(tx: Tx, merchant_id: str) -> list[dict[str, Any]]:
    marks = ", ".join("?" for _ in UNEXPORTED_JOBS)
    rows = tx.all(
        "SELECT kind, due_us, payload FROM jobs WHERE merchant_id = ? AND state = 'pending'"
        f" AND kind NOT IN ({marks}) ORDER BY due_us, id",
        (merchant_id, *UNEXPORTED_JOBS),
    )
    return [{"kind": r[0], "due": instant(r[1]), "payload": _decode.decode(r[2])} for r in rows]


def _activations(tx: Tx, scope: str) -> list[dict[str, Any]]:
    out = []
    rows = tx.all(
        "SELECT id, name, source, activated_us FROM scenario_activations WHERE scope = ?"
        " ORDER BY id",
        (scope,),
    )
    for row in rows:
        uses = tx.all(
            "SELECT rule_index, remaining FROM scenario_uses WHERE activation_id = ?"
            " ORDER BY rule_index",
            (row[0],),
        )
        entry: dict[str, Any] = {
            "name": row[1],
            "activated": instant(row[3]),
            "source": row[2],
        }
        if uses:
            entry["uses"] = [{"rule_index": u[0], "remaining": u[1]} for u in uses]
        out.append(entry)
    return out


def _merchant(tx: Tx, merchant_id: str, own: dict[str, ClockState]) -> dict[str, Any]:
    row = tx.one("SELECT id, name, created_us, data FROM merchants WHERE id = ?", (merchant_id,))
    assert row is not None
    out: dict[str, Any] = {
        "id": row[0],
        "name": row[1],
        "created": instant(row[2]),
        "data": _decode.decode(row[3]),
    }
    if merchant_id in own:
        out["clock"] = clock_entry(own[merchant_id])
    for table in TABLES:
        entries = rows_of(tx, table, merchant_id)
        if entries:
            out[table.key] = entries
    activations = _activations(tx, merchant_id)
    if activations:
        out["scenarios"] = activations
    jobs = _jobs(tx, merchant_id)
    if jobs:
        out["jobs"] = jobs
    return out


def document(tx: Tx, server: ClockState, merchant_id: str | None) -> dict[str, Any]:
    own = dict(merchants_repo.own_clocks(tx))
    clock = clock_entry(server)  # read once: a real clock moves on
    doc: dict[str, Any] = {"version": VERSION, "exported_at": clock["now"], "clock": clock}
    if merchant_id is None:
        scenarios = tx.all("SELECT name, source, loaded_us FROM scenarios ORDER BY loaded_us, name")
        if scenarios:
            doc["scenarios"] = [
                {"name": r[0], "loaded": instant(r[2]), "source": r[1]} for r in scenarios
            ]
        active = _activations(tx, "")
        if active:
            doc["active_scenarios"] = active
        ids = [r[0] for r in tx.all("SELECT id FROM merchants ORDER BY created_us, rowid")]
    else:
        ids = [merchant_id]
    doc["merchants"] = [_merchant(tx, m, own) for m in ids]
    return doc


async def export(rt: Context, merchant_id: str | None) -> dict[str, Any]:
    if merchant_id is not None:
        await control.merchant_clock(rt, merchant_id)  # 404 for an unknown merchant
    await rt.deliveries.flush(merchant_id=merchant_id)  # every event dispatched: settled
    await rt.journal.flush()
    server = rt.scheduler.server.clock.state()
    await control.save_clock(rt)
    for timeline in list(rt.scheduler.timelines.values()):
        await control.save_clock(rt, timeline)  # a real clock's state, as of now
    return await rt.db.read(lambda tx: document(tx, server, merchant_id))


class _Dumper(getattr(yaml, "CSafeDumper", yaml.SafeDumper)):  # type: ignore[misc]
    """Block style, multi-line strings as literal blocks, and never an alias (``*id001``):
    the same value twice is written twice, as a reader (and the import) expects."""

    def ignore_aliases(self, data: Any) -> bool:
        return True


def _text(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    style = "|" if "\n" in value else None  # PEM keys, scenario sources: as written
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_Dumper.add_representer(str, _text)


def render(doc: dict[str, Any], fmt: str) -> str:
    if fmt == "json":
        return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"
    if fmt == "yaml":
        text: str = yaml.dump(doc, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=100)
        return text
    raise ControlError(400, "invalid", f"'format' must be one of: {', '.join(FORMATS)}")
