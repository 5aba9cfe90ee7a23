"""Holds on the control plane: make one, read them, and act on what one holds (release, with
edits or another outcome; drop; duplicate; delay); the timeout job. What a hold takes, and
how it is let go, is ``emulator/delivery/holds.py``'s."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import msgspec

from emulator.core.merchants import repo as merchants_repo
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
from emulator.scenarios.rules import InvalidScenario, decode_outcome

if TYPE_CHECKING:
    from emulator.kernel.context import Context, JobHandler

FIELDS = ("kind", "match", "count", "timeout_seconds", "on_timeout")
MAX_COUNT = 1000
MAX_TIMEOUT_SECONDS = 366 * 86_400
MAX_TIMES = 10
UNITS = {"seconds": 1, "minutes": 60, "hours": 3600, "days": 86_400}  # the advance's
SIGNED = ("webhook", "success_callback")  # the bank's callbacks are unsigned
_encode = msgspec.json.Encoder()


def _invalid(message: str) -> ControlError:
    return ControlError(400, "invalid", message)


def _known(tx: Tx, company_id: str) -> None:
    if merchants_repo.get(tx, company_id) is None:
        raise ControlError(
            404, "merchant_not_found", f"no merchant with company_id {company_id[:64]!r}"
        )


def _whole(body: dict[str, Any], name: str, low: int, high: int) -> int | None:
    value = body.get(name)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise _invalid(f"'{name}' must be a whole number from {low} to {high}")
    return value


def _checked(body: dict[str, Any]) -> tuple[str, dict[str, Any], int, int | None, str]:
    unknown = sorted(set(body) - set(FIELDS))
    if unknown:
        raise _invalid(f"'{unknown[0][:64]}' is not a field of a hold; give {', '.join(FIELDS)}")
    kind = body.get("kind")
    if kind not in taking.KINDS:
        raise _invalid(f"'kind' must be one of {', '.join(taking.KINDS)}")
    match = body.get("match") or {}
    if not isinstance(match, dict):
        raise _invalid("'match' must be an object of fields to match")
    try:
        taking.matcher(kind, match)
    except InvalidScenario as exc:
        raise _invalid(str(exc)) from None
    count = _whole(body, "count", 1, MAX_COUNT) or 1
    timeout = _whole(body, "timeout_seconds", 1, MAX_TIMEOUT_SECONDS)
    on_timeout = body.get("on_timeout") or "release"
    if on_timeout not in ("release", "drop"):
        raise _invalid("'on_timeout' must be release or drop")
    return kind, match, count, timeout, on_timeout


async def create(rt: Context, company_id: str, body: dict[str, Any]) -> dict[str, Any]:
    kind, match, count, timeout, on_timeout = _checked(body)

    def unit(tx: Tx) -> dict[str, Any]:
        _known(tx, company_id)
        hold = repo.Hold(
            id="hold_" + rt.ids.token(16),
            merchant_id=company_id,
            kind=kind,
            match=match,
            count=count,
            remaining=count,
            timeout_seconds=timeout,
            on_timeout=on_timeout,
            created_us=rt.clock.now_us(),
        )
        repo.insert(tx, hold)
        taking.ask_again(rt)  # made: the taking side looks for armed holds again
        return _view(tx, hold, [])

    return await rt.db.write(unit)


# -- reads -------------------------------------------------------------------------------------


def _message_view(tx: Tx, message_id: int) -> dict[str, Any] | None:
    message = deliveries.message(tx, message_id)
    if message is None:
        return None
    return {
        "id": message.id,
        "kind": message.kind,
        "target_id": message.target_id,
        "url": message.url,
        "event_id": message.event_id,
        "event_type": message.event_type,
        "object_type": message.object_type,
        "object_id": message.object_id,
        "headers": message.headers,
        "body": message.body.decode("utf-8", "replace"),
    }


def _item_view(tx: Tx, item: repo.Item) -> dict[str, Any]:
    view: dict[str, Any] = {
        "id": item.id,
        "state": item.state,
        "held_at": iso(from_us(item.held_us)),
        "subject": item.subject,
    }
    if item.message_id is not None:
        view["message"] = _message_view(tx, item.message_id)
    else:
        view["point"] = item.point
        view["default_outcome"] = item.default_outcome
    if item.done is not None and item.done_us is not None:
        view["done"] = {**item.done, "at": iso(from_us(item.done_us))}
    return view


def _view(tx: Tx, hold: repo.Hold, items: list[repo.Item]) -> dict[str, Any]:
    held = [item for item in items if item.state == "held"]
    state = "holding" if held else "armed" if hold.remaining > 0 else "done"
    return {
        "id": hold.id,
        "merchant": hold.merchant_id,
        "kind": hold.kind,
        "match": hold.match,
        "count": hold.count,
        "remaining": hold.remaining,
        "timeout_seconds": hold.timeout_seconds,
        "on_timeout": hold.on_timeout,
        "created": iso(from_us(hold.created_us)),
        "state": state,
        "items": [_item_view(tx, item) for item in items],
    }


def _found(tx: Tx, company_id: str, hold_id: str) -> repo.Hold:
    _known(tx, company_id)
    hold = repo.hold(tx, company_id, hold_id)
    if hold is None:
        raise ControlError(404, "not_found", f"no hold {hold_id[:64]!r} of this merchant")
    return hold


async def list_holds(rt: Context, company_id: str) -> dict[str, Any]:
    def unit(tx: Tx) -> dict[str, Any]:
        _known(tx, company_id)
        holds = repo.holds_of(tx, company_id)
        items = repo.items_of(tx, [hold.id for hold in holds])
        return {
            "holds": [_view(tx, h, [i for i in items if i.hold_id == h.id]) for h in holds],
        }

    await rt.deliveries.flush(merchant_id=company_id)  # what was emitted is dispatched
    return await rt.db.read(unit)


async def show(rt: Context, company_id: str, hold_id: str) -> dict[str, Any]:
    def unit(tx: Tx) -> dict[str, Any]:
        hold = _found(tx, company_id, hold_id)
        return _view(tx, hold, repo.items_of(tx, [hold.id]))

    await rt.deliveries.flush(merchant_id=company_id)
    return await rt.db.read(unit)


# -- acting on what a hold holds ----------------------------------------------------------------


def duration_us(body: dict[str, Any]) -> int:
    """``seconds``/``minutes``/``hours``/``days``, adding up, as an advance takes them."""
    unknown = sorted(set(body) - set(UNITS))
    if unknown:
        raise _invalid(f"'{unknown[0][:64]}' is not a duration; give seconds, minutes, hours, days")
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
            raise _invalid(f"'{name}' must be a number")
        if value < 0:
            raise _invalid(f"'{name}' must not be negative")
        total += value * unit
    if total <= 0 or total > MAX_TIMEOUT_SECONDS:
        raise _invalid("give a duration above 0 and at most 366 days (seconds, minutes, ...)")
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
        raise _invalid(f"'{unknown[0][:64]}' is not a field here; give body, headers, resign")
    resign = body.get("resign", True)
    if not isinstance(resign, bool):
        raise _invalid("'resign' must be true or false")
    headers = body.get("headers") or {}
    if not isinstance(headers, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in headers.items()
    ):
        raise _invalid("'headers' must be an object of header names to text")
    assert item.message_id is not None
    message = deliveries.message(tx, item.message_id)
    if message is None:
        raise ControlError(409, "gone", "the held message is gone (a reset or restore)")
    new_body = message.body
    if "body" in body:
        given = body["body"]
        if isinstance(given, dict):
            new_body = _encode.encode(given)
        elif isinstance(given, str):
            new_body = given.encode()
        else:
            raise _invalid("'body' must be a JSON object or text")
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
        raise _invalid(str(exc)) from None
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
            raise _invalid(f"'{unknown[0][:64]}' is not a field here; give times")
        times = _whole(body, "times", 2, MAX_TIMES) or 2
    elif action == "drop" and body:
        raise _invalid("drop takes no body")

    def unit(tx: Tx) -> dict[str, Any]:
        hold = _found(tx, company_id, hold_id)
        items = repo.items_of(tx, [hold.id])
        held = [item for item in items if item.state == "held"]
        if not held:
            raise ControlError(409, "nothing_held", f"hold {hold_id[:64]!r} holds nothing now")
        now_us = rt.clock.now_us()
        for item in held:
            done = _act(rt, tx, item, action, body, delay_us, times, now_us)
            repo.finish(tx, item.id, _STATES[action], {"by": "call", **done}, now_us)
        return _view(tx, hold, repo.items_of(tx, [hold.id]))

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
            raise _invalid("only a delivery can be duplicated")
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
