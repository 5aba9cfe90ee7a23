"""Billing templates and invoices: create, read, change and delete templates; send one-off
invoices (``POST /billing/``) and invoices from a template (``send_invoice``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import msgspec

from emulator.core.merchants import repo as merchants_repo
from emulator.domain.errors import (
    BillingTemplateNotFound,
    ClientNotFound,
    ValidationFailed,
)
from emulator.gateway.billing import repo, rules_subscribers
from emulator.gateway.billing import rules as domain
from emulator.gateway.billing.jobs import cancel, new_purchase, shown, store
from emulator.gateway.billing.model import (
    BillingTemplate,
    InvoicesInput,
    SubscriberInput,
    TemplateInput,
)
from emulator.gateway.clients.service import Page
from emulator.gateway.purchases import rules as purchases_domain
from emulator.gateway.purchases.model import Internal, Purchase
from emulator.gateway.purchases.service_effects import now_s
from emulator.kernel.storage import Tx

if TYPE_CHECKING:
    from emulator.kernel.context import Context


def load(tx: Tx, merchant_id: str, template_id: str) -> BillingTemplate:
    t = repo.get_template(tx, merchant_id, template_id)
    if t is None:
        raise BillingTemplateNotFound()
    return t


def _made(
    rt: Context,
    tx: Tx,
    merchant_id: str,
    data: TemplateInput,
    current: BillingTemplate | None,
    *,
    partial: bool,
    template_id: str,
) -> BillingTemplate:
    """The template a body makes (domain rules) with the merchant's brands and the clock."""
    brand_ids = merchants_repo.brand_ids(tx, merchant_id)
    return domain.template(
        data,
        current,
        partial=partial,
        brand_ids=brand_ids,
        template_id=template_id,
        company_id=merchant_id,
        now=now_s(rt),
    )


async def create(rt: Context, merchant_id: str, data: TemplateInput) -> BillingTemplate:
    template_id = rt.ids.uuid()

    def unit(tx: Tx) -> BillingTemplate:
        t = _made(rt, tx, merchant_id, data, None, partial=False, template_id=template_id)
        repo.insert_template(tx, merchant_id, t)
        return t

    return await rt.db.write(unit)


async def get(rt: Context, merchant_id: str, template_id: str) -> BillingTemplate:
    return await rt.db.read(lambda tx: load(tx, merchant_id, template_id))


async def page(rt: Context, merchant_id: str, number: int, size: int) -> Page:
    found = await rt.db.read(
        lambda tx: repo.page_templates(tx, merchant_id, size + 1, (number - 1) * size)
    )
    items = [msgspec.json.encode(t) for t in found[:size]]
    return Page(items=items, has_next=len(found) > size)


def _pause_all(
    rt: Context, tx: Tx, merchant_id: str, t: BillingTemplate, active: bool, now: int
) -> None:
    """subscription_active false pauses every active subscriber (spec); true again resumes
    exactly those it paused."""
    was, becomes = (
        ("subscription_paused", "active") if active else ("active", "subscription_paused")
    )
    for s, plan in repo.subscribers_of(tx, t.id, (was,)):
        if active and not plan.paused_by_template:
            continue  # paused one by one: stays paused
        plan = msgspec.structs.replace(plan, paused_by_template=not active)
        s = shown(msgspec.structs.replace(s, status=becomes, updated_on=now), plan)
        repo.update_subscriber(tx, merchant_id, s, plan)


async def _change(
    rt: Context, merchant_id: str, template_id: str, data: TemplateInput, partial: bool
) -> BillingTemplate:
    def unit(tx: Tx) -> BillingTemplate:
        current = load(tx, merchant_id, template_id)
        now = now_s(rt)
        t = _made(rt, tx, merchant_id, data, current, partial=partial, template_id=template_id)
        repo.update_template(tx, merchant_id, t)
        if t.subscription_active != current.subscription_active:
            _pause_all(rt, tx, merchant_id, t, t.subscription_active, now)
        return load(tx, merchant_id, template_id)

    return await rt.db.write(unit)


async def replace(
    rt: Context, merchant_id: str, template_id: str, data: TemplateInput
) -> BillingTemplate:
    return await _change(rt, merchant_id, template_id, data, partial=False)


async def patch(
    rt: Context, merchant_id: str, template_id: str, data: TemplateInput
) -> BillingTemplate:
    return await _change(rt, merchant_id, template_id, data, partial=True)


async def delete(rt: Context, merchant_id: str, template_id: str) -> None:
    """The template and its subscribers; each live one's billing is cancelled first."""

    def unit(tx: Tx) -> None:
        load(tx, merchant_id, template_id)
        for s, plan in repo.subscribers_of(tx, template_id):
            cancel(rt, tx, merchant_id, s, plan)
        repo.delete_template(tx, merchant_id, template_id)

    await rt.db.write(unit)


# -- invoices --------------------------------------------------------------------------------


def _invoice(
    rt: Context,
    tx: Tx,
    merchant_id: str,
    t: BillingTemplate,
    client_id: str,
    entry: SubscriberInput,
    base_url: str,
) -> Purchase:
    """One sent invoice for ``client_id`` from a (non-subscription) template's data."""
    assert t.invoice_due is not None
    p, created = new_purchase(
        rt,
        tx,
        merchant_id,
        t,
        client_id,
        subscription=False,
        due=t.invoice_due,
        reference=entry.invoice_reference if isinstance(entry.invoice_reference, str) else None,
        whitelist=entry.payment_method_whitelist
        if isinstance(entry.payment_method_whitelist, list)
        else None,
        send_receipt=t.invoice_send_receipt,
        base_url=base_url,
    )
    p = purchases_domain.send(p, now_s(rt))
    store(rt, tx, merchant_id, p, Internal(), [created])
    return p


async def send_invoice(
    rt: Context, merchant_id: str, template_id: str, entry: SubscriberInput, base_url: str
) -> Purchase:
    def unit(tx: Tx) -> Purchase:
        t = load(tx, merchant_id, template_id)
        domain.check_invoiceable(t)
        client_id = rules_subscribers.check_entry(entry)
        return _invoice(rt, tx, merchant_id, t, client_id, entry, base_url)

    return await rt.db.write(unit)


async def send_invoices(
    rt: Context, merchant_id: str, data: InvoicesInput, base_url: str
) -> list[str]:
    """``POST /billing/``: one sent invoice per client entry, all or none."""
    client_ids, errors = rules_subscribers.invoice_entries(data)
    template_data = msgspec.structs.replace(data, is_subscription=False)

    def unit(tx: Tx) -> list[str]:
        try:
            t = _made(rt, tx, merchant_id, template_data, None, partial=False, template_id="")
        except ValidationFailed as exc:
            raise ValidationFailed([*exc.errors, *errors]) from exc
        if errors:
            raise ValidationFailed(errors)
        assert isinstance(data.clients, list)
        made = []
        for i, (client_id, entry) in enumerate(zip(client_ids, data.clients, strict=True)):
            try:
                made.append(_invoice(rt, tx, merchant_id, t, client_id, entry, base_url).id)
            except ClientNotFound as exc:
                raise ClientNotFound(field=f"clients.{i}.client_id") from exc
        return made

    return await rt.db.write(unit)
