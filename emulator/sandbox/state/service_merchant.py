"""Writing one merchant of a state file, in the import's unit of work.

The merchant replaces the one with its id (deleted whole first, as ``DELETE
/_emulator/merchants/{id}`` deletes it); each list of entries is written in file order, so
lists read back in the same order. An id another merchant holds is a clash (409).
"""

from __future__ import annotations

import re
import sqlite3
from typing import TYPE_CHECKING, Any

import msgspec

from emulator.core.merchants import repo as merchants_repo
from emulator.core.merchants import repo_deletion as merchant_deletion
from emulator.core.merchants import service as merchants_service
from emulator.core.merchants.model import MerchantSeed
from emulator.gateway.purchases import repo as purchases_repo
from emulator.gateway.purchases import service_effects as purchase_common
from emulator.gateway.purchases.jobs import DUE_JOB, HOLD_EXPIRY_JOB, HOLD_SECONDS
from emulator.kernel.clock import CLOCK_RANGE, MODES, Clock, ClockState, from_us, in_clock_range
from emulator.kernel.storage import Tx
from emulator.sandbox.schedule import jobs as jobs_table
from emulator.sandbox.state import service_partial as partial
from emulator.sandbox.state.service_tables import (
    BY_KEY,
    TABLES,
    Refused,
    columns,
    insert,
    parse_instant,
    row,
)
from emulator.scenarios import library
from emulator.scenarios import repo as scenarios_repo
from emulator.scenarios.rules import InvalidScenario, parse

if TYPE_CHECKING:
    from emulator.kernel.context import Context

MERCHANT_KEYS = ("id", "name", "created", "data", "clock", "scenarios", "jobs")
KEYS = (*MERCHANT_KEYS, *BY_KEY)
COMPANY_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}\Z")  # one path segment
UNLOADED_JOBS = ("delivery.send", "retention.prune")
# Columns kept beside an object's data that repeat one of its fields: set from the data.
MIRRORED = {
    "bank_mandates": ("status",),
    "bank_collections": ("status",),
    "billing_subscribers": ("status",),
}


class Prepared(msgspec.Struct):
    """What a merchant's entries need made before the unit of work (key pairs are slow), and
    where the emulator is served (a purchase's page URLs)."""

    keys: dict[str, tuple[str, str]]  # webhook path -> (private, public)
    base_url: str


def clock_state(path: str, value: Any) -> ClockState:
    """``{mode, now}`` of a clock (``now`` as the clock reads it then)."""
    if not isinstance(value, dict) or set(value) - {"mode", "now"}:
        raise Refused(path, "must be a mapping of mode, now")
    mode = value.get("mode", "frozen")
    if mode not in MODES:
        raise Refused(f"{path}.mode", 'must be "frozen" or "real"')
    now = value.get("now")
    if now is None:
        raise Refused(f"{path}.now", "is required")
    moment = parse_instant(f"{path}.now", now)
    if not in_clock_range(moment):
        raise Refused(f"{path}.now", f"must be {CLOCK_RANGE}")
    return Clock(mode, from_us(moment)).state()


def text(path: str, value: Any) -> str:
    if not isinstance(value, str) or not value:
        raise Refused(path, "must be a non-empty string")
    return value


def entries(path: str, value: Any) -> list[Any]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise Refused(path, "must be a list")
    return value


def _insert(tx: Tx, path: str, table_name: str, values: dict[str, Any]) -> None:
    try:
        insert(tx, BY_KEY[table_name], values)
    except sqlite3.IntegrityError as exc:
        raise Refused(path, f"clashes with what is stored ({exc})", 409) from None


def write(
    rt: Context, tx: Tx, path: str, item: dict[str, Any], now_us: int, prepared: Prepared
) -> str:
    """Write the merchant; its id."""
    for key in item:
        if key not in KEYS:
            raise Refused(
                f"{path}.{key}", f"is not a key of a merchant; the keys: {', '.join(KEYS)}"
            )
    company_id = text(f"{path}.id", item["id"]) if "id" in item else rt.ids.uuid()
    if not COMPANY_ID.match(company_id):
        raise Refused(f"{path}.id", "a company_id is 1-64 letters, digits, '.', '_' or '-'")
    merchant_deletion.delete(tx, company_id)  # replaced whole
    name = text(f"{path}.name", item["name"]) if "name" in item else None
    seed: MerchantSeed = merchants_service.fresh_seed(
        rt, name, merchants_repo.next_client_number(tx)
    )
    name = name or seed.name
    created_us = parse_instant(f"{path}.created", item["created"]) if "created" in item else now_us
    given = partial.seed_entries(seed)
    for key in given:
        if key in item:
            given[key] = entries(f"{path}.{key}", item[key])
    if "data" in item:
        partial.check(f"{path}.data", item["data"], partial.DATA_TYPES["merchant"])
        data = item["data"]
        if data.get("company_id") != company_id:
            raise Refused(f"{path}.data.company_id", f"must be the merchant's id {company_id!r}")
    else:
        merchant = partial.merchant_data(seed, company_id, name, created_us // 1_000_000)
        brands = given["brands"]
        if brands and isinstance(brands[0], dict) and isinstance(brands[0].get("id"), str):
            merchant = msgspec.structs.replace(merchant, default_brand_id=brands[0]["id"])
        data = msgspec.to_builtins(merchant)
    try:
        tx.execute(
            "INSERT INTO merchants (id, name, created_us, data) VALUES (?, ?, ?, ?)",
            (company_id, name, created_us, msgspec.json.encode(data)),
        )
    except sqlite3.IntegrityError as exc:
        raise Refused(f"{path}.id", f"clashes with what is stored ({exc})", 409) from None
    if item.get("clock") is not None:
        merchants_repo.save_own_clock(tx, company_id, clock_state(f"{path}.clock", item["clock"]))
    now_s = now_us // 1_000_000
    for table in TABLES:
        key = table.key
        if key == "profiles" and key not in item:  # as POST /_emulator/merchants makes them
            clients = given["oauth_clients"]
            number = clients[0]["number"] if clients else merchants_repo.next_client_number(tx)
            merchants_repo.insert_profiles(tx, company_id, int(number), seed.profiles)
            continue
        listed = given[key] if key in given else entries(f"{path}.{key}", item.get(key))
        cols = columns(tx, table)
        for index, entry in enumerate(listed):
            where = f"{path}.{key}[{index}]"
            if key == "purchases" and isinstance(entry, dict) and "data" not in entry:
                _purchase(rt, tx, where, entry, company_id, now_s, prepared, item)
                continue
            values = _values(rt, where, key, entry, cols, now_s, prepared)
            for mirrored in MIRRORED.get(table.name, ()):
                data = msgspec.json.decode(values["data"])
                status = data.get(mirrored) if isinstance(data, dict) else None
                if isinstance(status, str):
                    values[mirrored] = status
            if table.owned:
                values["merchant_id"] = company_id
            _insert(tx, where, key, values)
    _scenarios(tx, f"{path}.scenarios", company_id, item.get("scenarios"), now_us)
    _jobs(tx, f"{path}.jobs", company_id, item, now_us)
    return company_id


def _purchase(
    rt: Context,
    tx: Tx,
    where: str,
    entry: dict[str, Any],
    company_id: str,
    now_s: int,
    prepared: Prepared,
    item: dict[str, Any],
) -> None:
    made, internal = partial.purchase(rt, tx, where, entry, company_id, now_s, prepared.base_url)
    try:
        purchases_repo.insert(tx, company_id, made, internal)
    except sqlite3.IntegrityError as exc:
        raise Refused(where, f"clashes with what is stored ({exc})", 409) from None
    # its money and jobs as the API makes them: the ledger, due (overdue or expired), a hold
    purchase_common.book(tx, company_id, made, internal, now_s * 1_000_000)
    timeline = company_id if item.get("clock") is not None else ""
    _job(tx, company_id, timeline, DUE_JOB, made.due * 1_000_000, {"purchase_id": made.id})
    if made.status == "hold":
        due = (now_s + HOLD_SECONDS) * 1_000_000
        _job(tx, company_id, timeline, HOLD_EXPIRY_JOB, due, {"purchase_id": made.id})


def _job(
    tx: Tx, company_id: str, timeline: str, kind: str, due_us: int, payload: dict[str, Any]
) -> None:
    tx.execute(
        "INSERT INTO jobs (merchant_id, kind, due_us, payload, timeline) VALUES (?, ?, ?, ?, ?)",
        (company_id, kind, due_us, msgspec.json.encode(payload), timeline),
    )


def _values(
    rt: Context,
    where: str,
    key: str,
    entry: Any,
    cols: list[Any],
    now_s: int,
    prepared: Prepared,
) -> dict[str, Any]:
    if isinstance(entry, dict) and "data" not in entry and key in partial.BUILT:
        if key == "webhooks":
            return partial.webhook(rt, where, entry, prepared.keys[where], now_s)
        return partial.client(rt, where, entry, now_s)
    if isinstance(entry, dict) and "data" not in entry and any(c.name == "data" for c in cols):
        how = " or as its API body" if key in partial.BUILT else ""
        raise Refused(
            f"{where}.data",
            f"is required: the object as the API answers it{how} (export one to see)",
        )
    values = row(where, entry, cols)
    if key in partial.DATA_TYPES:
        partial.check(f"{where}.data", entry["data"], partial.DATA_TYPES[key])
    for (list_key, column), kind in partial.COLUMN_TYPES.items():
        if list_key == key and column in entry:
            partial.check(f"{where}.{column}", entry[column], kind)
    if key == "clients" and "email_key" not in entry:
        email = entry["data"].get("email") if isinstance(entry["data"], dict) else None
        if isinstance(email, str):
            values["email_key"] = email.lower()
    return values


def prepare_keys(item: Any, path: str) -> list[str]:
    """The paths of the webhooks given as API bodies (each needs a key pair made)."""
    if not isinstance(item, dict) or not isinstance(item.get("webhooks"), list):
        return []
    return [
        f"{path}.webhooks[{i}]"
        for i, entry in enumerate(item["webhooks"])
        if isinstance(entry, dict) and "data" not in entry
    ]


def scenario_source(tx: Tx, where: str, name: str, given: Any, loaded: dict[str, str]) -> Any:
    """The scenario's definition: given, else loaded (the file's, the stored), else shipped."""
    source = given if given is not None else loaded.get(name)
    if source is None:
        source = scenarios_repo.definition(tx, name)
    if source is None:
        shipped = library.shipped().get(name)
        if shipped is None:
            raise Refused(f"{where}.name", f"no scenario named {name!r} (give its 'source')")
        return shipped
    if not isinstance(source, str):
        raise Refused(f"{where}.source", "must be a scenario's YAML text")
    try:
        return parse(source)
    except InvalidScenario as exc:
        raise Refused(f"{where}.source", str(exc)) from None


def activate(
    tx: Tx, path: str, scope: str, value: Any, now_us: int, loaded: dict[str, str] | None = None
) -> None:
    for index, entry in enumerate(entries(path, value)):
        where = f"{path}[{index}]"
        if not isinstance(entry, dict):
            raise Refused(where, "must be a mapping")
        for key in entry:
            if key not in ("name", "source", "activated", "uses"):
                raise Refused(
                    f"{where}.{key}", "is not a key; the keys: name, source, activated, uses"
                )
        name = text(f"{where}.name", entry.get("name"))
        scenario = scenario_source(tx, where, name, entry.get("source"), loaded or {})
        if scenario.name != name:
            raise Refused(f"{where}.source", f"defines {scenario.name!r}, not {name!r}")
        at = entry.get("activated")
        at_us = now_us if at is None else parse_instant(f"{where}.activated", at)
        uses = {r.index: r.times for r in scenario.rules if r.times is not None}
        for u, use in enumerate(entries(f"{where}.uses", entry.get("uses"))):
            ok = isinstance(use, dict) and set(use) == {"rule_index", "remaining"}
            if not ok or not all(isinstance(v, int) for v in use.values()):
                raise Refused(f"{where}.uses[{u}]", "must be {rule_index, remaining} integers")
            if use["rule_index"] not in uses:
                raise Refused(f"{where}.uses[{u}].rule_index", "names no rule with 'times'")
            uses[use["rule_index"]] = use["remaining"]
        scenarios_repo.activate(tx, name, scope, scenario.source, at_us, uses)


def _scenarios(tx: Tx, path: str, company_id: str, value: Any, now_us: int) -> None:
    activate(tx, path, company_id, value, now_us)


def _jobs(tx: Tx, path: str, company_id: str, item: dict[str, Any], now_us: int) -> None:
    timeline = company_id if item.get("clock") is not None else ""
    for index, entry in enumerate(entries(path, item.get("jobs"))):
        where = f"{path}[{index}]"
        if not isinstance(entry, dict) or set(entry) - {"kind", "due", "payload"}:
            raise Refused(where, "must be a mapping of kind, due, payload")
        kind = entry.get("kind")
        if kind not in jobs_table.JOBS or kind in UNLOADED_JOBS:
            raise Refused(f"{where}.kind", f"is not a job kind a file can hold: {kind!r}")
        due = parse_instant(f"{where}.due", entry["due"]) if "due" in entry else now_us
        payload = entry.get("payload", {})
        if not isinstance(payload, dict):
            raise Refused(f"{where}.payload", "must be a mapping")
        _job(tx, company_id, timeline, kind, due, payload)
