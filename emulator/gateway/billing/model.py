"""Billing objects as the gateway returns them (OpenAPI ``BillingTemplate`` and
``BillingTemplateClient``), the request bodies that make and change them, and the emulator-only
state of a subscriber's schedule."""

from __future__ import annotations

from typing import Any

import msgspec
from msgspec import UNSET, UnsetType

from emulator.domain.validation import Reference
from emulator.gateway.billing.rules_schedule import Unit
from emulator.gateway.purchases.input import DetailsInput
from emulator.gateway.purchases.model import PurchaseDetails

# Subscriber statuses (spec: BillingTemplateClient):
#   pending              added with a first purchase to pay; billing starts when it is paid
#   active               billed on its schedule
#   subscription_paused  paused (by PATCH, or by the template's subscription_active false)
#   inactive             not billed: before launch, or ended after number_of_billing_cycles
LIVE = ("pending", "active", "subscription_paused")
SETTABLE = ("active", "subscription_paused")  # the only statuses a PATCH may set
STATUSES = ("pending", "inactive", "active", "subscription_paused")


class BillingTemplate(msgspec.Struct, kw_only=True):
    id: str
    type: str = "billing_template"
    created_on: int
    updated_on: int
    purchase: PurchaseDetails
    is_subscription: bool
    title: str = ""
    is_test: bool = True
    user_id: str | None = None
    brand_id: str
    company_id: str
    invoice_due: int | None = None
    invoice_issued: str | None = None
    invoice_send_receipt: bool = True
    invoice_skip_capture: bool = False
    force_recurring: bool = False
    upsell_campaigns: list[str] = []
    referral_campaign_id: str | None = None
    subscription_active: bool = True
    subscription_period: int = 1
    subscription_period_units: Unit = "months"
    subscription_due_period: int = 7
    subscription_due_period_units: Unit = "days"
    subscription_charge_period_end: bool = False
    subscription_trial_periods: int = 0
    number_of_billing_cycles: int = 0
    subscription_has_active_clients: bool = False  # worked out on read


class TemplateInput(msgspec.Struct, forbid_unknown_fields=False):
    """A BillingTemplate body; what is not given is UNSET (defaults on POST and PUT, the
    current value on PATCH). Read-only fields of the object are not read at all."""

    purchase: DetailsInput | UnsetType = UNSET
    is_subscription: bool | UnsetType = UNSET
    brand_id: str | UnsetType = UNSET
    title: str | UnsetType = UNSET
    # Read-only for subscriptions (ignored whatever they hold): their types are checked by the
    # rules, and only for one-off templates.
    invoice_due: Any = UNSET
    invoice_issued: Any = UNSET
    invoice_send_receipt: Any = UNSET
    invoice_skip_capture: Any = UNSET
    force_recurring: bool | UnsetType = UNSET
    upsell_campaigns: list[str] | UnsetType = UNSET
    referral_campaign_id: str | UnsetType | None = UNSET
    subscription_active: bool | UnsetType = UNSET
    subscription_period: int | UnsetType = UNSET
    subscription_period_units: Unit | UnsetType = UNSET
    subscription_due_period: int | UnsetType = UNSET
    subscription_due_period_units: Unit | UnsetType = UNSET
    subscription_charge_period_end: bool | UnsetType = UNSET
    subscription_trial_periods: int | UnsetType = UNSET
    number_of_billing_cycles: int | UnsetType = UNSET


class SubscriberInput(msgspec.Struct, forbid_unknown_fields=False):
    """A BillingTemplateClient body (add_subscriber, send_invoice, PATCH, /billing/ clients)."""

    client_id: str | UnsetType = UNSET
    status: str | UnsetType = UNSET
    send_receipt: bool | UnsetType = UNSET
    invoice_reference: Reference | UnsetType | None = UNSET
    payment_method_whitelist: list[str] | UnsetType | None = UNSET
    send_invoice_on_add_subscriber: bool | UnsetType = UNSET
    send_invoice_on_charge_failure: bool | UnsetType = UNSET


class InvoicesInput(TemplateInput, forbid_unknown_fields=False):
    """``POST /billing/``: a template's fields and the clients to invoice."""

    clients: list[SubscriberInput] | UnsetType = UNSET


class Subscriber(msgspec.Struct, kw_only=True):
    id: str
    type: str = "billing_template_client"
    created_on: int
    updated_on: int
    billing_template_id: str
    client_id: str
    company_id: str
    is_test: bool = True
    status: str = "inactive"
    send_receipt: bool = True
    invoice_reference: str | None = None
    payment_method_whitelist: list[str] | None = None
    send_invoice_on_add_subscriber: bool = False
    send_invoice_on_charge_failure: bool = True
    number_of_billing_cycles_passed: int = 0
    subscription_billing_scheduled_on: str | None = None


class Schedule(msgspec.Struct, kw_only=True):
    """Emulator-only state of a subscriber: its billing grid and what it charges."""

    base_url: str  # where the purchases it makes point their checkout pages
    anchor: str | None = None  # the start day (YYYY-MM-DD) the billing dates hang off
    offset: int = 0  # periods before the anchor (it moves when the template's grid changes)
    grid: str = ""  # billing_schedule.grid of the template when anchored
    next_period: int | None = None  # the period whose bill is scheduled
    next_day: str | None = None  # the day of that bill
    token: str | None = None  # the recurring token (a purchase id) charged
    paused_by_template: bool = False  # paused because the template's subscription_active
