"""The purchase time rules as durable jobs on the emulator clock (atomic: each runs inside
the scheduler's unit of work): due dates, slow captures and charges, hold expiry."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from emulator.domain.events import Event
from emulator.gateway.purchases import repo, rules_actions
from emulator.gateway.purchases import rules as domain
from emulator.gateway.purchases.model import Internal, Purchase
from emulator.gateway.purchases.service_effects import book, now_s, save
from emulator.kernel.jobs import Job
from emulator.kernel.storage import Tx

if TYPE_CHECKING:
    from emulator.kernel.context import Context, JobHandler

DUE_JOB = "purchase.due"
CAPTURE_JOB = "purchase.capture_settles"
CHARGE_JOB = "purchase.charge_settles"
HOLD_EXPIRY_JOB = "purchase.hold_expires"
SLOW_SECONDS = 600  # test card 4000 0000 0000 0259: paid 10 minutes after a capture/charge
HOLD_SECONDS = 7 * 86_400  # an authorisation not captured within 7 days is released


def schedule_hold_expiry(rt: Context, tx: Tx, merchant_id: str, p: Purchase, now: int) -> None:
    if p.status == "hold":
        rt.scheduler.schedule(
            tx,
            HOLD_EXPIRY_JOB,
            (now + HOLD_SECONDS) * 1_000_000,
            {"purchase_id": p.id},
            merchant_id=merchant_id,
        )


Change = Callable[[Purchase, Internal, int], tuple[Purchase, list[Event]]]


def _apply(rt: Context, tx: Tx, job: Job, change: Change) -> None:
    assert job.merchant_id is not None
    found = repo.get(tx, job.merchant_id, job.payload["purchase_id"])
    if found is None:  # the merchant was wiped since
        return
    p, internal = found
    p, events = change(p, internal, now_s(rt))
    if events:
        save(rt, tx, job.merchant_id, p, internal, events)
        book(tx, job.merchant_id, p, internal, rt.clock.now_us())


def _hold_expired(p: Purchase, i: Internal, now: int) -> tuple[Purchase, list[Event]]:
    # Provider quirk (card schemes): an authorisation lapses; the hold is released.
    return domain.release(p, i.card, now) if p.status == "hold" else (p, [])


def _due(p: Purchase, i: Internal, now: int) -> tuple[Purchase, list[Event]]:
    return domain.due_passed(p, now)


def _captured(p: Purchase, i: Internal, now: int) -> tuple[Purchase, list[Event]]:
    if p.status != "pending_capture":
        return p, []
    amount = i.capturing if i.capturing is not None else p.purchase.total
    return rules_actions.capture_done(p, amount, i.card, now)


def _charged(p: Purchase, i: Internal, now: int) -> tuple[Purchase, list[Event]]:
    return rules_actions.charge_done(p, i.card, now) if p.status == "pending_charge" else (p, [])


def due(rt: Context, tx: Tx, job: Job) -> None:
    _apply(rt, tx, job, _due)


def captured(rt: Context, tx: Tx, job: Job) -> None:
    _apply(rt, tx, job, _captured)


def charged(rt: Context, tx: Tx, job: Job) -> None:
    _apply(rt, tx, job, _charged)


def hold_expired(rt: Context, tx: Tx, job: Job) -> None:
    _apply(rt, tx, job, _hold_expired)


JOBS: dict[str, JobHandler] = {
    DUE_JOB: due,
    CAPTURE_JOB: captured,
    CHARGE_JOB: charged,
    HOLD_EXPIRY_JOB: hold_expired,
}
