"""Delivery operations: the log filtered, replay and recover in bulk, endpoints switched off
and on, a merchant's auto-disable (``docs/webhooks.md``, "Replay, recover, switch off")."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

import msgspec

from emulator.core.merchants import repo as merchants_repo
from emulator.delivery import endpoints
from emulator.delivery import repo as deliveries
from emulator.delivery.attempt_views import attempt_view
from emulator.delivery.dispatch import schedule_send
from emulator.delivery.signing import Signer
from emulator.domain.delivery_filters import DeliveryFilter
from emulator.domain.errors import ControlError
from emulator.kernel.clock import from_us, iso
from emulator.kernel.storage import Tx
from emulator.sandbox.deliveries import repo

if TYPE_CHECKING:
    from emulator.kernel.context import Context

MAX_REPLAY = 1000  # messages one replay or recover sends again, at most
MAX_AUTO_DISABLE_DAYS = 365
_signer = Signer()
_encode = msgspec.json.Encoder()
_decode_headers = msgspec.json.Decoder(dict[str, str])


async def _merchant(rt: Context, company_id: str) -> None:
    found = await rt.db.read_point(lambda tx: merchants_repo.get(tx, company_id))
    if found is None:
        why = f"no merchant with company_id {company_id[:64]!r}"
        raise ControlError(404, "merchant_not_found", why)


def log_view(row: dict[str, Any]) -> dict[str, Any]:
    """An attempt as the log shows it; a replay's attempts say which message they replay."""
    view = attempt_view(row)
    if row.get("replay_of") is not None:
        view["replay_of"] = row["replay_of"]
    return view


async def log(
    rt: Context, f: DeliveryFilter, limit: int, before_id: int | None, after_id: int | None
) -> list[dict[str, Any]]:
    await rt.deliveries.flush(merchant_id=f.merchant)
    rows = await rt.db.read(lambda tx: repo.attempts(tx, f, limit, before_id, after_id))
    return [log_view(r) for r in rows]


async def replay(rt: Context, f: DeliveryFilter, *, recover: bool = False) -> dict[str, Any]:
    """Send again, as new messages of the same events (re-signed with the keys of now), the
    messages the filter picks (a recover: those whose last attempt failed since ``since``)."""
    if f.merchant is not None:
        await _merchant(rt, f.merchant)
        await rt.enter(f.merchant)
    found = await rt.db.read(lambda tx: repo.messages(tx, f, MAX_REPLAY + 1, recover=recover))
    truncated = len(found) > MAX_REPLAY
    found = found[:MAX_REPLAY]
    merchants = {row["merchant_id"] for row in found if row["merchant_id"]}
    keys = await rt.db.read(lambda tx: {m: repo.signing_keys(tx, m) for m in merchants})
    headers = await asyncio.to_thread(_resigned, found, keys)

    def unit(tx: Tx) -> list[tuple[int, Any]]:
        made = []
        for row, fresh in zip(found, headers, strict=True):
            now_us = rt.scheduler.timeline_of(row["merchant_id"]).clock.now_us()
            message_id = repo.insert_replay(tx, row, fresh, now_us)
            sends = deliveries.sends_of(tx, row["event_id"], row["kind"], row["target_id"])
            deliveries.mark_copy(tx, message_id, sends, sends, f"replay:{row['id']}")
            schedule_send(rt, tx, message_id, now_us, row["merchant_id"])
            made.append((message_id, row))
        return made

    made = await rt.db.write(unit)
    await rt.deliveries.flush(merchant_id=f.merchant)
    replayed = [
        {
            "message_id": message_id,
            "replay_of": row["id"],
            "merchant": row["merchant_id"],
            "kind": row["kind"],
            "target_id": row["target_id"],
            "event_id": row["event_id"],
            "event_type": row["event_type"],
            "object_id": row["object_id"],
            "url": row["url"],
        }
        for message_id, row in made
    ]
    return {"count": len(replayed), "truncated": truncated, "replayed": replayed}


def _resigned(rows: list[Any], keys: dict[str, dict[tuple[str, str], str]]) -> list[str]:
    """Each message's headers, its signature made again with its receiver's key of now (a
    webhook deleted since, or a bank callback, unsigned: as they were)."""
    out = []
    for row in rows:
        headers = _decode_headers.decode(row["headers"])
        target = "" if row["kind"] == "success_callback" else row["target_id"]
        key = keys.get(row["merchant_id"], {}).get((row["kind"], target))
        if key is not None and "X-Signature" in headers:
            headers["X-Signature"] = _signer.sign(key, bytes(row["body"]))
        out.append(_encode.encode(headers).decode())
    return out


async def switch(
    rt: Context, kind: str, target_id: str, enabled: bool, drop: bool
) -> dict[str, Any]:
    """Switch a webhook (kind ``webhook``) or a v2 callback registration (``callback``) off
    or on; on sends what it held, in order."""
    owner = await rt.db.read_point(lambda tx: repo.endpoint_owner(tx, kind, target_id))
    if owner is None:
        what = "webhook" if kind == "webhook" else "callback registration"
        raise ControlError(404, "not_found", f"no {what} with id {target_id[:64]!r}")
    await rt.enter(owner)
    if enabled:  # what was emitted while it was off meets it off (held or dropped) first
        await rt.deliveries.flush(merchant_id=owner)
    now_us = rt.clock.now_us()
    released = await rt.db.write(
        lambda tx: endpoints.switch_state(rt, tx, owner, kind, target_id, enabled, drop, now_us)
    )
    await rt.deliveries.flush(merchant_id=owner)
    return {
        "id": target_id,
        "kind": kind,
        "merchant": owner,
        "enabled": enabled,
        "drop": drop and not enabled,
        "at": iso(from_us(now_us)),
        "released": released,
    }


async def settings(rt: Context, company_id: str, days: int | None) -> dict[str, Any]:
    await _merchant(rt, company_id)
    await rt.db.write(lambda tx: repo.set_auto_disable_days(tx, company_id, days))
    return {"company_id": company_id, "auto_disable_after_days": days}


async def read_settings(rt: Context, company_id: str) -> dict[str, Any]:
    await _merchant(rt, company_id)
    days = await rt.db.read_point(lambda tx: repo.auto_disable_days(tx, company_id))
    return {"company_id": company_id, "auto_disable_after_days": days}


async def endpoint_view(rt: Context, merchant_id: str | None, limit: int) -> dict[str, Any]:
    """Endpoints switched off (or on again), the messages they keep or dropped, and what
    happened to them (auto-disables included), newest first."""
    if merchant_id is not None:
        await _merchant(rt, merchant_id)
    await rt.deliveries.flush(merchant_id=merchant_id)

    def read(tx: Tx) -> tuple[list[Any], list[Any], list[Any]]:
        return (
            repo.endpoint_states(tx, merchant_id),
            repo.kept(tx, merchant_id, limit),
            repo.events(tx, merchant_id, limit),
        )

    states, kept, events = await rt.db.read(read)
    return {
        "endpoints": [
            {
                "kind": s["kind"],
                "id": s["target_id"],
                "merchant": s["merchant_id"],
                "enabled": bool(s["enabled"]),
                "drop": bool(s["drop_while_off"]),
                "changed_at": iso(from_us(s["changed_us"])),
                "reason": s["reason"],
            }
            for s in states
        ],
        "kept": [
            {
                "message_id": k["message_id"],
                "merchant": k["merchant_id"],
                "kind": k["kind"],
                "target_id": k["target_id"],
                "outcome": k["outcome"],
                "at": iso(from_us(k["at_us"])),
                "event_id": k["event_id"],
                "event_type": k["event_type"],
                "object_id": k["object_id"],
                "url": k["url"],
            }
            for k in kept
        ],
        "events": [
            {
                "id": e["id"],
                "merchant": e["merchant_id"],
                "kind": e["kind"],
                "target_id": e["target_id"],
                "at": iso(from_us(e["at_us"])),
                "action": e["action"],
                "message_id": e["message_id"],
                "detail": e["detail"],
            }
            for e in events
        ],
    }


async def recent(
    rt: Context,
    merchant_id: str | None,
    object_id: str | None,
    kind: str | None,
    limit: int,
    before_id: int | None,
    after_id: int | None = None,
) -> list[dict[str, Any]]:
    """The attempts as ``GET /_emulator/deliveries`` lists them, newest first (of one merchant,
    object and kind when given), after what was due to be sent is sent."""
    await rt.deliveries.flush(merchant_id=merchant_id)
    only = DeliveryFilter(merchant=merchant_id, object_id=object_id, kind=kind)
    rows = await rt.db.read(lambda tx: repo.attempts(tx, only, limit, before_id, after_id))
    return [attempt_view(r) for r in rows]
