"""Holds, the taking side: a hold (``POST /_emulator/merchants/{company_id}/holds``, made by
``emulator/sandbox/holds/service.py``) takes the next delivery, or the next decision at a decision
point, that matches its filter; what it took waits until released, dropped, duplicated or
delayed, or until its timeout on the merchant's clock.

- **A delivery** is taken when it is dispatched (``capture_message``, called by
  ``emulator/delivery/dispatch.py``): the message is stored as usual but no send is scheduled;
  it stays open, so the object's later messages to that receiver wait behind it, in order.
- **A decision** is taken where its job would carry it out (``capture_decision``, called by
  the service of the point): the job's payload is kept; releasing schedules that job again,
  now, with the outcome given (marked ``held``, so no hold takes it twice).

Either way the instant it was taken stops an advance under way (``Timeline.stop``): the
advance's answer names the hold. Matching reuses the scenarios' match syntax; a delivery
matches on ``event_type``, ``object_type``, ``object_id``, ``url``, ``kind`` (``webhook``,
``success_callback``, ``callback``) and ``target_id``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from emulator.delivery import repo as deliveries
from emulator.kernel.known_none import KnownNone
from emulator.kernel.storage import Tx
from emulator.sandbox.holds import repo
from emulator.scenarios import points
from emulator.scenarios.points import FieldKind, Outcome, Point
from emulator.scenarios.rules import InvalidScenario, Matcher, compile_match

if TYPE_CHECKING:
    from emulator.kernel.context import Context

DELIVERY = "delivery"
TIMEOUT_JOB = "hold.timeout"
HELD = "held"  # the payload key of a decision's job once released: taken once only

DELIVERY_FIELDS: dict[str, FieldKind] = {
    "event_type": "string",
    "object_type": "string",
    "object_id": "string",
    "url": "string",
    "kind": "string",
    "target_id": "string",
}
DELIVERY_POINT = Point(
    DELIVERY, "the next delivery (webhook or callback)", DELIVERY_FIELDS, points.Delivery
)
# The decision points a hold can take, each where the other side's answer is carried out.
DECISIONS: dict[str, Point[Outcome]] = {
    point.name: point  # type: ignore[misc]
    for point in (
        points.PURCHASE_PAYMENT,
        points.COLLECTION_OUTCOME,
        points.MANDATE_AUTHORISATION,
    )
}
KINDS: dict[str, Point[Outcome]] = {DELIVERY: DELIVERY_POINT, **DECISIONS}  # type: ignore[dict-item]


def matcher(kind: str, match: Mapping[str, Any]) -> Matcher:
    """The filter of a hold of ``kind``; ``InvalidScenario`` names a bad field or value."""
    return compile_match(KINDS[kind], match, "match")


def unarmed(rt: Context) -> KnownNone:
    """The (merchant, kind) pairs known to have no armed hold, kept by the runtime
    (``Runtime.unarmed``): most merchants never make one, and every dispatched message and
    decision asks."""
    return rt.unarmed


def ask_again(rt: Context) -> None:
    """A hold was made (in the caller's unit, even if it rolls back), or the whole state was
    replaced: what was known of armed holds is forgotten."""
    unarmed(rt).forget()


def _taking(
    rt: Context, tx: Tx, merchant_id: str | None, kind: str, subject: dict[str, Any]
) -> repo.Hold | None:
    """The oldest armed hold of the merchant that matches, its use taken."""
    if merchant_id is None:
        return None
    known = unarmed(rt)
    pair = (merchant_id, kind)
    if known.knows(tx, pair):
        return None
    found = repo.armed(tx, merchant_id, kind)
    if not found:
        known.found_none(tx, pair)
        return None
    for hold in found:
        try:
            matches = matcher(kind, hold.match)
        except InvalidScenario:  # checked when made; a stored filter of another version
            continue
        if matches(subject) and repo.take(tx, hold.id):
            return hold
    return None


def _took(rt: Context, tx: Tx, hold: repo.Hold, item: repo.Item) -> int:
    item_id = repo.insert_item(tx, item)
    if hold.timeout_seconds is not None:
        due_us = item.held_us + hold.timeout_seconds * 1_000_000
        rt.scheduler.schedule(tx, TIMEOUT_JOB, due_us, {"id": item_id}, hold.merchant_id)
    rt.scheduler.timeline_of(hold.merchant_id).stop(item.held_us, hold.id)
    return item_id


def _item(hold: repo.Hold, held_us: int, subject: dict[str, Any], **rest: Any) -> repo.Item:
    fields: dict[str, Any] = {
        "message_id": None,
        "point": None,
        "default_outcome": None,
        "resume_kind": None,
        "resume_payload": None,
        **rest,
    }
    return repo.Item(
        id=0,
        hold_id=hold.id,
        merchant_id=hold.merchant_id,
        state="held",
        held_us=held_us,
        subject=subject,
        done=None,
        done_us=None,
        **fields,
    )


def capture_message(rt: Context, tx: Tx, message_id: int, message: deliveries.Message) -> bool:
    """Whether a hold took this new message (then no send is scheduled for it)."""
    subject = {
        "event_type": message.event_type,
        "object_type": message.object_type,
        "object_id": message.object_id,
        "url": message.url,
        "kind": message.kind,
        "target_id": message.target_id,
    }
    hold = _taking(rt, tx, message.merchant_id, DELIVERY, subject)
    if hold is None:
        return False
    if message.state == "waiting":  # open, and never released by the message ahead of it
        deliveries.set_state(tx, message_id, "queued", 0, None)
    _took(rt, tx, hold, _item(hold, message.not_before_us, subject, message_id=message_id))
    return True


def capture_decision(
    rt: Context,
    tx: Tx,
    point: Point[Any],
    merchant_id: str,
    subject: Mapping[str, Any],
    default: dict[str, Any],
    resume: tuple[str, dict[str, Any]],
) -> bool:
    """Whether a hold took this decision: then the caller does nothing more, and releasing it
    schedules the job ``resume`` (kind, payload) with the outcome given."""
    kind, payload = resume
    if HELD in payload:
        return False  # released from a hold already
    hold = _taking(rt, tx, merchant_id, point.name, dict(subject))
    if hold is None:
        return False
    item = _item(
        hold,
        rt.clock.now_us(),
        dict(subject),
        point=point.name,
        default_outcome=default,
        resume_kind=kind,
        resume_payload=payload,
    )
    _took(rt, tx, hold, item)
    return True


# -- letting go -------------------------------------------------------------------------------


def _schedule_send(rt: Context, tx: Tx, message_id: int, due_us: int, merchant: str) -> None:
    from emulator.delivery.dispatch import schedule_send  # dispatch calls this module

    schedule_send(rt, tx, message_id, due_us, merchant)


def send_message(rt: Context, tx: Tx, item: repo.Item, due_us: int) -> None:
    """The held message goes out at ``due_us`` (then retried as any other)."""
    assert item.message_id is not None
    _schedule_send(rt, tx, item.message_id, due_us, item.merchant_id)


def drop_message(rt: Context, tx: Tx, item: repo.Item) -> None:
    """The held message is never sent (``failed`` without attempts); the one behind it goes."""
    assert item.message_id is not None
    message = deliveries.message(tx, item.message_id)
    if message is None or message.state != "queued":
        return
    deliveries.set_state(tx, message.id, "failed", message.attempts, message.first_us)
    behind = deliveries.next_waiting(tx, message)
    if behind is not None:
        next_id, not_before_us = behind
        deliveries.set_state(tx, next_id, "queued", 0, None)
        due_us = max(not_before_us, rt.clock.now_us())
        _schedule_send(rt, tx, next_id, due_us, item.merchant_id)


def resume_decision(
    rt: Context, tx: Tx, item: repo.Item, changes: dict[str, Any], due_us: int
) -> None:
    """The held decision is carried out at ``due_us``, with ``changes`` to its payload."""
    assert item.resume_kind is not None
    payload = {**(item.resume_payload or {}), **changes, HELD: item.id}
    rt.scheduler.schedule(tx, item.resume_kind, due_us, payload, item.merchant_id)


def let_go(rt: Context, tx: Tx, item: repo.Item, due_us: int) -> None:
    if item.message_id is not None:
        send_message(rt, tx, item, due_us)
    else:
        resume_decision(rt, tx, item, {}, due_us)


def drop(rt: Context, tx: Tx, item: repo.Item) -> None:
    if item.message_id is not None:
        drop_message(rt, tx, item)


def payload_changes(point: Point[Any], outcome: dict[str, Any]) -> dict[str, Any]:
    """A decision's outcome given on release (the point's ``then``) as its job's payload."""
    if point is points.COLLECTION_OUTCOME:
        changes = {"status": outcome["status"], "code": outcome.get("reasonCode")}
        return {**changes, "reason": outcome.get("reason")}
    if point is points.MANDATE_AUTHORISATION:
        return {"status": outcome["status"], "reason": outcome.get("reason")}
    return {"result": outcome["result"], "reason": outcome.get("reason")}
