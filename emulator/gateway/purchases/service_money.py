"""A purchase's money after it is paid or held: capture, charge with a recurring token, refund."""

from __future__ import annotations

from typing import TYPE_CHECKING

import msgspec

from emulator.core.ledger import repo as ledger
from emulator.domain import cards, errors
from emulator.domain.events import Event
from emulator.gateway.account.rules import allowed
from emulator.gateway.purchases import repo, rules_actions
from emulator.gateway.purchases import rules as domain
from emulator.gateway.purchases import rules_ledger as purchase_ledger
from emulator.gateway.purchases.jobs import CAPTURE_JOB, CHARGE_JOB, SLOW_SECONDS
from emulator.gateway.purchases.model import (
    SUBSCRIPTIONS,
    Internal,
    Payment,
    PaymentDetails,
    PaymentTransactionData,
    Purchase,
)
from emulator.gateway.purchases.service import Changed, _act
from emulator.gateway.purchases.service_effects import book, subject
from emulator.kernel.storage import Tx
from emulator.scenarios import points

if TYPE_CHECKING:
    from emulator.kernel.context import Context


async def capture(rt: Context, merchant_id: str, purchase_id: str, amount: int | None) -> Purchase:
    failure: list[str] = []

    def action(tx: Tx, p: Purchase, i: Internal, now: int) -> Changed:
        taken = rules_actions.capture_amount(p, amount)
        decision = rt.scenarios.decide(
            tx, points.PURCHASE_CAPTURE, merchant_id, subject(p, capture_amount=taken)
        )
        card = i.card
        slow = card is not None and cards.TEST_CARDS.get(card.number, cards.Outcome("approve")).slow
        delay = SLOW_SECONDS
        if decision is not None:
            if decision.result == "error":
                failure.append(decision.message or "Capture failed at the acquirer.")
                return rules_actions.capture_failed(p, failure[0], card, now), i, []
            slow = decision.result == "pending_capture"
            delay = decision.delay_seconds if decision.delay_seconds is not None else delay
        p, events = rules_actions.capture(p, taken, slow, card, now)
        if slow:
            i = msgspec.structs.replace(i, capturing=taken)
            rt.scheduler.schedule(
                tx,
                CAPTURE_JOB,
                (now + delay) * 1_000_000,
                {"purchase_id": p.id},
                merchant_id=merchant_id,
            )
        else:
            book(tx, merchant_id, p, i, rt.clock.now_us())
        return p, i, events

    p = await _act(rt, merchant_id, purchase_id, action)
    if failure:
        raise errors.PurchaseCaptureError(failure[0])
    return p


def charge_with_token(
    rt: Context,
    tx: Tx,
    merchant_id: str,
    p: Purchase,
    i: Internal,
    token: str,
    now: int,
    read: tuple[repo.Token | None] | None = None,
) -> tuple[Purchase, Internal, list[Event], str | None]:
    """Charge ``p`` with the recurring token ``token`` (the API's charge, and subscription
    billing's): paid, pending_charge (settled by a job) or declined, decided by the
    ``purchase.charge`` scenario point or the token's test card. The last item is the decline's
    message (None when it went through). Raises the spec's error for an unusable token.
    ``read``: the token's ``repo.get_token``, read already (billing's, with its subscriber)."""
    domain.check_payable(p, now)
    found = repo.get_token(tx, merchant_id, token) if read is None else read[0]
    token_p, token_i = found if found is not None else (None, None)
    card = rules_actions.check_token(token_p, p.client_id, now, token_i.card if token_i else None)
    if not allowed(card.brand, p.payment_method_whitelist):
        raise errors.PaymentMethodNotAvailable(
            f"'{card.brand}' is excluded by payment_method_whitelist.", "recurring_token"
        )
    decision = rt.scenarios.decide(
        tx,
        points.PURCHASE_CHARGE,
        merchant_id,
        subject(p, recurring_token=token, is_subscription=p.product == SUBSCRIPTIONS),
    )
    known = cards.TEST_CARDS.get(card.number, cards.Outcome("decline", cards.UNKNOWN_CARD))
    result, reason, delay = "paid", None, SLOW_SECONDS
    if known.result == "decline":
        result, reason = "declined", known.reason
    elif known.slow:
        result = "pending_charge"
    if decision is not None:
        result, reason = decision.result, decision.reason or "do_not_honour"
        delay = decision.delay_seconds if decision.delay_seconds is not None else delay
    if result == "declined":
        p, i, events = domain.declined(p, i, "card_declined", reason, "api", card, now)
        return p, i, events, p.transaction_data.attempts[0].error.message  # type: ignore[union-attr]
    p, i, events = rules_actions.charged(p, i, token, card, result == "pending_charge", now)
    if p.status == "pending_charge":
        rt.scheduler.schedule(
            tx,
            CHARGE_JOB,
            (now + delay) * 1_000_000,
            {"purchase_id": p.id},
            merchant_id=merchant_id,
        )
    book(tx, merchant_id, p, i, rt.clock.now_us())
    return p, i, events, None


async def charge(rt: Context, merchant_id: str, purchase_id: str, token: str) -> Purchase:
    failure: list[str] = []

    def action(tx: Tx, p: Purchase, i: Internal, now: int) -> Changed:
        p, i, events, declined = charge_with_token(rt, tx, merchant_id, p, i, token, now)
        if declined is not None:
            failure.append(declined)
        return p, i, events

    p = await _act(rt, merchant_id, purchase_id, action)
    if failure:  # the spec's 422 card_declined, as FIDELITY has official clients expect it
        raise errors.CardDeclined(failure[0])
    return p


async def refund(rt: Context, merchant_id: str, purchase_id: str, amount: int | None) -> Payment:
    payment_id = rt.ids.uuid()
    made: list[Payment] = []

    def action(tx: Tx, p: Purchase, i: Internal, now: int) -> Changed:
        taken = rules_actions.refund_amount(p, amount)
        p, events = rules_actions.refund(p, taken, payment_id, i.card, now)
        payment = _refund_payment(p, taken, payment_id, now)
        made.append(payment)
        events.append(
            Event(
                "payment.refunded",
                "payment",
                payment_id,
                msgspec.to_builtins(payment),
                client_id=p.client_id,
            )
        )
        if not p.marked_as_paid:  # money that never came in through us does not go out
            entry = purchase_ledger.entry(p, i, "refund", -taken, "payment", payment_id)
            ledger.record(tx, merchant_id, entry, rt.clock.now_us())
        return p, i, events

    await _act(rt, merchant_id, purchase_id, action)
    return made[0]


def _refund_payment(p: Purchase, amount: int, payment_id: str, now: int) -> Payment:
    reference = p.reference or p.reference_generated
    extra = {**p.transaction_data.extra, "amount": amount}
    return Payment(
        id=payment_id,
        created_on=now,
        updated_on=now,
        client={
            **msgspec.to_builtins(p.client),
            "client_id": p.client_id,
            "first_name": "",
            "last_name": "",
        },
        payment=PaymentDetails(
            amount=amount,
            currency=p.purchase.currency,
            payment_type="refund",
            is_outgoing=True,
            net_amount=amount,
            description=f"Refund: {reference}",
            paid_on=now,
            remote_paid_on=now,
        ),
        transaction_data=PaymentTransactionData(
            flow=p.transaction_data.flow,
            payment_method=p.transaction_data.payment_method,
            extra=extra,
            country=p.transaction_data.country,
        ),
        related_to={"id": p.id, "type": "purchase", "reference": reference},
        reference_generated=p.reference_generated,
        company_id=p.company_id,
        brand_id=p.brand_id,
    )
