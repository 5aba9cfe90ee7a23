"""Purchases: the status machine as one table, and every change a purchase goes through.

Pure: each function takes the purchase and ``now`` (Unix seconds) and returns a new purchase
plus the events to emit; it never reads a clock or a database.
"""

from __future__ import annotations

from datetime import UTC, datetime

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
    TokenView,
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
    _refundable(p)
    return p, kind


def _refundable(p: Purchase) -> None:
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


def _attempt(
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


def _record(p: Purchase, attempt: Attempt, card: SavedCard | None) -> None:
    p.transaction_data.attempts.insert(0, attempt)  # newest first
    p.transaction_data.flow = attempt.flow
    if card is not None and attempt.successful:
        p.transaction_data.payment_method = card.brand
        p.transaction_data.extra = dict(attempt.extra)


def _payment(p: Purchase, amount: int, now: int, payment_type: str = "purchase") -> PaymentDetails:
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
    _record(p, _attempt(kind, now, flow, card, AttemptError(code, message)), card)
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
        _record(p, _attempt("authorize", now, flow, card), card)
    else:
        p, kind = move(p, "pay", now)
        _record(p, _attempt("execute", now, flow, card), card)
        p.payment = _payment(p, p.purchase.total, now)
        _refundable(p)
    if remember or p.force_recurring or p.status == "preauthorized":
        p.is_recurring_token = True
    internal = msgspec.structs.replace(internal, card=card, challenge=None)
    return p, internal, [event(p, kind)]


def cancel(p: Purchase, now: int) -> tuple[Purchase, list[Event]]:
    p, kind = move(p, "cancel", now)
    return p, [event(p, kind)]


def release(p: Purchase, card: SavedCard | None, now: int) -> tuple[Purchase, list[Event]]:
    p, kind = move(p, "release", now)
    _record(p, _attempt("release", now, p.transaction_data.flow, card), card)
    return p, [event(p, kind)]


def capture_amount(p: Purchase, amount: int | None) -> int:
    """The amount a capture takes: all of it by default; ``invalid_amount`` when negative,
    zero, or above the total; ``capture_not_allowed`` when the purchase is not on hold."""
    if not p.skip_capture or p.status != "hold":
        raise errors.CaptureNotAllowed()
    if amount is None:
        return p.purchase.total
    if amount <= 0 or amount > p.purchase.total:
        raise errors.InvalidAmount(f"Amount must be between 1 and {p.purchase.total}.", "amount")
    return amount


def capture(
    p: Purchase, amount: int, slow: bool, card: SavedCard | None, now: int
) -> tuple[Purchase, list[Event]]:
    """Capture ``amount`` of a hold (the rest is released): paid, or pending_capture, which
    shows no payment yet (the provider's pending_capture event has ``payment: null``): the
    caller keeps the amount (``Internal.capturing``) for ``capture_done``."""
    p, kind = move(p, "capture_slow" if slow else "capture", now)
    if not slow:
        p.payment = _payment(p, amount, now)
        _record(p, _attempt("capture", now, p.transaction_data.flow, card), card)
    _refundable(p)
    return p, [event(p, kind)]


def capture_failed(p: Purchase, message: str, card: SavedCard | None, now: int) -> Purchase:
    """A capture the acquirer refused: status unchanged, the attempt records the error."""
    p = changeable(p)
    error = AttemptError("purchase_capture_error", message)
    _record(p, _attempt("capture", now, p.transaction_data.flow, card, error), card)
    p.updated_on = now
    return p


def capture_done(
    p: Purchase, amount: int, card: SavedCard | None, now: int
) -> tuple[Purchase, list[Event]]:
    p, kind = move(p, "capture_done", now)
    p.payment = _payment(p, amount, now)
    _record(p, _attempt("capture", now, p.transaction_data.flow, card), card)
    _refundable(p)
    return p, [event(p, kind)]


def check_token(
    token: TokenView | None, client_id: str | None, now: int, card: SavedCard | None
) -> SavedCard:
    """The card of a usable recurring token for this client, or the spec's error."""
    if token is None or not token.is_recurring_token or card is None:
        raise errors.RecurringTokenNotFound(field="recurring_token")
    if client_id is not None and token.client_id != client_id:
        raise errors.RecurringTokenNotFound(field="recurring_token")
    today = datetime.fromtimestamp(now, UTC)
    if (2000 + card.expiry_year, card.expiry_month) < (today.year, today.month):
        raise errors.RecurringTokenExpired(field="recurring_token")
    return card


def charged(
    p: Purchase, internal: Internal, token_id: str, card: SavedCard, slow: bool, now: int
) -> tuple[Purchase, Internal, list[Event]]:
    """A recurring charge that went through: paid, or pending_charge when slow."""
    p, kind = move(p, "charge_slow" if slow else "charge", now)
    p.recurring_token = token_id
    p.payment = _payment(p, p.purchase.total, now, "purchase_charge")
    if not slow:
        _record(p, _attempt("recurring_execute", now, "api", card), card)
    _refundable(p)
    internal = msgspec.structs.replace(internal, card=card, tokenized=True)
    return p, internal, [event(p, kind)]


def charge_done(p: Purchase, card: SavedCard | None, now: int) -> tuple[Purchase, list[Event]]:
    p, kind = move(p, "charge_done", now)
    assert p.payment is not None
    p.payment = _payment(p, p.payment.amount, now, "purchase_charge")
    _record(p, _attempt("recurring_execute", now, "api", card), card)
    _refundable(p)
    return p, [event(p, kind)]


def refund_amount(p: Purchase, amount: int | None) -> int:
    if p.status != "paid" or p.payment is None:
        raise conflict(p.status, "refund")
    left = p.payment.amount - p.refunded_amount
    if amount is None:
        amount = left
    if amount <= 0:
        raise errors.InvalidAmount("Amount must be positive.", "amount")
    if amount > left:
        # Provider quirk: keyed __all__, which an official plugin reads to see a refund refused.
        raise errors.RefundExceedsAmount(f"At most {left} can be refunded.")
    return amount


def refund(
    p: Purchase, amount: int, payment_id: str, card: SavedCard | None, now: int
) -> tuple[Purchase, list[Event]]:
    """paid → pending_refund → refunded (or back to paid when part remains)."""
    related = {"type": "payment", "id": payment_id}
    p, kind = move(p, "refund", now, related)
    pending = event(p, kind)
    p.refunded_amount += amount
    assert p.payment is not None
    full = p.refunded_amount >= p.payment.amount
    p, _ = move(p, "refund_full" if full else "refund_partial", now, related)
    attempt = _attempt("refund", now, p.transaction_data.flow, card)
    attempt.extra = {**attempt.extra, "amount": amount}
    _record(p, attempt, None)
    _refundable(p)
    return p, [pending]


def delete_token(p: Purchase, card: SavedCard | None, now: int) -> tuple[Purchase, list[Event]]:
    """The purchase stops being a recurring token (its status stays)."""
    if not p.is_recurring_token:
        raise errors.RecurringTokenNotFound("This purchase is not a recurring token.")
    pending = event(p, "purchase.pending_recurring_token_delete")
    p = changeable(p)
    p.is_recurring_token = False
    p.updated_on = now
    _record(p, _attempt("delete_recurring_token", now, p.transaction_data.flow, card), card)
    return p, [pending, event(p, "purchase.recurring_token_deleted")]


def mark_as_paid(p: Purchase, paid_on: int, now: int) -> tuple[Purchase, list[Event]]:
    p, kind = move(p, "mark_as_paid", now)
    p.marked_as_paid = True
    p.payment = _payment(p, p.purchase.total, paid_on)
    _refundable(p)
    return p, [event(p, kind)]


def due_passed(p: Purchase, now: int) -> tuple[Purchase, list[Event]]:
    """At ``due``: an unpaid purchase expires (due_strict) or becomes overdue."""
    if p.status not in UNPAID:
        return p, []
    p, kind = move(p, "expire" if p.purchase.due_strict else "overdue", now)
    return p, [event(p, kind)]
