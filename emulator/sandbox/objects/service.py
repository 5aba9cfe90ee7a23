"""Reads of a merchant's objects for the QA console: lists with filters, and one object with
its status history, events, deliveries and scheduled jobs."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from emulator.delivery.attempt_views import attempt_view
from emulator.delivery.dispatch import SEND_JOB
from emulator.domain.errors import ControlError
from emulator.kernel.clock import from_us, iso
from emulator.kernel.storage import Tx
from emulator.sandbox.control import service as control
from emulator.sandbox.deliveries import service as deliveries
from emulator.sandbox.holds import repo as holds_repo
from emulator.sandbox.objects import repo

if TYPE_CHECKING:
    from emulator.kernel.context import Context

KINDS = tuple(repo.KINDS)
SORTS = tuple(repo.SORTS)
EVENTS = 500  # events of one object, at most


def _kind(kind: str) -> None:
    if kind not in repo.KINDS:
        raise ControlError(404, "not_found", f"no kind {kind[:32]!r}: one of {', '.join(KINDS)}")


async def listed(
    rt: Context, company_id: str, kind: str, status: str | None, id_part: str | None, limit: int
) -> list[dict[str, Any]]:
    _kind(kind)
    await control.merchant_clock(rt, company_id)  # 404 for an unknown merchant
    await rt.enter(company_id)  # what is due has happened
    found = await rt.db.read(lambda tx: repo.listed(tx, company_id, kind, status, id_part, limit))
    return found[1]


async def paged(
    rt: Context, company_id: str, kind: str, query: dict[str, Any]
) -> tuple[int, list[dict[str, Any]]]:
    """How many of the kind match ``query`` (``status``, ``id``, ``q``), and the page of
    them it asks for (``limit``, ``offset``, ``sort``)."""
    _kind(kind)
    await control.merchant_clock(rt, company_id)  # 404 for an unknown merchant
    await rt.enter(company_id)
    return await rt.db.read(
        lambda tx: repo.listed(
            tx, company_id, kind, query["status"], query["id"], query["limit"],
            query["offset"], query["sort"], query["q"],
        )
    )  # fmt: skip


async def found(rt: Context, object_id: str) -> dict[str, Any]:
    """One object of whatever kind has this id (any case), as `detail` reads it."""
    if not 0 < len(object_id) <= 128:
        raise ControlError(404, "not_found", "nothing has this id")
    kind = await rt.db.read(lambda tx: repo.kind_of(tx, object_id))
    if kind is None and object_id != object_id.lower():
        object_id = object_id.lower()
        kind = await rt.db.read(lambda tx: repo.kind_of(tx, object_id))
    if kind is None:
        raise ControlError(404, "not_found", "nothing has this id")
    return await detail(rt, kind, object_id)


async def detail(rt: Context, kind: str, object_id: str) -> dict[str, Any]:
    _kind(kind)
    found = await rt.db.read(lambda tx: repo.one(tx, kind, object_id))
    if found is None and object_id != object_id.lower():
        object_id = object_id.lower()
        found = await rt.db.read(lambda tx: repo.one(tx, kind, object_id))
    if found is None:
        raise ControlError(404, "not_found", f"no {kind[:-1]} with this id")
    merchant_id = found[0]
    timeline = await rt.enter(merchant_id)
    now_found = await rt.db.read(lambda tx: repo.one(tx, kind, object_id))
    merchant_id, obj = now_found or found
    events = await rt.db.read(lambda tx: repo.events(tx, merchant_id, object_id, EVENTS))
    history: list[dict[str, Any]] = []
    for event in events:
        status = event["status"]
        if status is not None and (not history or history[-1]["status"] != status):
            history.append({"at": event["at"], "status": status, "event": event["event_type"]})
    sent = await deliveries.recent(rt, merchant_id, object_id, None, 100, None)
    jobs = await control.schedule(rt, timeline, merchant_id, object_id, 100)
    held = await rt.db.read(lambda tx: holds_repo.items_of_object(tx, merchant_id, object_id, 100))
    return {
        "kind": kind,
        "id": object_id,
        "merchant": merchant_id,
        "status": obj.get("status") if isinstance(obj.get("status"), str) else None,
        "object": obj,
        "history": history,
        "events": events,
        "deliveries": sent,
        "jobs": jobs,
        "holds": [_held_view(item) for item in held],
    }


def _held_view(item: holds_repo.Item) -> dict[str, Any]:
    """A thing a hold took of the object: which hold, what (a delivery's message, or a
    decision's point), and what became of it (``done``: by a call or the timeout)."""
    return {
        "hold": item.hold_id,
        "item": item.id,
        "state": item.state,
        "message_id": item.message_id,
        "point": item.point,
        "held_at": iso(from_us(item.held_us)),
        "done": item.done,
        "done_at": None if item.done_us is None else iso(from_us(item.done_us)),
    }


async def resend(rt: Context, attempt_id: int) -> dict[str, Any]:
    """Send again what a delivery attempt sent (same event, URL, headers and body), now, as
    a new message; answers its first attempt."""
    merchant_id = await rt.db.read(lambda tx: repo.attempt_merchant(tx, attempt_id))
    if merchant_id is None:
        raise ControlError(404, "not_found", "no delivery attempt with this id")
    await rt.enter(merchant_id or None)

    def unit(tx: Tx) -> int | None:
        copied = repo.copy_message(tx, attempt_id, rt.clock.now_us())
        if copied is None:
            return None
        message_id, owner = copied
        payload = {"message": message_id, "attempt": 1}
        rt.scheduler.schedule(tx, SEND_JOB, rt.clock.now_us(), payload, owner)
        return message_id

    message_id = await rt.db.write(unit)
    if message_id is None:
        raise ControlError(404, "not_found", "no delivery attempt with this id")
    await rt.deliveries.flush(merchant_id=merchant_id or None)
    sent = await rt.db.read(lambda tx: repo.attempts_of_message(tx, message_id))
    return {"message_id": message_id, "deliveries": [attempt_view(row) for row in sent]}
