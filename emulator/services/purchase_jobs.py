"""The purchase time rules as durable jobs on the emulator clock (atomic: each runs inside
the scheduler's unit of work): due dates, slow captures and charges, hold expiry."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from emulator.domain import purchases as domain
from emulator.domain.events import Event
from emulator.domain.purchase_model import Internal, Purchase
from emulator.kernel.jobs import Job
from emulator.kernel.storage import Tx
from emulator.repos import purchases as repo
from emulator.services.purchase_common import book, emit, now_s

if TYPE_CHECKING:
    from emulator.serving.runtime import Runtime

DUE_JOB = "purchase.due"
CAPTURE_JOB = "purchase.capture_settles"
CHARGE_JOB = "purchase.charge_settles"
HOLD_EXPIRY_JOB = "purchase.hold_expires"
SLOW_SECONDS = 600  # test card 4000 0000 0000 0259: paid 10 minutes after a capture/charge
HOLD_SECONDS = 7 * 86_400  # an authorisation not captured within 7 days is released


def schedule_hold_expiry(rt: Runtime, tx: Tx, merchant_id: str, p: Purchase, now: int) -> None:
    if p.status == "hold":
        rt.scheduler.schedule(
            tx,
            HOLD_EXPIRY_JOB,
            (now + HOLD_SECONDS) * 1_000_000,
            {"purchase_id": p.id},
            merchant_id=merchant_id,
        )


def _job(
    rt: Runtime, change: Callable[[Purchase, Internal, int], tuple[Purchase, list[Event]]]
) -> Callable[[Tx, Job], None]:
    def handler(tx: Tx, job: Job) -> None:
        assert job.merchant_id is not None
        found = repo.get(tx, job.merchant_id, job.payload["purchase_id"])
        if found is None:  # the merchant was wiped since
            return
        p, internal = found
        p, events = change(p, internal, now_s(rt))
        if events:
            repo.update(tx, job.merchant_id, p, internal)
            emit(rt, tx, job.merchant_id, events)
            book(tx, job.merchant_id, p, internal, rt.clock.now_us())

    return handler


def register_jobs(rt: Runtime) -> None:
    def hold_expired(p: Purchase, i: Internal, now: int) -> tuple[Purchase, list[Event]]:
        # Provider quirk (card schemes): an authorisation lapses; the hold is released.
        return domain.release(p, i.card, now) if p.status == "hold" else (p, [])

    def due(p: Purchase, i: Internal, now: int) -> tuple[Purchase, list[Event]]:
        return domain.due_passed(p, now)

    def captured(p: Purchase, i: Internal, now: int) -> tuple[Purchase, list[Event]]:
        if p.status != "pending_capture":
            return p, []
        amount = i.capturing if i.capturing is not None else p.purchase.total
        return domain.capture_done(p, amount, i.card, now)

    def charged(p: Purchase, i: Internal, now: int) -> tuple[Purchase, list[Event]]:
        return domain.charge_done(p, i.card, now) if p.status == "pending_charge" else (p, [])

    rt.scheduler.handle(DUE_JOB, _job(rt, due))
    rt.scheduler.handle(CAPTURE_JOB, _job(rt, captured))
    rt.scheduler.handle(CHARGE_JOB, _job(rt, charged))
    rt.scheduler.handle(HOLD_EXPIRY_JOB, _job(rt, hold_expired))
