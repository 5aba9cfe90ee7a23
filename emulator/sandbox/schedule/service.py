"""What a pending job will do, as the control plane's schedule shows it to a person.

``describe(tx, job)`` turns one durable job into ``due``, ``kind``, ``object_type``,
``object_id`` and ``description``. ``kind`` is a stable public name (the internal job kinds
may change); the object is the one the job acts on; the description is one line a tester
reads ("payout 1f2e3d4c… settles as success"). Small reads through ``tx`` say what will
happen, and say so when the job will find nothing to do (its object gone, or past the point
the job would change). A job whose payload is odd still gets a plain description: nothing
here raises over one.

``KINDS`` is the table: internal job kind → public kind, object type, describer. Its keys are
the literal kinds, not the services' ``*_JOB`` constants, so that this module imports no
service (the control plane imports it); a test keeps the two in step.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

import msgspec

from emulator.bank.collections import repo as collections_repo
from emulator.bank.collections.rules import Collection
from emulator.bank.common.model import MANDATE_TRANSITIONS, MONEY_TRANSITIONS
from emulator.bank.mandates import repo as mandates_repo
from emulator.bank.mandates.rules import Mandate
from emulator.bank.payments import repo as payments_repo
from emulator.bank.payments.rules import Payment
from emulator.core.merchants import repo as merchants
from emulator.delivery import repo as deliveries
from emulator.delivery.outgoing import MAX_ATTEMPTS
from emulator.gateway.billing import repo as billing
from emulator.gateway.payouts import repo as payouts
from emulator.gateway.purchases import repo as purchases
from emulator.gateway.purchases.rules import UNPAID
from emulator.gateway.statements import repo as company_statements
from emulator.kernel.clock import from_us, iso
from emulator.kernel.jobs import Job
from emulator.kernel.storage import Tx
from emulator.sandbox.holds import (
    service_view as hold_view,  # imports repos only, as this module does
)

log = logging.getLogger(__name__)


class Seen(NamedTuple):
    """What a describer found: the object, the line, and the object's type when only a read
    can tell it (a delivery's)."""

    object_id: str | None
    description: str
    object_type: str | None = None


Describer = Callable[[Tx, Job], Seen]


class Kind(NamedTuple):
    public: str
    object_type: str | None
    describe: Describer


# -- small helpers -----------------------------------------------------------------------------


def _text(payload: Mapping[str, Any], key: str) -> str | None:
    value = payload.get(key)
    return value if isinstance(value, str) and value else None


def _int(payload: Mapping[str, Any], key: str) -> int | None:
    value = payload.get(key)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _short(object_id: str) -> str:
    return object_id if len(object_id) <= 9 else object_id[:8] + "…"


def _name(noun: str, object_id: str | None) -> str:
    return f"{noun} {_short(object_id)}" if object_id else f"a {noun}"


def _idle(why: str) -> str:
    return f" (no effect: {why})"


def _unless(noun: str, object_id: str | None, status: str | None, acts: bool) -> str:
    """The note of a job that will find nothing to do: its object is gone (``status`` None
    though the payload names one), or in a status the job does not act on (``acts`` False)."""
    if object_id and status is None:
        return _idle(f"the {noun} is gone")
    if status is not None and not acts:
        return _idle(f"the {noun} is {status}")
    return ""


def _can_reach(table: Mapping[str, frozenset[str]], start: str, target: str) -> bool:
    """Whether ``target`` is one or more transitions away from ``start``."""
    seen: set[str] = set()
    todo = [start]
    while todo:
        for nxt in table.get(todo.pop(), frozenset()):
            if nxt == target:
                return True
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return False


# -- payouts -------------------------------------------------------------------------------------


def _payout(tx: Tx, job: Job) -> tuple[str | None, payouts.PayoutRow | None]:
    payout_id = _text(job.payload, "payout")
    return payout_id, payouts.row(tx, payout_id) if payout_id else None


def payout_expiry(tx: Tx, job: Job) -> Seen:
    payout_id, row = _payout(tx, job)
    status = row.payout.status if row else None
    note = _unless("payout", payout_id, status, status == "initialized")
    line = f"{_name('payout', payout_id)} expires (error) if not executed by then{note}"
    return Seen(payout_id, line)


def payout_settlement(tx: Tx, job: Job) -> Seen:
    """As the execution planned it: success, or failed (with a scenario's message)."""
    payout_id, row = _payout(tx, job)
    outcome = ""
    if row is not None:
        failed = row.settlement == "failed"
        outcome = " as failed" if failed else " as success"
        message = _text(job.payload, "message")
        outcome += f": {message}" if failed and message else ""
    status = row.payout.status if row else None
    note = _unless("payout", payout_id, status, status == "pending")
    return Seen(payout_id, f"{_name('payout', payout_id)} settles{outcome}{note}")


# -- purchases -----------------------------------------------------------------------------------


def _purchase(effect: str, acts_on: tuple[str, ...]) -> Describer:
    """A purchase job: ``effect`` ({name}; {due}: what its due date does to it) happens to a
    purchase in one of ``acts_on``."""

    def describe(tx: Tx, job: Job) -> Seen:
        purchase_id = _text(job.payload, "purchase_id")
        found = purchases.get_any(tx, purchase_id) if purchase_id else None
        strict = found is not None and found[1].purchase.due_strict
        line = effect.format(
            name=_name("purchase", purchase_id),
            due="expires (due_strict)" if strict else "becomes overdue",
        )
        status = found[1].status if found else None
        return Seen(purchase_id, line + _unless("purchase", purchase_id, status, status in acts_on))

    return describe


purchase_due = _purchase("{name} reaches its due date and {due} if still unpaid", UNPAID)
purchase_capture = _purchase("the slow capture of {name} completes (paid)", ("pending_capture",))
purchase_charge = _purchase("the slow charge of {name} completes (paid)", ("pending_charge",))
purchase_hold = _purchase("the 7-day hold on {name} lapses (released)", ("hold",))


# -- billing and tokens --------------------------------------------------------------------------


def billing_bill(tx: Tx, job: Job) -> Seen:
    """A subscriber's billing day: charged with its saved card, else sent an invoice."""
    subscriber_id = _text(job.payload, "subscriber")
    period = _int(job.payload, "period")
    found = None
    if subscriber_id and job.merchant_id:
        found = billing.get_subscriber(tx, job.merchant_id, subscriber_id)
    cycle = f" (cycle {period})" if period is not None else ""
    effect, note = f"is billed{cycle}", _unless("subscriber", subscriber_id, None, False)
    if found is not None:
        s, plan = found
        if s.status not in ("active", "subscription_paused"):
            note = _unless("subscriber", subscriber_id, s.status, False)
        elif plan.next_period != period:
            note = _idle("a newer schedule replaced it")
        elif s.status == "subscription_paused":
            effect, note = f"skips its bill{cycle} while paused", "; the next one is scheduled"
        else:
            note = ": charged with its saved card" if plan.token else ": sent an invoice"
    return Seen(subscriber_id, f"{_name('subscriber', subscriber_id)} {effect}{note}")


def token_expiry(tx: Tx, job: Job) -> Seen:
    """Names the OAuth client, never the token: its value is a credential."""
    value = _text(job.payload, "token")
    found = merchants.token(tx, value) if value else None
    if found is None:
        return Seen(None, "an access token expires" + _unless("token", value, None, False))
    return Seen(found[1], f"an access token of client {found[1]} expires")


# -- the bank: mandates, collections, payments ---------------------------------------------------


def _mandate(tx: Tx, job: Job) -> tuple[str | None, Mandate | None]:
    mandate_id = _text(job.payload, "id")
    found = mandates_repo.mandate(tx, mandate_id) if mandate_id else None
    return mandate_id, found[1] if found else None


def _window(tx: Tx, job: Job, effect: str) -> Seen:
    """The debtor's authentication window (its end, or a scenario's answer within it): acts
    on a mandate still waiting in the window the job was made for."""
    mandate_id, mandate = _mandate(tx, job)
    status = mandate.status if mandate else None
    waiting = status == "PENDING_AUTHENTICATION"
    deadline = mandate.authenticationExpiresAt if mandate else None
    note = _unless("mandate", mandate_id, status, waiting)
    if waiting and deadline != job.payload.get("deadline"):
        note = _idle("a reset opened a new window")
    return Seen(mandate_id, f"{_name('mandate', mandate_id)} {effect}{note}")


def mandate_window(tx: Tx, job: Job) -> Seen:
    return _window(tx, job, "expires (EXPIRED) if the debtor has not authenticated by then")


def mandate_decision(tx: Tx, job: Job) -> Seen:
    status = _text(job.payload, "status")
    reason = _text(job.payload, "reason")
    answer = f"{status}: {reason}" if status and reason else status or "an answer"
    return _window(tx, job, f"gets the debtor's answer ({answer})")


def mandate_release(tx: Tx, job: Job) -> Seen:
    mandate_id, mandate = _mandate(tx, job)
    status = mandate.status if mandate else None
    acts = status is not None and _can_reach(MANDATE_TRANSITIONS, status, "EXPIRED")
    line = f"{_name('mandate', mandate_id)} reaches its release date and expires (EXPIRED)"
    return Seen(mandate_id, line + _unless("mandate", mandate_id, status, acts))


_OUTCOMES = {
    "COMPLETED": "completes",
    "UNPAID": "is returned unpaid",
    "REJECTED": "is rejected",
    "DISPUTED": "is disputed",
}
Read = Callable[[Tx, str], tuple[str, Collection] | tuple[str, Payment] | None]


def _money_step(noun: str, read: Read) -> Describer:
    """A collection's or payment's next status on the bank's clock (a step that a later
    status has overtaken does nothing)."""

    def describe(tx: Tx, job: Job) -> Seen:
        object_id = _text(job.payload, "id")
        target = _text(job.payload, "status")
        reason = _text(job.payload, "reason")
        outcome = "gets its outcome"
        if target:
            detail = f"{target}: {reason}" if reason else target
            outcome = f"{_OUTCOMES.get(target, 'changes')} ({detail})"
        retry = _int(job.payload, "retry")
        if retry is not None:  # a tracked DebiCheck collection presented again
            outcome = f"is presented again (re-try {retry}) and {outcome}"
        found = read(tx, object_id) if object_id else None
        status = found[1].status if found else None
        acts = status is not None and (not target or _can_reach(MONEY_TRANSITIONS, status, target))
        line = f"{_name(noun, object_id)} {outcome}"
        return Seen(object_id, line + _unless(noun, object_id, status, acts))

    return describe


# -- company statements --------------------------------------------------------------------------

_STEPS = {
    "begin": ("starts being generated (processing)", "pending"),
    "finish": ("is generated (success): its file is ready", "processing"),
}


def statement_generation(tx: Tx, job: Job) -> Seen:
    """A step of a statement's generation; a cancelled one does nothing more."""
    statement_id = _text(job.payload, "id")
    effect, acts_on = _STEPS.get(_text(job.payload, "trigger") or "", ("moves on", ""))
    found = company_statements.get(tx, job.merchant_id, statement_id) if statement_id else None
    status = found.statement.status if found else None
    note = _unless("statement", statement_id, status, status == acts_on)
    return Seen(statement_id, f"{_name('statement', statement_id)} {effect}{note}")


# -- deliveries ----------------------------------------------------------------------------------

_RECEIVERS = {"webhook": "webhook", "success_callback": "success callback", "callback": "callback"}


def delivery_send(tx: Tx, job: Job) -> Seen:
    """Names the object whose event is delivered (from the message), not the message."""
    message_id = _int(job.payload, "message")
    attempt = _int(job.payload, "attempt")
    nth = f"attempt {attempt} of {MAX_ATTEMPTS}" if attempt is not None else "an attempt"
    message = deliveries.message(tx, message_id) if message_id is not None else None
    if message is None:
        gone = _idle("the message is gone") if message_id is not None else ""
        return Seen(None, f"{nth} of a delivery{gone}")
    receiver = _RECEIVERS.get(message.kind, message.kind)
    line = f"{nth} of the {message.event_type} {receiver} to {message.url}"
    if message.state != "queued":
        line += _idle(f"the message is {message.state}")
    elif attempt is not None and attempt != message.attempts + 1:
        line += _idle(f"{message.attempts} attempts were made already")
    # the bank's objects go through the outbox as bank_collection etc.: named as the API does
    return Seen(message.object_id, line, message.object_type.removeprefix("bank_"))


# -- housekeeping --------------------------------------------------------------------------------


def retention_prune(tx: Tx, job: Job) -> Seen:
    """The retention job (emulator/core/retention/jobs.py); its window is in the payload."""
    window = _int(job.payload, "window_s")
    age = "the retention window"
    if window:
        age = f"{window // 86_400} days" if window % 86_400 == 0 else f"{window} s"
    return Seen(
        None, f"prunes delivered events, finished deliveries and sink messages older than {age}"
    )


# -- the table -----------------------------------------------------------------------------------

KINDS: dict[str, Kind] = {
    "payout.expiry": Kind("payout.expiry", "payout", payout_expiry),
    "payout.settlement": Kind("payout.settlement", "payout", payout_settlement),
    "purchase.due": Kind("purchase.expiry", "purchase", purchase_due),
    "purchase.capture_settles": Kind("purchase.capture", "purchase", purchase_capture),
    "purchase.charge_settles": Kind("purchase.charge", "purchase", purchase_charge),
    "purchase.hold_expires": Kind("purchase.hold_expiry", "purchase", purchase_hold),
    "billing.bill": Kind("billing.charge", "billing_template_client", billing_bill),
    "oauth.token_expiry": Kind("token.expiry", "token", token_expiry),
    "bank.mandate_window": Kind("mandate.window", "mandate", mandate_window),
    "bank.mandate_decision": Kind("mandate.authorisation", "mandate", mandate_decision),
    "bank.mandate_release": Kind("mandate.release", "mandate", mandate_release),
    "bank.collection_step": Kind(
        "collection.outcome", "collection", _money_step("collection", collections_repo.collection)
    ),
    "bank.payment_step": Kind(
        "payment.outcome", "payment", _money_step("payment", payments_repo.payment)
    ),
    "delivery.send": Kind("delivery.attempt", None, delivery_send),
    "hold.timeout": Kind("hold.timeout", None, lambda tx, job: Seen(*hold_view.timeout(tx, job))),
    "purchase.held_result": Kind(
        "purchase.held_result", "purchase", lambda tx, job: Seen(*hold_view.held_result(tx, job))
    ),
    "retention.prune": Kind("retention.prune", None, retention_prune),
    "company_statement.generate": Kind(
        "company_statement.generation", "company_statement", statement_generation
    ),
}

# What a describer may meet in a payload or a row it did not expect: the job is still shown.
_ODD = (LookupError, TypeError, ValueError, AttributeError, msgspec.MsgspecError)


def describe(tx: Tx, job: Job) -> dict[str, Any]:
    kind = KINDS.get(job.kind)
    if kind is None:
        seen = Seen(None, f"{job.kind} job runs")
    else:
        try:
            seen = kind.describe(tx, job)
        except _ODD:
            log.warning("job %s (%s): payload not understood", job.id, job.kind, exc_info=True)
            seen = Seen(None, f"{kind.public} job runs")
    return {
        "due": iso(from_us(job.due_us)),
        "kind": kind.public if kind is not None else job.kind,
        "object_type": seen.object_type or (kind.object_type if kind is not None else None),
        "object_id": seen.object_id,
        "description": seen.description,
    }


def describe_all(tx: Tx, jobs: list[Job], object_id: str | None = None) -> list[dict[str, Any]]:
    """Every job described, in the order given; only those acting on ``object_id`` if given."""
    described = (describe(tx, job) for job in jobs)
    return [d for d in described if object_id is None or d["object_id"] == object_id]
