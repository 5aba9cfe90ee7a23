"""The billing engine: a subscriber's bills as a chain of durable jobs on the emulator clock.

Each live subscriber has exactly one ``billing.bill`` job, due at 00:00 (template time zone)
of its next billing day. When it runs it bills the period (unless the subscriber is paused),
then schedules the next period's job: a year of monthly billing is twelve jobs, whatever the
span. The purchase events of a subscription's purchases come back through the runtime's
purchase event hooks (``service_paid``): a paid one counts a cycle (``on_paid``), which
also starts a pending subscriber and ends a subscription that has run its
``number_of_billing_cycles``; a first purchase cancelled or expired ends a pending subscriber.
"""

from __future__ import annotations

from datetime import date
from typing import TYPE_CHECKING

import msgspec

from emulator.domain.errors import ApiError
from emulator.domain.events import Event
from emulator.gateway.billing import repo, rules_subscribers
from emulator.gateway.billing import rules as domain
from emulator.gateway.billing import rules_schedule as schedule
from emulator.gateway.billing.jobs_held import Billed, Held, held_bill
from emulator.gateway.billing.model import BillingTemplate, Schedule, Subscriber
from emulator.gateway.billing.repo import ToBill
from emulator.gateway.purchases import repo as purchases_repo
from emulator.gateway.purchases import rules as purchases_domain
from emulator.gateway.purchases import service as purchases
from emulator.gateway.purchases import service_money as purchases_service_money
from emulator.gateway.purchases.input import DetailsInput, PurchaseInput, build
from emulator.gateway.purchases.model import (
    INVOICES,
    SUBSCRIPTIONS,
    Internal,
    Purchase,
    PurchaseClient,
)
from emulator.gateway.purchases.service_effects import emit, now_s
from emulator.kernel import memo
from emulator.kernel.clock import in_clock_range
from emulator.kernel.jobs import Job
from emulator.kernel.storage import Tx

if TYPE_CHECKING:
    from emulator.kernel.context import Context, JobHandler

_decode_client = msgspec.json.Decoder(PurchaseClient)  # a stored client, as a purchase has it

BILL_JOB = "billing.bill"
CHARGE_FAILURE = "purchase.subscription_charge_failure"


def new_purchase(
    rt: Context,
    tx: Tx,
    merchant_id: str,
    t: BillingTemplate,
    client_id: str,
    *,
    subscription: bool,
    due: int,
    reference: str | None,
    whitelist: list[str] | None,
    send_receipt: bool,
    base_url: str,
    client: PurchaseClient | None = None,
    number: int | None = None,
) -> tuple[Purchase, Event]:
    """A purchase from the template's data for one client (``reference``, ``whitelist`` and
    ``send_receipt`` from the subscriber or the invoice's entry), and its purchase.created;
    not stored yet (``store``): billing finishes it first, so it is written once. The client
    as the purchase carries it and the purchase's number are read here unless given."""
    now = now_s(rt)
    if client is None:
        client = purchases.client_of(tx, merchant_id, client_id)
    day = t.invoice_issued if not subscription else None
    data = PurchaseInput(
        purchase=DetailsInput(products=[]),  # the template's details are given whole below
        brand_id=t.brand_id,
        client_id=client_id,
        send_receipt=send_receipt,
        skip_capture=t.invoice_skip_capture,
        # Provider quirk: a subscription's purchases always save the card to charge later.
        force_recurring=True if subscription else t.force_recurring,
        reference=reference or "",
        due=due,
        payment_method_whitelist=whitelist,
    )
    p = build(
        data,
        msgspec.structs.replace(t.purchase),
        client,
        client_id,
        purchase_id=rt.ids.uuid(),
        company_id=merchant_id,
        reference_generated=f"EM{purchases_repo.next_number(tx) if number is None else number}",
        base_url=base_url,
        now=now,
        issued=day or schedule.local_day(now, t.purchase.timezone).isoformat(),
    )
    p.product = SUBSCRIPTIONS if subscription else INVOICES
    p.billing_template_id = t.id if t.id else None
    # the same for every bill of an instant (a memo scope: kernel.steps); never mutated
    p.issuer_details = memo.memoized(
        ("billing.issuer", merchant_id), lambda: purchases.issuer_of(tx, merchant_id)
    )
    return p, purchases_domain.event(p, "purchase.created")


def store(
    rt: Context,
    tx: Tx,
    merchant_id: str,
    p: Purchase,
    internal: Internal,
    events: list[Event],
    shown: bytes | None = None,
) -> None:
    """Write a purchase billing made, emit its events; unpaid, its due date is a job.
    ``shown``: its JSON as an event encoded it already (written as is, not encoded again)."""
    stored = purchases_repo.insert(tx, merchant_id, p, internal, shown)
    emit(rt, tx, merchant_id, events, stored, p)  # purchase.paid refers to the row
    if p.status in purchases_domain.UNPAID:
        purchases.schedule_due(rt, tx, merchant_id, p)


def schedule_from(
    rt: Context,
    tx: Tx,
    merchant_id: str,
    t: BillingTemplate,
    s: Subscriber,
    plan: Schedule,
    period: int,
) -> tuple[Subscriber, Schedule]:
    """Schedule the bill of ``period`` (none past the clock's range: billing stops there).
    When the template's period, units, time zone or charge moment changed since the anchor,
    the days re-anchor on today: the next bill is one new period after this one, never a
    burst of catching up nor a skipped period."""
    now_grid = _grid(t)
    if plan.grid != now_grid:
        today = schedule.local_day(now_s(rt), t.purchase.timezone).isoformat()
        offset = period - 1 + (1 if t.subscription_charge_period_end else 0)
        plan = msgspec.structs.replace(plan, anchor=today, offset=offset, grid=now_grid)
    assert plan.anchor is not None
    try:
        day = schedule.billing_day(
            date.fromisoformat(plan.anchor),
            period - plan.offset,
            t.subscription_period,
            t.subscription_period_units,
            t.subscription_charge_period_end,
        )
        at_us = schedule.midnight(day, t.purchase.timezone) * 1_000_000
    except (OverflowError, ValueError):
        at_us = -1
    if not in_clock_range(at_us):
        plan = msgspec.structs.replace(plan, next_period=None, next_day=None)
        return msgspec.structs.replace(s, subscription_billing_scheduled_on=None), plan
    rt.scheduler.schedule(
        tx, BILL_JOB, at_us, {"subscriber": s.id, "period": period}, merchant_id=merchant_id
    )
    plan = msgspec.structs.replace(plan, next_period=period, next_day=day.isoformat())
    return shown(s, plan), plan


def _grid(t: BillingTemplate) -> str:
    return schedule.grid(
        t.subscription_period,
        t.subscription_period_units,
        t.purchase.timezone,
        t.subscription_charge_period_end,
    )


def shown(s: Subscriber, plan: Schedule) -> Subscriber:
    """``subscription_billing_scheduled_on``: the next bill's day while active, else null."""
    day = plan.next_day if s.status == "active" else None
    return msgspec.structs.replace(s, subscription_billing_scheduled_on=day)


def start(
    rt: Context,
    tx: Tx,
    merchant_id: str,
    t: BillingTemplate,
    s: Subscriber,
    plan: Schedule,
    paid_first: bool,
) -> tuple[Subscriber, Schedule]:
    """Billing starts today: the anchor, and the first bill scheduled."""
    anchor = schedule.local_day(now_s(rt), t.purchase.timezone)
    plan = msgspec.structs.replace(plan, anchor=anchor.isoformat(), offset=0, grid=_grid(t))
    return schedule_from(rt, tx, merchant_id, t, s, plan, domain.first_period(t, paid_first))


def _charge(
    rt: Context, tx: Tx, merchant_id: str, s: Subscriber, p: Purchase, token: str, read: ToBill
) -> tuple[Purchase, Internal, list[Event]]:
    """Charge the period's purchase with the subscriber's token (``read`` with it). A failure
    (a decline, or a token gone or expired) is purchase.subscription_charge_failure, and sends
    the invoice when the subscriber asks for it. The last event shows the purchase returned."""
    now = now_s(rt)
    internal = Internal()
    try:
        p, internal, events, declined = purchases_service_money.charge_with_token(
            rt, tx, merchant_id, p, internal, token, now, (read.token,)
        )
    except ApiError as exc:
        p, internal, events = purchases_domain.failed(
            p, internal, exc.code, exc.detail, "api", None, now
        )
        declined = exc.detail
    if declined is not None:
        if s.send_invoice_on_charge_failure:
            p = purchases_domain.send(p, now)
        events = [purchases_domain.event(p, CHARGE_FAILURE)]
    return p, internal, events


def _bill(
    rt: Context,
    tx: Tx,
    merchant_id: str,
    t: BillingTemplate,
    s: Subscriber,
    plan: Schedule,
    period: int,
    bill_at: int,
    read: ToBill,
) -> None:
    """The period's purchase, charged with the token, or sent as an invoice without one
    (``read``: its client's stored JSON, its number and the token, read with the subscriber)."""
    client = _decode_client.decode(read.client) if read.client is not None else None
    due = schedule.after(
        bill_at, t.subscription_due_period, t.subscription_due_period_units, t.purchase.timezone
    )
    p, created = new_purchase(
        rt,
        tx,
        merchant_id,
        t,
        s.client_id,
        subscription=True,
        due=due,
        reference=s.invoice_reference,
        whitelist=s.payment_method_whitelist,
        send_receipt=s.send_receipt,
        base_url=plan.base_url,
        client=client,
        number=read.number,
    )
    internal, events = Internal(), list[Event]()
    shown: bytes | None = None  # the purchase's JSON, when an event has it already
    if plan.token:
        p, internal, events = _charge(rt, tx, merchant_id, s, p, plan.token, read)
        shown = events[-1].raw
    else:
        p = purchases_domain.send(p, now_s(rt))
    if p.status != "paid":
        # Its payment is still to come (a slow charge, a declined one, an invoice): the hook
        # of that payment finds its subscriber by the link. A bill paid at once needs none: its
        # payment's hook is handed the subscriber below, and a paid purchase never emits
        # purchase.paid, .cancelled or .expired again (refunds are all that is left to it).
        repo.link_purchase(tx, p.id, s.id, period)
    # The payment's hook (on_paid) is handed the subscriber as this job holds it, instead of
    # reading the link, the subscriber and the template again; the subscriber is written once,
    # by the hook when it changes it, else here.
    held = Held(Billed(p.id, p.product, p.is_recurring_token, p.recurring_token), s, plan, t)
    token = held_bill.set(held)
    try:
        store(rt, tx, merchant_id, p, internal, [created, *events], shown)
    finally:
        held_bill.reset(token)
    if not held.stored:
        repo.update_subscriber(tx, merchant_id, held.s, held.plan)


def cancel(
    rt: Context, tx: Tx, merchant_id: str, s: Subscriber, plan: Schedule
) -> tuple[Subscriber, Schedule]:
    """Billing of a live subscriber stops for good: inactive, the cancellation event."""
    s, event = rules_subscribers.cancelled(s, now_s(rt))
    emit(rt, tx, merchant_id, [event])
    return s, msgspec.structs.replace(plan, next_period=None, next_day=None)


def bill_due(rt: Context, tx: Tx, job: Job) -> None:
    """A subscriber's billing day (atomic job). The next period's job is scheduled first, so
    the bill's payment (``on_paid``) sees it, and may end the subscription after all."""
    assert job.merchant_id is not None
    merchant_id, period = job.merchant_id, job.payload["period"]
    found = repo.get_subscriber_to_bill(tx, merchant_id, job.payload["subscriber"])
    if found is None:  # deleted, with its template or its merchant
        return
    s, plan = found.subscriber, found.plan
    if plan.next_period != period or s.status not in ("active", "subscription_paused"):
        return  # ended since, or a chain that was replaced
    t = template_of(tx, merchant_id, s.billing_template_id)
    assert t is not None  # a template's subscribers go with it
    if 0 < t.number_of_billing_cycles <= s.number_of_billing_cycles_passed:
        # The template's cycles were lowered to what has passed already: it ends, unbilled.
        s, plan = cancel(rt, tx, merchant_id, s, plan)
        repo.update_subscriber(tx, merchant_id, s, plan)
        return
    billing = s.status == "active"
    s, plan = schedule_from(rt, tx, merchant_id, t, s, plan, period + 1)
    if billing:  # _bill stores the subscriber (once, with what the payment changes)
        _bill(rt, tx, merchant_id, t, s, plan, period, job.due_us // 1_000_000, found)
    else:
        repo.update_subscriber(tx, merchant_id, s, plan)


def template_of(tx: Tx, merchant_id: str, template_id: str) -> BillingTemplate | None:
    """The template of a bill: read once for all the bills of an instant (no job changes a
    template; the memo scope is the instant's, ``kernel.steps``). Never mutated."""
    return memo.memoized(
        ("billing.template", merchant_id, template_id),
        lambda: repo.get_template(tx, merchant_id, template_id, shown=False),
    )


def save_subscriber(tx: Tx, merchant_id: str, s: Subscriber, plan: Schedule) -> None:
    repo.update_subscriber(tx, merchant_id, s, plan)
    held = held_bill.get()
    if held is not None and held.s.id == s.id:
        held.s, held.plan, held.stored = s, plan, True


JOBS: dict[str, JobHandler] = {BILL_JOB: bill_due}
