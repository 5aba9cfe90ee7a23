"""How a v2 collection ends, on the clock: its steps, unpaid codes and their consequences on
the mandate, DebiCheck tracking re-tries on business days, the dispute window that the
control plane's settle (``service_settle``) meets too."""

from __future__ import annotations

import functools
from datetime import date, timedelta
from typing import TYPE_CHECKING, Any

import msgspec

from emulator import resources
from emulator.bank.calendar import rules as cal
from emulator.bank.collections import repo as collections_repo
from emulator.bank.collections.rules import Attempt, Collection, Step
from emulator.bank.common import model as rules
from emulator.bank.common import repo
from emulator.bank.common.model import MANDATE_TRANSITIONS, MONEY_TRANSITIONS
from emulator.bank.common.service_events import book, emit, now_iso
from emulator.bank.mandates import repo as mandates_repo
from emulator.bank.mandates import service as mandates
from emulator.delivery import holds
from emulator.domain import unpaids
from emulator.domain.errors import BankBadRequest
from emulator.kernel.ids import uuid_of
from emulator.kernel.jobs import Job
from emulator.kernel.storage import Tx
from emulator.scenarios import points

if TYPE_CHECKING:
    from emulator.kernel.context import Context, JobHandler

STEP_JOB = "bank.collection_step"
RECENT = 20  # a mandate's collections looked at to count its consecutive unpaids


class DisputeWindowClosed(BankBadRequest):
    def __init__(self, action: str) -> None:
        closed = unpaids.dispute_closes_on(date.fromisoformat(action))
        super().__init__(
            f"the dispute window closed: a collection can be disputed for {unpaids.DISPUTE_DAYS}"
            f" days after its action date ({action}), until {closed} (SAST)"
        )


def payload_of(collection_id: str, step: Step) -> dict[str, Any]:
    """A step as its job's payload; an UNPAID or DISPUTED one names its code and text."""
    code, reason = unpaids.resolve(resources.unpaid_codes(), step.status, step.code, step.reason)
    body: dict[str, Any] = {"id": collection_id, "status": step.status, "reason": reason}
    if code is not None:
        body["code"] = code
    if step.funds_on_day is not None:
        body["funds_on_day"] = step.funds_on_day
    return body


def plan_steps(
    rt: Context, tx: Tx, merchant_id: str, collection: Collection, steps: list[Step]
) -> Collection:
    """Each step due now is applied before the request answers; the others are jobs."""
    now_us = rt.clock.now_us()
    for step in steps:
        body = payload_of(collection.id, step)
        if step.due_us <= now_us:
            collection = outcome(rt, tx, merchant_id, collection, body)
        else:
            rt.scheduler.schedule(tx, STEP_JOB, step.due_us, body, merchant_id)
    return collection


def _text(body: dict[str, Any], name: str) -> str | None:
    value = body.get(name)
    return None if value is None else str(value)


def outcome(
    rt: Context, tx: Tx, merchant_id: str, collection: Collection, body: dict[str, Any]
) -> Collection:
    """A step's outcome. A DebiCheck collection with a ``trackingPeriod`` that the debtor's bank
    returns unpaid for want of funds (02) is presented again on each following business day
    of its period (each attempt on the collection) until it is paid, then ends UNPAID."""
    status, code = str(body["status"]), _text(body, "code")
    retry = int(body.get("retry", 0))
    period = collection.trackingPeriod or 0
    short = (status, code) == ("UNPAID", "02") or (status == "COMPLETED" and retry > 0)
    if collection.type != "DEBICHECK" or period == 0 or not short:
        return change_status(rt, tx, merchant_id, collection, status, _text(body, "reason"), code)
    today = cal.local(rt.clock.now_us()).date()
    attempt = Attempt(attempt=retry + 1, date=today.isoformat(), status=status, reasonCode=code)
    collection = msgspec.structs.replace(collection, attempts=[*collection.attempts, attempt])
    if status == "COMPLETED" or retry >= period:
        return change_status(rt, tx, merchant_id, collection, status, _text(body, "reason"), code)
    # Still PENDING: the attempt is on the collection, but no event or callback (its status
    # did not change; the outcome is one event when tracking ends).
    collection = msgspec.structs.replace(collection, updatedAt=now_iso(rt))
    collections_repo.update_collection(tx, collection, before=collection.status)
    funds = body.get("funds_on_day")
    paid = funds is not None and int(funds) == retry + 1
    nxt = cal.next_business_day(today + timedelta(days=1))
    again = {
        **body,
        "status": "COMPLETED" if paid else "UNPAID",
        "reason": None if paid else body.get("reason"),
        "code": None if paid else "02",
        "retry": retry + 1,
    }
    rt.scheduler.schedule(tx, STEP_JOB, cal.processing_us(nxt), again, merchant_id)
    return collection


def change_status(
    rt: Context,
    tx: Tx,
    merchant_id: str,
    collection: Collection,
    status: str,
    reason: str | None,
    code: str | None = None,
) -> Collection:
    """One transition of the table; a completion lands on the creditor's statement of the
    action date and in the ledger; a dispute (in its window) takes the money back; an unpaid
    or a dispute carries its code, and its consequence reaches the mandate."""
    rules.check_transition(MONEY_TRANSITIONS, "collection", collection.status, status)
    now_us = rt.clock.now_us()
    code, reason = unpaids.resolve(resources.unpaid_codes(), status, code, reason)
    changes: dict[str, Any] = {
        "status": status,
        "reason": reason,
        "reasonCode": code,
        "updatedAt": cal.iso_us(now_us),  # now_iso(rt), the clock read once
    }
    if status == "COMPLETED":
        account = collection.creditor.accountNumber or ""
        changes["statementId"] = _statement(rt, tx, merchant_id, account, collection.actionDate)
        changes["disputeWindowClosesOn"] = _closes_on(collection.actionDate)
        amount = collection.amountCents
        book(tx, merchant_id, "collection", "collection", collection.id, amount, now_us)
    elif status == "DISPUTED":
        if now_us >= unpaids.dispute_deadline_us(date.fromisoformat(collection.actionDate)):
            raise DisputeWindowClosed(collection.actionDate)
        amount = -collection.amountCents
        book(tx, merchant_id, "dispute", "collection", collection.id, amount, now_us)
    updated = msgspec.structs.replace(collection, **changes)
    data = collections_repo.encoded(updated)  # stored, and the event's payload: the same bytes
    collections_repo.update_collection(tx, updated, data, before=collection.status)
    # a completion refers to the row (it changes again only by a dispute, which copies it)
    completed = status == "COMPLETED"
    emit(rt, tx, merchant_id, "bank_collection", updated, data, now_us, ref=completed)
    if code is not None:
        _reach_mandate(rt, tx, merchant_id, updated, code)
    return updated


@functools.lru_cache(maxsize=64)
def _closes_on(action: str) -> str:
    """The last day of a dispute window (a day's outcomes share a few action dates)."""
    return unpaids.dispute_closes_on(date.fromisoformat(action))


def _statement(rt: Context, tx: Tx, merchant_id: str, account: str, day: str) -> str:
    """The statement's id, made if there is none yet. A statement found already there is
    kept for the rest of the unit (nothing in it deletes one); one made here is not (its job
    may still roll back alone, a failing job's savepoint)."""
    drawn = rt.ids.draw()  # drawn as before, made or not: a seed's ids stay as they were
    # The statements the unit found (merchant, account, day -> id): a day's outcomes,
    # thousands in one unit, land on one statement.
    known: dict[tuple[str, str, str], str] = tx.kept("bank.statements")
    key = (merchant_id, account, day)
    found = known.get(key)
    if found is None:
        found = repo.existing_statement(tx, merchant_id, account, day)
        if found is None:
            new_id = uuid_of(drawn)  # the UUID Ids.uuid makes of it
            return repo.statement_id(tx, merchant_id, account, day, new_id)
        known[key] = found
    return found


def _consecutive_unpaids(tx: Tx, mandate_id: str) -> int:
    count = 0
    for c in collections_repo.latest_collections(tx, mandate_id, RECENT):
        if c.status == "PENDING":
            continue
        if c.status != "UNPAID":
            break
        count += 1
    return count


def _reach_mandate(
    rt: Context, tx: Tx, merchant_id: str, collection: Collection, code: str
) -> None:
    """An unpaid code other than 02 and 22 (or a dispute) makes the mandate INACTIVE; the
    third unpaid in a row SUSPENDS it. A mandate already out of force stays as it is."""
    schedule = resources.unpaid_codes()
    consecutive = _consecutive_unpaids(tx, collection.mandateId)
    verdict = unpaids.mandate_consequence(schedule, code, consecutive)
    found = mandates_repo.mandate(tx, collection.mandateId)
    if verdict is None or found is None:
        return
    mandate = found[1]
    if verdict not in MANDATE_TRANSITIONS.get(mandate.status, frozenset()):
        return
    what = "disputed" if collection.status == "DISPUTED" else "unpaid"
    text = f"{what} {code} ({collection.reason}) on collection {collection.id}"
    if verdict == "SUSPENDED":
        text = f"{consecutive} consecutive unpaids, the latest {code} ({collection.reason})"
    mandate = msgspec.structs.replace(mandate, reasonCode=code)
    mandates.change_status(rt, tx, merchant_id, mandate, verdict, text)


def subject_of(collection: Collection) -> dict[str, Any]:
    """A collection as ``collection.outcome`` matches it (scenarios and holds)."""
    return {
        "amountCents": collection.amountCents,
        "accountNumber": collection.debtor.accountNumber,
        "branchCode": collection.debtor.branchCode,
        "externalReference": collection.externalReference,
        "serviceType": collection.serviceType,
        "profileCode": collection.profileCode,
        "collectionType": collection.type,
        "object_id": collection.id,
    }


def step_job(rt: Context, tx: Tx, job: Job) -> None:
    found = collections_repo.collection_of_job(
        tx, str(job.payload["id"]), job.id, job.due_us, STEP_JOB
    )
    if found is None:
        return
    status = str(job.payload["status"])
    if status not in MONEY_TRANSITIONS.get(found[1].status, frozenset()):
        return  # overtaken (settled by hand, or a scenario's earlier answer)
    default = {"status": status, "reasonCode": job.payload.get("code")}
    if int(job.payload.get("retry", 0)) == 0 and holds.capture_decision(
        rt,
        tx,
        points.COLLECTION_OUTCOME,
        found[0],
        subject_of(found[1]),
        default,
        (STEP_JOB, dict(job.payload)),
    ):
        return  # a hold took the bank's answer: carried out once released
    try:
        outcome(rt, tx, found[0], found[1], job.payload)  # read, never changed
    except DisputeWindowClosed:
        return  # a dispute planned after the window (the clock jumped past it)


JOBS: dict[str, JobHandler] = {STEP_JOB: step_job}
