"""Subscribers (BillingTemplateClient): add_subscriber as the spec's table says, list, read,
pause and resume, delete."""

from __future__ import annotations

from typing import TYPE_CHECKING

import msgspec

from emulator.domain.errors import SubscriberNotFound
from emulator.gateway.billing import jobs as engine
from emulator.gateway.billing import repo, rules_subscribers
from emulator.gateway.billing import rules as domain
from emulator.gateway.billing import rules_schedule as schedule
from emulator.gateway.billing.model import SETTABLE, Schedule, Subscriber, SubscriberInput
from emulator.gateway.billing.service import load
from emulator.gateway.clients.service import Page
from emulator.gateway.purchases import rules as purchases_domain
from emulator.gateway.purchases import service as purchases
from emulator.gateway.purchases.model import Internal, Purchase
from emulator.gateway.purchases.service_effects import now_s
from emulator.kernel.storage import Tx

if TYPE_CHECKING:
    from emulator.kernel.context import Context


async def add(
    rt: Context, merchant_id: str, template_id: str, data: SubscriberInput, base_url: str
) -> tuple[Subscriber, Purchase | None]:
    """Spec (BillingTemplateClient): active at once with no purchase when charged at the
    period end or after a trial; otherwise pending with a first purchase to pay."""
    subscriber_id = rt.ids.uuid()

    def unit(tx: Tx) -> tuple[Subscriber, Purchase | None]:
        t = load(tx, merchant_id, template_id)
        domain.check_subscribable(t)
        client_id = rules_subscribers.check_entry(
            data
        )  # after the template's own errors (spec's order)
        purchases.client_of(tx, merchant_id, client_id)  # client_not_found
        now = now_s(rt)
        active = domain.starts_active(t)
        s = rules_subscribers.subscriber(
            data,
            client_id,
            subscriber_id=subscriber_id,
            template_id=template_id,
            company_id=merchant_id,
            status="active" if active else "pending",
            now=now,
        )
        plan = Schedule(base_url=base_url)
        repo.insert_subscriber(tx, merchant_id, s, plan)  # subscriber_already_exists
        if active:
            s, plan = engine.start(rt, tx, merchant_id, t, s, plan, paid_first=False)
            repo.update_subscriber(tx, merchant_id, s, plan)
            return s, None
        due = schedule.after(
            now, t.subscription_due_period, t.subscription_due_period_units, t.purchase.timezone
        )
        p, created = engine.new_purchase(
            rt,
            tx,
            merchant_id,
            t,
            client_id,
            subscription=True,
            due=due,
            reference=s.invoice_reference,
            whitelist=s.payment_method_whitelist,
            send_receipt=s.send_receipt,
            base_url=base_url,
        )
        repo.link_purchase(tx, p.id, s.id, 0)
        if s.send_invoice_on_add_subscriber:
            p = purchases_domain.send(p, now)
        engine.store(rt, tx, merchant_id, p, Internal(), [created])
        return s, p

    return await rt.db.write(unit)


def _load(
    tx: Tx, merchant_id: str, subscriber_id: str, template_id: str | None
) -> tuple[Subscriber, Schedule]:
    """A subscriber of the merchant (of ``template_id`` when the path names one)."""
    if template_id is not None:
        load(tx, merchant_id, template_id)  # billing_template_not_found first
    found = repo.get_subscriber(tx, merchant_id, subscriber_id)
    if found is None or (template_id is not None and found[0].billing_template_id != template_id):
        raise SubscriberNotFound()
    return found


async def page(rt: Context, merchant_id: str, template_id: str, number: int, size: int) -> Page:
    def unit(tx: Tx) -> list[bytes]:
        load(tx, merchant_id, template_id)
        return repo.page_subscribers(tx, template_id, size + 1, (number - 1) * size)

    rows = await rt.db.read(unit)
    return Page(items=rows[:size], has_next=len(rows) > size)


async def get(
    rt: Context, merchant_id: str, subscriber_id: str, template_id: str | None
) -> Subscriber:
    return (await rt.db.read(lambda tx: _load(tx, merchant_id, subscriber_id, template_id)))[0]


async def patch(
    rt: Context,
    merchant_id: str,
    subscriber_id: str,
    template_id: str | None,
    data: SubscriberInput,
) -> Subscriber:
    """Options, and pausing or resuming (spec: only active ↔ subscription_paused). The bill
    chain keeps running while paused (bills are skipped), so resuming needs no new job."""

    def unit(tx: Tx) -> Subscriber:
        s, plan = _load(tx, merchant_id, subscriber_id, template_id)
        t = load(tx, merchant_id, s.billing_template_id)
        changed = rules_subscribers.patch(s, data, t.subscription_active, now_s(rt))
        if data.status in SETTABLE:  # set by hand: the template's resume leaves it alone
            plan = msgspec.structs.replace(plan, paused_by_template=False)
        changed = engine.shown(changed, plan)
        repo.update_subscriber(tx, merchant_id, changed, plan)
        return changed

    return await rt.db.write(unit)


async def delete(
    rt: Context, merchant_id: str, subscriber_id: str, template_id: str | None
) -> None:
    """Gone; a live subscriber's billing is cancelled first (the event)."""

    def unit(tx: Tx) -> None:
        s, plan = _load(tx, merchant_id, subscriber_id, template_id)
        if rules_subscribers.is_live(s):
            engine.cancel(rt, tx, merchant_id, s, plan)
        repo.delete_subscriber(tx, merchant_id, subscriber_id)

    await rt.db.write(unit)
