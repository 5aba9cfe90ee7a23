"""Purchases: the status machine as one table, and every change a purchase goes through.

Pure: each function takes the purchase and ``now`` (Unix seconds) and returns a new purchase
plus the events to emit; it never reads a clock or a database.
"""

from __future__ import annotations

import msgspec

from emulator.domain import errors
from emulator.domain.cards import decline_error
from emulator.domain.events import Event
from emulator.gateway.purchases.model import (
    Attempt,
    AttemptError,
    Internal,
    PaymentDetails,
    Purchase,
    SavedCard,
    StatusChange,
    changeable,
)

# Statuses (OpenAPI PurchaseStatus), those the emulator reaches:
#   created          made by POST /purchases/, not paid yet
#   sent             an invoice sent to the client (billing), not paid yet
#   viewed           the payer opened the checkout page
#   error            the last payment attempt failed (the payer may try again)
#   overdue          due passed without due_strict: still payable
#   expired          due passed with due_strict: no longer payable
#   cancelled        cancelled by the merchant
#   hold             authorised with skip_capture: funds held until capture or release
#   pending_capture  a capture is under way at a slow acquirer
#   preauthorized    a zero-amount authorisation that saved the card (recurring token)
#   released         the hold was released
#   pending_charge   a recurring charge is under way
#   paid             money taken (also after a partial refund)
#   refunded         fully refunded
PAYABLE = ("created", "sent", "viewed", "error", "overdue")
UNPAID = ("created", "sent", "viewed", "error")

# (status, trigger) -> (next status, event type)
TRANSITIONS: dict[tuple[str, str], tuple[str, str]] = {
    ("created", "view"): ("viewed", "purchase.viewed"),
    ("sent", "view"): ("viewed", "purchase.viewed"),
    # Billing sends an invoice when it is made, or after a subscription charge failed.
    ("created", "send"): ("sent", ""),
    ("error", "send"): ("sent", ""),
    **{(s, "expire"): ("expired", "purchase.expired") for s in UNPAID},
    **{(s, "overdue"): ("overdue", "purchase.overdue") for s in UNPAID},
    **{(s, "pay"): ("paid", "purchase.paid") for s in PAYABLE},
    **{(s, "authorize"): ("hold", "purchase.hold") for s in PAYABLE},
    **{(s, "preauthorize"): ("preauthorized", "purchase.preauthorized") for s in PAYABLE},
    **{(s, "fail"): ("error", "purchase.payment_failure") for s in PAYABLE},
    **{(s, "cancel"): ("cancelled", "purchase.cancelled") for s in PAYABLE},
    **{(s, "charge"): ("paid", "purchase.paid") for s in PAYABLE},
    **{(s, "charge_slow"): ("pending_charge", "purchase.pending_charge") for s in PAYABLE},
    **{(s, "mark_as_paid"): ("paid", "purchase.paid") for s in (*PAYABLE, "expired")},
    ("pending_charge", "charge_done"): ("paid", "purchase.paid"),
    ("hold", "release"): ("released", "purchase.released"),
    ("hold", "capture"): ("paid", "purchase.captured"),
    ("hold", "capture_slow"): ("pending_capture", "purchase.pending_capture"),
    ("pending_capture", "capture_done"): ("paid", "purchase.captured"),
    ("paid", "refund"): ("pending_refund", "purchase.pending_refund"),
    ("pending_refund", "refund_partial"): ("paid", ""),
    ("pending_refund", "refund_full"): ("refunded", ""),
}

_PAID_LIKE = (
    "paid",
    "hold",
    "pending_capture",
    "preauthorized",
    "pending_charge",
    "released",
    "refunded",
    "pending_refund",
)


def conflict(status: str, trigger: str) -> errors.ApiError:
    """The spec's error for ``trigger`` in ``status`` when the table has no row."""
    if trigger in ("capture", "capture_slow"):
        return errors.CaptureNotAllowed()
    if trigger == "release":
        return errors.CaptureNotAllowed("Only a purchase on hold can be released.")
    if status == "cancelled":
        return errors.PurchaseCancelled()
    if status == "expired":
        return errors.PurchaseExpired()
    if status in _PAID_LIKE and trigger not in ("refund", "view"):
        return errors.PurchaseAlreadyPaid()
    return errors.PurchaseInvalidStatus()


def event(p: Purchase, kind: str) -> Event:
    return Event.encoded(kind, "purchase", p.id, p, client_id=p.client_id)


def move(
    p: Purchase, trigger: str, now: int, related: dict[str, str] | None = None
) -> tuple[Purchase, str]:
    """Apply ``trigger`` by the table: the new purchase (status, history), its event's type."""
    row = TRANSITIONS.get((p.status, trigger))
    if row is None:
        raise conflict(p.status, trigger)
    status, kind = row
    p = changeable(p)
    p.status = status
    p.updated_on = now
    p.status_history.append(StatusChange(status=status, timestamp=now, related_object=related))
    check_refundable(p)
    return p, kind


def check_refundable(p: Purchase) -> None:
    left = p.payment.amount - p.refunded_amount if p.payment and p.status == "paid" else 0
    p.refundable_amount = left
    p.refund_availability = "all" if left > 0 else "none"


def check_payable(p: Purchase, now: int) -> None:
    """Paying is possible: raises the spec's 409 otherwise (due_strict expiry included)."""
    if p.status in PAYABLE:
        if p.purchase.due_strict and now > p.due:
            raise errors.PurchaseExpired()
        return
    raise conflict(p.status, "pay")


def new_attempt(
    kind: str, now: int, flow: str, card: SavedCard | None, error: AttemptError | None = None
) -> Attempt:
    extra = {}
    if card is not None:
        extra = {
            "card_type": "credit",
            "card_brand": card.brand,
            "masked_pan": card.masked,
            "card_issuer": "",
            "expiry_year": card.expiry_year,
            "expiry_month": card.expiry_month,
            "cardholder_name": card.cardholder_name,
            "card_issuer_country": "",
        }
    return Attempt(
        type=kind,
        successful=error is None,
        error=error,
        flow=flow,
        payment_method=card.brand if card else "",
        extra=extra,
        processing_time=now,
    )


def record_attempt(p: Purchase, attempt: Attempt, card: SavedCard | None) -> None:
    p.transaction_data.attempts.insert(0, attempt)  # newest first
    p.transaction_data.flow = attempt.flow
    if card is not None and attempt.successful:
        p.transaction_data.payment_method = card.brand
        p.transaction_data.extra = dict(attempt.extra)


def payment_details(
    p: Purchase, amount: int, now: int, payment_type: str = "purchase"
) -> PaymentDetails:
    return PaymentDetails(
        amount=amount,
        currency=p.purchase.currency,
        payment_type=payment_type,
        net_amount=amount,
        paid_on=now,
        remote_paid_on=now,
    )


def view(p: Purchase, now: int) -> tuple[Purchase, list[Event]]:
    """The payer opened the checkout page: the first view moves created (or sent) to viewed."""
    if p.status not in ("created", "sent"):
        return p, []
    p, kind = move(p, "view", now)
    p.viewed_on = now
    p.updated_on = now
    return p, [event(p, kind)]


def declined(
    p: Purchase,
    internal: Internal,
    code: str,
    reason: str | None,
    flow: str,
    card: SavedCard | None,
    now: int,
) -> tuple[Purchase, Internal, list[Event]]:
    """A failed attempt: a decline (card_declined, see ``decline_error``) or 3-D Secure's."""
    message = "3-D Secure authentication failed."
    if code == "card_declined":
        code, message = decline_error(reason or "do_not_honour")
    return failed(p, internal, code, message, flow, card, now)


def failed(
    p: Purchase,
    internal: Internal,
    code: str,
    message: str,
    flow: str,
    card: SavedCard | None,
    now: int,
) -> tuple[Purchase, Internal, list[Event]]:
    """A payment attempt that failed with ``code``: status error, the attempt recorded."""
    kind = "recurring_execute" if flow == "api" else "execute"
    p, kind = move(p, "fail", now)
    record_attempt(p, new_attempt(kind, now, flow, card, AttemptError(code, message)), card)
    internal = msgspec.structs.replace(internal, challenge=None)
    return p, internal, [event(p, kind)]


def send(p: Purchase, now: int) -> Purchase:
    """The invoice was sent to the client (no event: the provider has none for it)."""
    return move(p, "send", now)[0]


def approved(
    p: Purchase, internal: Internal, card: SavedCard, flow: str, remember: bool, now: int
) -> tuple[Purchase, Internal, list[Event]]:
    """A card payment that went through: paid, or hold / preauthorized with skip_capture."""
    if p.skip_capture:
        trigger = "preauthorize" if p.purchase.total == 0 else "authorize"
        p, kind = move(p, trigger, now)
        record_attempt(p, new_attempt("authorize", now, flow, card), card)
    else:
        p, kind = move(p, "pay", now)
        record_attempt(p, new_attempt("execute", now, flow, card), card)
        p.payment = payment_details(p, p.purchase.total, now)
        check_refundable(p)
    if remember or p.force_recurring or p.status == "preauthorized":
        p.is_recurring_token = True
    internal = msgspec.structs.replace(internal, card=card, challenge=None)
    return p, internal, [event(p, kind)]


def cancel(p: Purchase, now: int) -> tuple[Purchase, list[Event]]:
    p, kind = move(p, "cancel", now)
    return p, [event(p, kind)]


def release(p: Purchase, card: SavedCard | None, now: int) -> tuple[Purchase, list[Event]]:
    p, kind = move(p, "release", now)
    record_attempt(p, new_attempt("release", now, p.transaction_data.flow, card), card)
    return p, [event(p, kind)]


def mark_as_paid(p: Purchase, paid_on: int, now: int) -> tuple[Purchase, list[Event]]:
    p, kind = move(p, "mark_as_paid", now)
    p.marked_as_paid = True
    p.payment = payment_details(p, p.purchase.total, paid_on)
    check_refundable(p)
    return p, [event(p, kind)]


def due_passed(p: Purchase, now: int) -> tuple[Purchase, list[Event]]:
    """At ``due``: an unpaid purchase expires (due_strict) or becomes overdue."""
    if p.status not in UNPAID:
        return p, []
    p, kind = move(p, "expire" if p.purchase.due_strict else "overdue", now)
    return p, [event(p, kind)]
