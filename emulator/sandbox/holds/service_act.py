"""Acting on a held message: release it (as it is or edited, re-signed), drop, duplicate or
delay it; and what a hold does when its timeout comes."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import msgspec

from emulator.delivery import holds as taking
from emulator.delivery import repo as deliveries
from emulator.delivery import signing
from emulator.domain.errors import ControlError
from emulator.gateway.webhooks import repo as webhooks
from emulator.gateway.webhooks import router as gateway
from emulator.kernel.clock import from_us, iso
from emulator.kernel.jobs import Job
from emulator.kernel.storage import Tx
from emulator.sandbox.holds import repo
from emulator.sandbox.holds.service import (
    MAX_TIMEOUT_SECONDS,
    MAX_TIMES,
    SIGNED,
    UNITS,
    encode,
    found_hold,
    hold_view,
    invalid,
    whole_number,
)
from emulator.scenarios.rules import InvalidScenario, decode_outcome

if TYPE_CHECKING:
    from emulator.kernel.context import Context, JobHandler


def duration_us(body: dict[str, Any]) -> int:
    """``seconds``/``minutes``/``hours``/``days``, adding up, as an advance takes them."""
    unknown = sorted(set(body) - set(UNITS))
    if unknown:
        raise invalid(f"'{unknown[0][:64]}' is not a duration; give seconds, minutes, hours, days")
    total = 0.0
    for name, unit in UNITS.items():
        value = body.get(name)
        if value is None:
            continue
        if (
            isinstance(value, bool)
            or not isinstance(value, int | float)
            or not math.isfinite(value)
        ):
            raise invalid(f"'{name}' must be a number")
        if value < 0:
            raise invalid(f"'{name}' must not be negative")
        total += value * unit
    if total <= 0 or total > MAX_TIMEOUT_SECONDS:
        raise invalid("give a duration above 0 and at most 366 days (seconds, minutes, ...)")
    return round(total * 1_000_000)


def _private_key(tx: Tx, message: deliveries.Message) -> str | None:
    if message.merchant_id is None:
        return None
    if message.kind == "success_callback":
        return gateway.company_key(tx, message.merchant_id)[0]
    for webhook, private_key in webhooks.with_keys(tx, message.merchant_id):
        if webhook.id == message.target_id:
            return private_key
    return None


def _edit_message(tx: Tx, item: repo.Item, body: dict[str, Any]) -> dict[str, Any]:
    """A message's release body: ``body`` (an object, or text), ``headers``, ``resign``."""
    unknown = sorted(set(body) - {"body", "headers", "resign"})
    if unknown:
        raise invalid(f"'{unknown[0][:64]}' is not a field here; give body, headers, resign")
    resign = body.get("resign", True)
    if not isinstance(resign, bool):
        raise invalid("'resign' must be true or false")
    headers = body.get("headers") or {}
    if not isinstance(headers, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in headers.items()
    ):
        raise invalid("'headers' must be an object of header names to text")
    assert item.message_id is not None
    message = deliveries.message(tx, item.message_id)
    if message is None:
        raise ControlError(409, "gone", "the held message is gone (a reset or restore)")
    new_body = message.body
    if "body" in body:
        given = body["body"]
        if isinstance(given, dict):
            new_body = encode.encode(given)
        elif isinstance(given, str):
            new_body = given.encode()
        else:
            raise invalid("'body' must be a JSON object or text")
    merged = {**message.headers, **headers}
    resigned = False
    if resign and new_body != message.body and message.kind in SIGNED:
        if not any(name.lower() == "x-signature" for name in headers):
            key = _private_key(tx, message)
            if key is not None:
                merged["X-Signature"] = signing.Signer().sign(key, new_body)
                resigned = True
    if new_body != message.body or merged != message.headers:
        repo.set_message(tx, message.id, merged, new_body)
    return {"edited": new_body != message.body or bool(headers), "resigned": resigned}


def _decision(item: repo.Item, body: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """A decision's release body: the point's outcome (as a scenario's ``then``); the job's
    payload changes, and what is recorded."""
    if not body:
        return {}, {}
    point = taking.DECISIONS[str(item.point)]
    try:
        outcome = decode_outcome(point, body, "body")
    except InvalidScenario as exc:
        raise invalid(str(exc)) from None
    given = msgspec.to_builtins(outcome)
    return taking.payload_changes(point, given), {"outcome": given}


async def act(
    rt: Context, company_id: str, hold_id: str, action: str, body: dict[str, Any]
) -> dict[str, Any]:
    """``release`` (edited), ``drop``, ``duplicate`` (``times``) or ``delay`` (a duration)
    every thing the hold holds now."""
    delay_us = duration_us(body) if action == "delay" else 0
    times = 0
    if action == "duplicate":
        unknown = sorted(set(body) - {"times"})
        if unknown:
            raise invalid(f"'{unknown[0][:64]}' is not a field here; give times")
        times = whole_number(body, "times", 2, MAX_TIMES) or 2
    elif action == "drop" and body:
        raise invalid("drop takes no body")

    def unit(tx: Tx) -> dict[str, Any]:
        hold = found_hold(tx, company_id, hold_id)
        items = repo.items_of(tx, [hold.id])
        held = [item for item in items if item.state == "held"]
        if not held:
            raise ControlError(409, "nothing_held", f"hold {hold_id[:64]!r} holds nothing now")
        now_us = rt.clock.now_us()
        for item in held:
            done = _act(rt, tx, item, action, body, delay_us, times, now_us)
            repo.finish(tx, item.id, _STATES[action], {"by": "call", **done}, now_us)
        return hold_view(tx, hold, repo.items_of(tx, [hold.id]))

    await rt.deliveries.flush(merchant_id=company_id)  # what was emitted is taken first
    answer = await rt.db.write(unit)
    await rt.scheduler.run_due(rt.scheduler.timeline_of(company_id))
    return answer


_STATES = {"release": "released", "drop": "dropped", "duplicate": "duplicated", "delay": "delayed"}


def _act(
    rt: Context,
    tx: Tx,
    item: repo.Item,
    action: str,
    body: dict[str, Any],
    delay_us: int,
    times: int,
    now_us: int,
) -> dict[str, Any]:
    if action == "drop":
        taking.drop(rt, tx, item)
        return {}
    if action == "delay":
        taking.let_go(rt, tx, item, now_us + delay_us)
        return {"until": iso(from_us(now_us + delay_us))}
    if action == "duplicate":
        if item.message_id is None:
            raise invalid("only a delivery can be duplicated")
        taking.send_message(rt, tx, item, now_us)
        cause = f"hold:{item.hold_id}"
        deliveries.mark_copy(tx, item.message_id, 1, times, cause)
        for number in range(2, times + 1):
            copy = repo.copy_message(tx, item.message_id)
            deliveries.mark_copy(tx, copy, number, times, cause)
            taking.send_message(rt, tx, msgspec.structs.replace(item, message_id=copy), now_us)
        return {"times": times}
    if item.message_id is not None:
        done = _edit_message(tx, item, body)
        taking.send_message(rt, tx, item, now_us)
        return done
    changes, done = _decision(item, body)
    taking.resume_decision(rt, tx, item, changes, now_us)
    return done


def timeout_job(rt: Context, tx: Tx, job: Job) -> None:
    """A held thing's timeout on the merchant's clock: ``on_timeout``, if still held."""
    item = repo.item(tx, int(job.payload["id"]))
    if item is None or item.state != "held":
        return
    hold = repo.hold(tx, item.merchant_id, item.hold_id)
    on_timeout = hold.on_timeout if hold is not None else "release"
    now_us = rt.clock.now_us()
    if on_timeout == "drop":
        taking.drop(rt, tx, item)
    else:
        taking.let_go(rt, tx, item, now_us)
    repo.finish(tx, item.id, _STATES[on_timeout], {"by": "timeout"}, now_us)


JOBS: dict[str, JobHandler] = {taking.TIMEOUT_JOB: timeout_job}
