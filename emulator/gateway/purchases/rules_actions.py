"""The merchant's actions on a paid or held purchase: capture (at once, or slow at the
acquirer), charge with its recurring token, refund, delete the token.

Pure, as ``rules.py``: each takes the purchase and ``now`` and returns a new purchase plus the
events to emit.
"""

from __future__ import annotations

from datetime import UTC, datetime

import msgspec

from emulator.domain import errors
from emulator.domain.events import Event
from emulator.gateway.purchases.model import (
    AttemptError,
    Internal,
    Purchase,
    SavedCard,
    TokenView,
    changeable,
)
from emulator.gateway.purchases.rules import (
    check_refundable,
    conflict,
    event,
    move,
    new_attempt,
    payment_details,
    record_attempt,
)


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
        p.payment = payment_details(p, amount, now)
        record_attempt(p, new_attempt("capture", now, p.transaction_data.flow, card), card)
    check_refundable(p)
    return p, [event(p, kind)]


def capture_failed(p: Purchase, message: str, card: SavedCard | None, now: int) -> Purchase:
    """A capture the acquirer refused: status unchanged, the attempt records the error."""
    p = changeable(p)
    error = AttemptError("purchase_capture_error", message)
    record_attempt(p, new_attempt("capture", now, p.transaction_data.flow, card, error), card)
    p.updated_on = now
    return p


def capture_done(
    p: Purchase, amount: int, card: SavedCard | None, now: int
) -> tuple[Purchase, list[Event]]:
    p, kind = move(p, "capture_done", now)
    p.payment = payment_details(p, amount, now)
    record_attempt(p, new_attempt("capture", now, p.transaction_data.flow, card), card)
    check_refundable(p)
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
    p.payment = payment_details(p, p.purchase.total, now, "purchase_charge")
    if not slow:
        record_attempt(p, new_attempt("recurring_execute", now, "api", card), card)
    check_refundable(p)
    internal = msgspec.structs.replace(internal, card=card, tokenized=True)
    return p, internal, [event(p, kind)]


def charge_done(p: Purchase, card: SavedCard | None, now: int) -> tuple[Purchase, list[Event]]:
    p, kind = move(p, "charge_done", now)
    assert p.payment is not None
    p.payment = payment_details(p, p.payment.amount, now, "purchase_charge")
    record_attempt(p, new_attempt("recurring_execute", now, "api", card), card)
    check_refundable(p)
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
    attempt = new_attempt("refund", now, p.transaction_data.flow, card)
    attempt.extra = {**attempt.extra, "amount": amount}
    record_attempt(p, attempt, None)
    check_refundable(p)
    return p, [pending]


def delete_token(p: Purchase, card: SavedCard | None, now: int) -> tuple[Purchase, list[Event]]:
    """The purchase stops being a recurring token (its status stays)."""
    if not p.is_recurring_token:
        raise errors.RecurringTokenNotFound("This purchase is not a recurring token.")
    pending = event(p, "purchase.pending_recurring_token_delete")
    p = changeable(p)
    p.is_recurring_token = False
    p.updated_on = now
    record_attempt(
        p, new_attempt("delete_recurring_token", now, p.transaction_data.flow, card), card
    )
    return p, [pending, event(p, "purchase.recurring_token_deleted")]
