"""Billing rules: what a template body may say (spec: BillingTemplate), and when a template
takes subscribers and invoices; a subscriber's are ``rules_subscribers.py``.

Pure: every function takes its inputs and ``now`` and returns new objects or raises the spec's
error; nothing here reads a clock or a database.
"""

from __future__ import annotations

import re
from datetime import date
from typing import Any

import msgspec
from msgspec import UNSET

from emulator.domain import validation
from emulator.domain.errors import FieldError, SubscriptionInactive, ValidationFailed
from emulator.gateway.billing.model import (
    BillingTemplate,
    TemplateInput,
)
from emulator.gateway.billing.rules_schedule import is_zone
from emulator.gateway.purchases.input import details as purchase_details

MAX_TIMESTAMP = 253_402_300_799
MAX_CYCLES = 1_000_000
MAX_INVOICES = 1_000  # clients of one POST /billing/
CANCELLED = "billing_template_client.subscription_billing_cancelled"

_WRITABLE = tuple(f for f in TemplateInput.__struct_fields__ if f != "purchase")
# What POST and PUT give a field that is not in the body: the object's defaults.
_DEFAULTS: dict[str, Any] = {
    **{f.name: f.default for f in msgspec.structs.fields(BillingTemplate) if f.name in _WRITABLE},
    "is_subscription": False,
    "brand_id": "",
    "upsell_campaigns": [],
}


def raise_all(errors: list[FieldError | None]) -> None:
    found = [err for err in errors if err is not None]
    if found:
        raise ValidationFailed(found)


_DAY = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")


def _day(field: str, value: str) -> FieldError | None:
    try:
        date.fromisoformat(value)
    except ValueError:
        return validation.invalid(field, "Date has wrong format. Use YYYY-MM-DD.")
    return (
        None
        if _DAY.fullmatch(value)
        else validation.invalid(field, "Date has wrong format. Use YYYY-MM-DD.")
    )


def _invoice_fields(fields: dict[str, Any]) -> list[FieldError | None]:
    """The invoice fields of a one-off template (typed by hand: a subscription ignores them)."""
    due, issued = fields["invoice_due"], fields["invoice_issued"]
    errors: list[FieldError | None] = []
    if due is None:
        errors.append(validation.required("invoice_due"))
    elif not isinstance(due, int) or isinstance(due, bool):
        errors.append(
            validation.invalid("invoice_due", "A valid integer (Unix seconds) is required.")
        )
    else:
        errors.append(validation.bounds("invoice_due", due, 0, MAX_TIMESTAMP))
    if isinstance(issued, str):
        errors.append(_day("invoice_issued", issued))
    elif issued is not None:
        errors.append(
            validation.invalid("invoice_issued", "Date has wrong format. Use YYYY-MM-DD.")
        )
    for name in ("invoice_send_receipt", "invoice_skip_capture"):
        if not isinstance(fields[name], bool):
            errors.append(validation.invalid(name, "Must be a valid boolean."))
    return errors


def _uuid_list(field: str, values: list[str]) -> list[FieldError | None]:
    return [validation.uuid_field(f"{field}.{i}", value) for i, value in enumerate(values)]


def template(
    data: TemplateInput,
    current: BillingTemplate | None,
    *,
    partial: bool,
    brand_ids: list[str],
    template_id: str,
    company_id: str,
    now: int,
) -> BillingTemplate:
    """The template a POST (``current`` None), PUT or PATCH (``partial``) body makes, or
    ValidationFailed with every problem found (dotted names inside ``purchase``)."""
    errors: list[FieldError | None] = []
    base = msgspec.to_builtins(current) if partial and current is not None else _DEFAULTS
    fields: dict[str, Any] = {
        name: getattr(data, name) if getattr(data, name) is not UNSET else base[name]
        for name in _WRITABLE
    }
    if not partial:
        for name in ("is_subscription", "brand_id"):
            if getattr(data, name) is UNSET:
                errors.append(validation.required(name))
    if current is not None and data.is_subscription is UNSET:
        fields["is_subscription"] = current.is_subscription  # never changes, even on PUT
    subscription = bool(fields["is_subscription"])
    if current is not None and data.is_subscription is not UNSET:
        if data.is_subscription != current.is_subscription:
            errors.append(
                validation.invalid("is_subscription", "is_subscription cannot be changed.")
            )
            subscription = current.is_subscription
    if subscription:  # read-only for subscriptions: what was given is ignored
        fields.update(
            invoice_due=None,
            invoice_issued=None,
            invoice_send_receipt=True,
            invoice_skip_capture=False,
        )
    purchase = current.purchase if current is not None and partial else None
    if data.purchase is not UNSET:
        try:
            purchase = purchase_details(data.purchase, fields["invoice_skip_capture"] is True)
        except ValidationFailed as exc:
            errors.extend(exc.errors)
        else:
            if not is_zone(purchase.timezone):
                errors.append(
                    validation.invalid(
                        "purchase.timezone", f"'{purchase.timezone}' is not a time zone."
                    )
                )
    elif purchase is None:
        errors.append(validation.required("purchase"))
    elif purchase.total == 0 and fields["invoice_skip_capture"] is not True:
        # Provider quirk (as POST /purchases/): a zero total is a preauthorization.
        errors.append(
            FieldError("purchase.total", "invalid_amount", "A zero total needs skip_capture.")
        )
    brand_id = str(fields["brand_id"]).lower()
    if data.brand_id is not UNSET:
        problem = validation.uuid_field("brand_id", data.brand_id)
        if problem is None and brand_id not in brand_ids:
            problem = validation.invalid("brand_id", "No brand with this id.")
        errors.append(problem)
    errors += [
        validation.max_length("title", fields["title"], 256),
        validation.bounds("subscription_period", fields["subscription_period"], 1, 256),
        validation.bounds("subscription_due_period", fields["subscription_due_period"], 1, 256),
        validation.bounds(
            "subscription_trial_periods", fields["subscription_trial_periods"], 0, 256
        ),
        validation.bounds(
            "number_of_billing_cycles", fields["number_of_billing_cycles"], 0, MAX_CYCLES
        ),
        *_uuid_list("upsell_campaigns", fields["upsell_campaigns"]),
    ]
    if fields["referral_campaign_id"] is not None:
        errors.append(validation.uuid_field("referral_campaign_id", fields["referral_campaign_id"]))
    if not subscription:
        errors += _invoice_fields(fields)
    raise_all(errors)
    assert purchase is not None
    fields["brand_id"] = brand_id
    fields["upsell_campaigns"] = [u.lower() for u in fields["upsell_campaigns"]]
    if fields["referral_campaign_id"] is not None:
        fields["referral_campaign_id"] = fields["referral_campaign_id"].lower()
    return BillingTemplate(
        id=template_id,
        created_on=current.created_on if current is not None else now,
        updated_on=now,
        purchase=purchase,
        company_id=company_id,
        **fields,
    )


def check_subscribable(t: BillingTemplate) -> None:
    if not t.is_subscription:
        raise ValidationFailed(
            [validation.invalid("__all__", "This billing template is not a subscription.")]
        )
    if not t.subscription_active:
        raise SubscriptionInactive()


def check_invoiceable(t: BillingTemplate) -> None:
    if t.is_subscription:
        raise ValidationFailed(
            [
                validation.invalid(
                    "__all__", "A subscription template is billed through add_subscriber."
                )
            ]
        )


def starts_active(t: BillingTemplate) -> bool:
    """Spec (BillingTemplateClient): charged at the period end, or with a trial, a subscriber
    is active at once with no purchase; otherwise pending with a first purchase to pay."""
    return t.subscription_charge_period_end or t.subscription_trial_periods > 0


def first_period(t: BillingTemplate, paid_first: bool) -> int:
    """The period whose bill comes first: after the trial; after the one the add_subscriber
    purchase paid for."""
    return 1 if paid_first else t.subscription_trial_periods
