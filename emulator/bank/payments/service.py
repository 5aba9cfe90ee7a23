"""v2 EFT payments: create, outcomes on the clock, the control plane's settle, reads."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import msgspec

from emulator import resources
from emulator.bank.calendar import rules as cal
from emulator.bank.collections.jobs import payload_of
from emulator.bank.collections.rules import outcome_steps
from emulator.bank.common import model as rules
from emulator.bank.common.model import MONEY_TRANSITIONS, PAYMENT_LIMIT_CENTS
from emulator.bank.common.service_checks import check_outcome_code, instant, profile, settle_unit
from emulator.bank.common.service_events import book, emit, now_iso
from emulator.bank.payments import repo as payments_repo
from emulator.bank.payments.rules import (
    REAL_TIME_US,
    REQUIRED,
    REQUIRED_TEXT,
    EftPaymentInput,
    Payment,
)
from emulator.domain import unpaids
from emulator.domain.errors import BankBadRequest, NotFound
from emulator.kernel.jobs import Job
from emulator.kernel.storage import Tx
from emulator.scenarios import points

if TYPE_CHECKING:
    from emulator.kernel.context import Context, JobHandler

STEP_JOB = "bank.payment_step"


def check(data: EftPaymentInput) -> None:
    """The spec's required fields and the provider's limit, before anything is stored."""
    for name in REQUIRED:
        rules.require(getattr(data, name), name)
    for name in REQUIRED_TEXT:
        rules.require_text(getattr(data, name), name)
    rules.require_account(data.debtor)
    rules.require_account(data.creditor, "creditor")
    if (data.amountCents or 0) >= PAYMENT_LIMIT_CENTS:
        # Provider quirk: R5,000,000 and more is refused with these words.
        raise BankBadRequest("amountCents: exceeds industry imposed limits")


def new_payment(
    rt: Context, tx: Tx, merchant_id: str, data: EftPaymentInput, bulk_id: str | None = None
) -> Payment:
    """Save a PENDING payment and plan its outcome (the same test accounts as collections, on
    the creditor's account; real-time clearing lands 10 s after submission)."""
    check(data)
    assert data.debtor is not None and data.creditor is not None and data.amountCents is not None
    p = profile(tx, merchant_id, data.profileCode)
    rules.check_offered(p, "EFT" + data.serviceType)
    payment_date, requested = instant(data.paymentDate, "paymentDate")
    now_us = rt.clock.now_us()
    action = cal.action_date(
        now_us, "SAMEDAY" if data.realTimeClearing else data.serviceType, requested
    )
    now = cal.iso_us(now_us)
    payment = Payment(
        id=rt.ids.uuid(),
        status="PENDING",
        externalReference=data.externalReference,
        contractReference=data.contractReference or "",
        abbreviatedName=data.abbreviatedName or "",
        amountCents=data.amountCents,
        paymentDate=payment_date or now,
        actionDate=action.isoformat(),
        serviceType=data.serviceType,
        realTimeClearing=data.realTimeClearing,
        profileCode=p.profileCode,
        debtor=data.debtor,
        creditor=data.creditor,
        alertOverride=data.alertOverride,
        bulkUploadId=bulk_id,
        createdAt=now,
        updatedAt=now,
    )
    payments_repo.insert_payment(tx, merchant_id, payment)
    emit(rt, tx, merchant_id, "bank_payment", payment)
    processing = now_us + REAL_TIME_US if data.realTimeClearing else cal.processing_us(action)
    subject = {
        "amountCents": payment.amountCents,
        "accountNumber": payment.creditor.accountNumber,
        "branchCode": payment.creditor.branchCode,
        "externalReference": payment.externalReference,
        "serviceType": payment.serviceType,
        "profileCode": payment.profileCode,
        "realTimeClearing": payment.realTimeClearing,
        "object_id": payment.id,
    }
    answer = rt.scenarios.decide(tx, points.PAYMENT_OUTCOME, merchant_id, subject)
    account = payment.creditor.accountNumber or ""
    for step in outcome_steps(resources.unpaid_codes(), answer, account, now_us, processing):
        body = payload_of(payment.id, step)
        if step.due_us <= now_us:
            payment = change_status(
                rt, tx, merchant_id, payment, step.status, step.reason, _code(body)
            )
        else:
            rt.scheduler.schedule(tx, STEP_JOB, step.due_us, body, merchant_id)
    return payment


def _code(body: dict[str, Any]) -> str | None:
    code = body.get("code")
    return None if code is None else str(code)


async def create(rt: Context, merchant_id: str, data: EftPaymentInput) -> Payment:
    check(data)
    return await rt.db.write(lambda tx: new_payment(rt, tx, merchant_id, data))


def change_status(
    rt: Context,
    tx: Tx,
    merchant_id: str,
    payment: Payment,
    status: str,
    reason: str | None,
    code: str | None = None,
) -> Payment:
    """One transition; an UNPAID or DISPUTED payment carries its unpaid code and text."""
    rules.check_transition(MONEY_TRANSITIONS, "payment", payment.status, status)
    code, reason = unpaids.resolve(resources.unpaid_codes(), status, code, reason)
    if status == "COMPLETED":
        book(
            tx,
            merchant_id,
            "payment",
            "payment",
            payment.id,
            -payment.amountCents,
            rt.clock.now_us(),
        )
    updated = msgspec.structs.replace(
        payment, status=status, reason=reason, reasonCode=code, updatedAt=now_iso(rt)
    )
    payments_repo.update_payment(tx, updated)
    emit(rt, tx, merchant_id, "bank_payment", updated)
    return updated


def step_job(rt: Context, tx: Tx, job: Job) -> None:
    found = payments_repo.payment(tx, str(job.payload["id"]))
    if found is None:
        return
    status = str(job.payload["status"])
    if status not in MONEY_TRANSITIONS.get(found[1].status, frozenset()):
        return
    reason = job.payload.get("reason")
    text = None if reason is None else str(reason)
    change_status(rt, tx, found[0], found[1], status, text, _code(job.payload))


async def settle(rt: Context, payment_id: str, status: str, code: str | None) -> Payment:
    check_outcome_code(status, code)

    def unit(tx: Tx) -> Payment:
        def change(merchant_id: str, payment: Payment) -> Payment:
            return change_status(rt, tx, merchant_id, payment, status, None, code)

        return settle_unit(payments_repo.payment(tx, payment_id), change, "payment")

    return await rt.db.write(unit)


async def get(rt: Context, merchant_id: str, payment_id: str) -> Payment:
    found = await rt.db.read(lambda tx: payments_repo.payment(tx, payment_id, merchant_id))
    if found is None:
        raise NotFound()
    return found[1]


JOBS: dict[str, JobHandler] = {STEP_JOB: step_job}
