"""What the bank's pending jobs will do, in a line each: a mandate's window, decision and
release, a collection's or payment's next step, a statement's generation."""

from __future__ import annotations

from collections.abc import Callable

from emulator.bank.collections.rules import Collection
from emulator.bank.common.model import MANDATE_TRANSITIONS, MONEY_TRANSITIONS
from emulator.bank.mandates import repo as mandates_repo
from emulator.bank.mandates.rules import Mandate
from emulator.bank.payments.rules import Payment
from emulator.gateway.statements import repo as company_statements
from emulator.kernel.jobs import Job
from emulator.kernel.storage import Tx
from emulator.sandbox.schedule.service_words import (
    Describer,
    Seen,
    can_reach,
    idle,
    int_of,
    name_of,
    text_of,
    unless,
)


def _mandate(tx: Tx, job: Job) -> tuple[str | None, Mandate | None]:
    mandate_id = text_of(job.payload, "id")
    found = mandates_repo.mandate(tx, mandate_id) if mandate_id else None
    return mandate_id, found[1] if found else None


def _window(tx: Tx, job: Job, effect: str) -> Seen:
    """The debtor's authentication window (its end, or a scenario's answer within it): acts
    on a mandate still waiting in the window the job was made for."""
    mandate_id, mandate = _mandate(tx, job)
    status = mandate.status if mandate else None
    waiting = status == "PENDING_AUTHENTICATION"
    deadline = mandate.authenticationExpiresAt if mandate else None
    note = unless("mandate", mandate_id, status, waiting)
    if waiting and deadline != job.payload.get("deadline"):
        note = idle("a reset opened a new window")
    return Seen(mandate_id, f"{name_of('mandate', mandate_id)} {effect}{note}")


def mandate_window(tx: Tx, job: Job) -> Seen:
    return _window(tx, job, "expires (EXPIRED) if the debtor has not authenticated by then")


def mandate_decision(tx: Tx, job: Job) -> Seen:
    status = text_of(job.payload, "status")
    reason = text_of(job.payload, "reason")
    answer = f"{status}: {reason}" if status and reason else status or "an answer"
    return _window(tx, job, f"gets the debtor's answer ({answer})")


def mandate_release(tx: Tx, job: Job) -> Seen:
    mandate_id, mandate = _mandate(tx, job)
    status = mandate.status if mandate else None
    acts = status is not None and can_reach(MANDATE_TRANSITIONS, status, "EXPIRED")
    line = f"{name_of('mandate', mandate_id)} reaches its release date and expires (EXPIRED)"
    return Seen(mandate_id, line + unless("mandate", mandate_id, status, acts))


_OUTCOMES = {
    "COMPLETED": "completes",
    "UNPAID": "is returned unpaid",
    "REJECTED": "is rejected",
    "DISPUTED": "is disputed",
}


Read = Callable[[Tx, str], tuple[str, Collection] | tuple[str, Payment] | None]


def money_step(noun: str, read: Read) -> Describer:
    """A collection's or payment's next status on the bank's clock (a step that a later
    status has overtaken does nothing)."""

    def describe(tx: Tx, job: Job) -> Seen:
        object_id = text_of(job.payload, "id")
        target = text_of(job.payload, "status")
        reason = text_of(job.payload, "reason")
        outcome = "gets its outcome"
        if target:
            detail = f"{target}: {reason}" if reason else target
            outcome = f"{_OUTCOMES.get(target, 'changes')} ({detail})"
        retry = int_of(job.payload, "retry")
        if retry is not None:  # a tracked DebiCheck collection presented again
            outcome = f"is presented again (re-try {retry}) and {outcome}"
        found = read(tx, object_id) if object_id else None
        status = found[1].status if found else None
        acts = status is not None and (not target or can_reach(MONEY_TRANSITIONS, status, target))
        line = f"{name_of(noun, object_id)} {outcome}"
        return Seen(object_id, line + unless(noun, object_id, status, acts))

    return describe


_STEPS = {
    "begin": ("starts being generated (processing)", "pending"),
    "finish": ("is generated (success): its file is ready", "processing"),
}


def statement_generation(tx: Tx, job: Job) -> Seen:
    """A step of a statement's generation; a cancelled one does nothing more."""
    statement_id = text_of(job.payload, "id")
    effect, acts_on = _STEPS.get(text_of(job.payload, "trigger") or "", ("moves on", ""))
    found = company_statements.get(tx, job.merchant_id, statement_id) if statement_id else None
    status = found.statement.status if found else None
    note = unless("statement", statement_id, status, status == acts_on)
    return Seen(statement_id, f"{name_of('statement', statement_id)} {effect}{note}")
