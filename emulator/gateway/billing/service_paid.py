"""What a bill's purchase does to its subscriber: paid (the next period, a card saved to charge
from then), unpaid for good (the subscription ends); a deleted client's subscriptions end."""

from __future__ import annotations

from typing import TYPE_CHECKING

import msgspec

from emulator.domain.events import Event
from emulator.gateway.billing import repo, rules_subscribers
from emulator.gateway.billing.jobs import cancel, save_subscriber, start, template_of
from emulator.gateway.billing.jobs_held import Billed, held_bill, purchase_of
from emulator.gateway.billing.model import BillingTemplate, Schedule, Subscriber
from emulator.gateway.purchases.model import (
    SUBSCRIPTIONS,
)
from emulator.gateway.purchases.service_effects import now_s
from emulator.kernel.storage import Tx

if TYPE_CHECKING:
    from emulator.kernel.context import Context


def _billed_by(
    tx: Tx, merchant_id: str, purchase: Billed
) -> tuple[Subscriber, Schedule, BillingTemplate | None] | None:
    """The subscriber a purchase (an event's payload) bills, if it bills one (and its
    template, when the bill job storing it already has it)."""
    if purchase.product != SUBSCRIPTIONS:
        return None
    held = held_bill.get()
    if held is not None and held.purchase.id == purchase.id:
        return held.s, held.plan, held.t
    subscriber_id = repo.subscriber_of_purchase(tx, purchase.id)
    found = repo.get_subscriber(tx, merchant_id, subscriber_id) if subscriber_id else None
    return (*found, None) if found is not None else None


def on_paid(rt: Context, tx: Tx, merchant_id: str, purchase: Billed) -> None:
    """A purchase became paid: when it bills a subscriber, count the cycle (starting a pending
    subscriber, ending a subscription that has run all its cycles)."""
    found = _billed_by(tx, merchant_id, purchase)
    if found is None or not rules_subscribers.is_live(found[0]):
        return
    s, plan, t = found
    t = t or template_of(tx, merchant_id, s.billing_template_id)
    assert t is not None
    now = now_s(rt)
    if purchase.is_recurring_token:  # a card saved paying it: charged from now on
        plan = msgspec.structs.replace(plan, token=purchase.id)
    elif purchase.recurring_token is not None:  # charged with a token by the API
        plan = msgspec.structs.replace(plan, token=purchase.recurring_token)
    s = msgspec.structs.replace(
        s, number_of_billing_cycles_passed=s.number_of_billing_cycles_passed + 1, updated_on=now
    )
    if 0 < t.number_of_billing_cycles <= s.number_of_billing_cycles_passed:
        s, plan = cancel(rt, tx, merchant_id, s, plan)
    elif s.status == "pending":
        paused = not t.subscription_active
        s = msgspec.structs.replace(s, status="subscription_paused" if paused else "active")
        plan = msgspec.structs.replace(plan, paused_by_template=paused)
        s, plan = start(rt, tx, merchant_id, t, s, plan, paid_first=True)
    save_subscriber(tx, merchant_id, s, plan)


def on_unpaid_for_good(rt: Context, tx: Tx, merchant_id: str, purchase: Billed) -> None:
    """A purchase was cancelled or expired: when it was a pending subscriber's first purchase,
    the subscription can never start, so it ends (and the client may be added again)."""
    found = _billed_by(tx, merchant_id, purchase)
    if found is not None and found[0].status == "pending":
        s, plan = cancel(rt, tx, merchant_id, found[0], found[1])
        save_subscriber(tx, merchant_id, s, plan)


def on_purchase_event(rt: Context, tx: Tx, merchant_id: str, event: Event) -> None:
    if event.type == "purchase.paid":
        on_paid(rt, tx, merchant_id, purchase_of(event))
    elif event.type in ("purchase.cancelled", "purchase.expired"):
        on_unpaid_for_good(rt, tx, merchant_id, purchase_of(event))


def on_client_deleted(rt: Context, tx: Tx, merchant_id: str, client_id: str) -> None:
    """Nobody is left to bill: the client's live subscriptions end now."""
    for s, plan in repo.live_subscribers_of_client(tx, merchant_id, client_id):
        s, plan = cancel(rt, tx, merchant_id, s, plan)
        repo.update_subscriber(tx, merchant_id, s, plan)
