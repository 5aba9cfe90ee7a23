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
from typing import Any

import msgspec

from emulator.bank.collections import repo as collections_repo
from emulator.bank.payments import repo as payments_repo
from emulator.core.merchants import repo as merchants
from emulator.delivery import repo as deliveries
from emulator.delivery.outgoing import MAX_ATTEMPTS
from emulator.gateway.billing import repo as billing
from emulator.gateway.payouts import repo as payouts
from emulator.gateway.purchases import repo as purchases
from emulator.gateway.purchases.rules import UNPAID
from emulator.kernel.clock import from_us, iso
from emulator.kernel.jobs import Job
from emulator.kernel.storage import Tx
from emulator.sandbox.holds import (
    service_view as hold_view,  # imports repos only, as this module does
)
from emulator.sandbox.schedule.service_bank import (
    mandate_decision,
    mandate_release,
    mandate_window,
    money_step,
    statement_generation,
)
from emulator.sandbox.schedule.service_words import (
    Describer,
    Kind,
    Seen,
    idle,
    int_of,
    name_of,
    text_of,
    unless,
)

log = logging.getLogger(__name__)


# -- small helpers -----------------------------------------------------------------------------


# -- payouts -------------------------------------------------------------------------------------


def _payout(tx: Tx, job: Job) -> tuple[str | None, payouts.PayoutRow | None]:
    payout_id = text_of(job.payload, "payout")
    return payout_id, payouts.row(tx, payout_id) if payout_id else None


def payout_expiry(tx: Tx, job: Job) -> Seen:
    payout_id, row = _payout(tx, job)
    status = row.payout.status if row else None
    note = unless("payout", payout_id, status, status == "initialized")
    line = f"{name_of('payout', payout_id)} expires (error) if not executed by then{note}"
    return Seen(payout_id, line)


def payout_settlement(tx: Tx, job: Job) -> Seen:
    """As the execution planned it: success, or failed (with a scenario's message)."""
    payout_id, row = _payout(tx, job)
    outcome = ""
    if row is not None:
        failed = row.settlement == "failed"
        outcome = " as failed" if failed else " as success"
        message = text_of(job.payload, "message")
        outcome += f": {message}" if failed and message else ""
    status = row.payout.status if row else None
    note = unless("payout", payout_id, status, status == "pending")
    return Seen(payout_id, f"{name_of('payout', payout_id)} settles{outcome}{note}")


# -- purchases -----------------------------------------------------------------------------------


def _purchase(effect: str, acts_on: tuple[str, ...]) -> Describer:
    """A purchase job: ``effect`` ({name}; {due}: what its due date does to it) happens to a
    purchase in one of ``acts_on``."""

    def describe(tx: Tx, job: Job) -> Seen:
        purchase_id = text_of(job.payload, "purchase_id")
        found = purchases.get_any(tx, purchase_id) if purchase_id else None
        strict = found is not None and found[1].purchase.due_strict
        line = effect.format(
            name=name_of("purchase", purchase_id),
            due="expires (due_strict)" if strict else "becomes overdue",
        )
        status = found[1].status if found else None
        return Seen(purchase_id, line + unless("purchase", purchase_id, status, status in acts_on))

    return describe


purchase_due = _purchase("{name} reaches its due date and {due} if still unpaid", UNPAID)
purchase_capture = _purchase("the slow capture of {name} completes (paid)", ("pending_capture",))
purchase_charge = _purchase("the slow charge of {name} completes (paid)", ("pending_charge",))
purchase_hold = _purchase("the 7-day hold on {name} lapses (released)", ("hold",))


# -- billing and tokens --------------------------------------------------------------------------


def billing_bill(tx: Tx, job: Job) -> Seen:
    """A subscriber's billing day: charged with its saved card, else sent an invoice."""
    subscriber_id = text_of(job.payload, "subscriber")
    period = int_of(job.payload, "period")
    found = None
    if subscriber_id and job.merchant_id:
        found = billing.get_subscriber(tx, job.merchant_id, subscriber_id)
    cycle = f" (cycle {period})" if period is not None else ""
    effect, note = f"is billed{cycle}", unless("subscriber", subscriber_id, None, False)
    if found is not None:
        s, plan = found
        if s.status not in ("active", "subscription_paused"):
            note = unless("subscriber", subscriber_id, s.status, False)
        elif plan.next_period != period:
            note = idle("a newer schedule replaced it")
        elif s.status == "subscription_paused":
            effect, note = f"skips its bill{cycle} while paused", "; the next one is scheduled"
        else:
            note = ": charged with its saved card" if plan.token else ": sent an invoice"
    return Seen(subscriber_id, f"{name_of('subscriber', subscriber_id)} {effect}{note}")


def token_expiry(tx: Tx, job: Job) -> Seen:
    """Names the OAuth client, never the token: its value is a credential."""
    value = text_of(job.payload, "token")
    found = merchants.token(tx, value) if value else None
    if found is None:
        return Seen(None, "an access token expires" + unless("token", value, None, False))
    return Seen(found[1], f"an access token of client {found[1]} expires")


# -- the bank: mandates, collections, payments ---------------------------------------------------


# -- company statements --------------------------------------------------------------------------


# -- deliveries ----------------------------------------------------------------------------------

_RECEIVERS = {"webhook": "webhook", "success_callback": "success callback", "callback": "callback"}


def delivery_send(tx: Tx, job: Job) -> Seen:
    """Names the object whose event is delivered (from the message), not the message."""
    message_id = int_of(job.payload, "message")
    attempt = int_of(job.payload, "attempt")
    nth = f"attempt {attempt} of {MAX_ATTEMPTS}" if attempt is not None else "an attempt"
    message = deliveries.message(tx, message_id) if message_id is not None else None
    if message is None:
        gone = idle("the message is gone") if message_id is not None else ""
        return Seen(None, f"{nth} of a delivery{gone}")
    receiver = _RECEIVERS.get(message.kind, message.kind)
    line = f"{nth} of the {message.event_type} {receiver} to {message.url}"
    if message.state != "queued":
        line += idle(f"the message is {message.state}")
    elif attempt is not None and attempt != message.attempts + 1:
        line += idle(f"{message.attempts} attempts were made already")
    # the bank's objects go through the outbox as bank_collection etc.: named as the API does
    return Seen(message.object_id, line, message.object_type.removeprefix("bank_"))


# -- housekeeping --------------------------------------------------------------------------------


def retention_prune(tx: Tx, job: Job) -> Seen:
    """The retention job (emulator/core/retention/jobs.py); its window is in the payload."""
    window = int_of(job.payload, "window_s")
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
        "collection.outcome", "collection", money_step("collection", collections_repo.collection)
    ),
    "bank.payment_step": Kind(
        "payment.outcome", "payment", money_step("payment", payments_repo.payment)
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
