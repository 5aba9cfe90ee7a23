"""Billing rules of a subscriber: the entries of POST /billing/, what add_subscriber does
(spec: BillingTemplateClient transitions), which subscriber changes a PATCH may make.

Pure: every function takes its inputs and ``now`` and returns new objects or raises the spec's
error; nothing here reads a clock or a database.
"""

from __future__ import annotations

from typing import Literal

import msgspec
from msgspec import UNSET

from emulator.domain import validation
from emulator.domain.errors import FieldError, SubscriptionInactive
from emulator.domain.events import Event
from emulator.gateway.billing.model import (
    LIVE,
    SETTABLE,
    STATUSES,
    InvoicesInput,
    Subscriber,
    SubscriberInput,
)
from emulator.gateway.billing.rules import CANCELLED, MAX_INVOICES, raise_all
from emulator.gateway.purchases.input import unavailable_methods


def invoice_entries(data: InvoicesInput) -> tuple[list[str], list[FieldError]]:
    """``POST /billing/``: the client id of each entry ("" where it has none) and every problem
    of the body but the template's own fields (one-off only; ``clients.N.`` names)."""
    errors: list[FieldError | None] = []
    if data.is_subscription is True:
        errors.append(
            validation.invalid("is_subscription", "One-off invoices cannot be a subscription.")
        )
    entries = data.clients if isinstance(data.clients, list) else None
    if entries is None:
        errors.append(validation.required("clients"))
    elif not entries:
        errors.append(validation.invalid("clients", "Ensure this list is not empty."))
    elif len(entries) > MAX_INVOICES:
        message = f"Ensure this list has no more than {MAX_INVOICES} items."
        errors.append(FieldError("clients", "max_length", message))
    client_ids: list[str] = []
    for i, item in enumerate(entries or []):
        client_id, problems = entry(item, f"clients.{i}.")
        errors += problems
        client_ids.append(client_id or "")
    return client_ids, [err for err in errors if err is not None]


def entry(data: SubscriberInput, at: str = "") -> tuple[str | None, list[FieldError | None]]:
    """The client id of a subscriber/invoice body and the problems of its fields (``at``
    prefixes the names: ``clients.1.``)."""
    errors: list[FieldError | None] = []
    client_id: str | None = None
    if data.client_id is UNSET:
        errors.append(validation.required(f"{at}client_id"))
    else:
        problem = validation.uuid_field(f"{at}client_id", data.client_id)
        errors.append(problem)
        client_id = data.client_id.lower() if problem is None else None
    errors += _options(data, at)
    return client_id, errors


def _options(data: SubscriberInput, at: str) -> list[FieldError | None]:
    errors: list[FieldError | None] = []
    if isinstance(data.invoice_reference, str):
        errors.append(validation.max_length(f"{at}invoice_reference", data.invoice_reference, 128))
    whitelist = data.payment_method_whitelist
    if isinstance(whitelist, list):
        if not whitelist:
            errors.append(
                validation.invalid(
                    f"{at}payment_method_whitelist", "Ensure this list is not empty."
                )
            )
        elif unavailable := unavailable_methods(whitelist):
            errors.append(
                FieldError(
                    f"{at}payment_method_whitelist",
                    "payment_method_not_available",
                    f"'{unavailable[0]}' is not an available payment method.",
                )
            )
    return errors


def check_entry(data: SubscriberInput) -> str:
    client_id, errors = entry(data)
    raise_all(errors)
    assert client_id is not None
    return client_id


def subscriber(
    data: SubscriberInput,
    client_id: str,
    *,
    subscriber_id: str,
    template_id: str,
    company_id: str,
    status: Literal["pending", "active"],
    now: int,
) -> Subscriber:
    s = Subscriber(
        id=subscriber_id,
        created_on=now,
        updated_on=now,
        billing_template_id=template_id,
        client_id=client_id,
        company_id=company_id,
        status=status,
    )
    return _apply(s, data)


def _apply(s: Subscriber, data: SubscriberInput) -> Subscriber:
    changes = {
        name: getattr(data, name)
        for name in (
            "send_receipt",
            "invoice_reference",
            "payment_method_whitelist",
            "send_invoice_on_add_subscriber",
            "send_invoice_on_charge_failure",
        )
        if getattr(data, name) is not UNSET
    }
    return msgspec.structs.replace(s, **changes)


def patch(s: Subscriber, data: SubscriberInput, template_active: bool, now: int) -> Subscriber:
    """A PATCH: the writable options, and ``status`` only between active and
    subscription_paused (spec); an ended subscription cannot come back."""
    errors = _options(data, "")
    status = data.status
    changes = status is not UNSET and status != s.status
    if changes and status not in SETTABLE:
        choices = ", ".join(SETTABLE)
        known = status in STATUSES
        message = f"Only {choices} can be set." if known else f"'{status}' is not a valid choice."
        errors.append(validation.invalid("status", message))
    elif changes and s.status == "pending":
        errors.append(
            validation.invalid("status", "A pending subscriber becomes active when it pays.")
        )
    raise_all(errors)
    if changes and s.status == "inactive":
        raise SubscriptionInactive("The subscription has ended.")
    if changes and status == "active" and not template_active:
        raise SubscriptionInactive()
    s = _apply(s, data)
    if status is not UNSET:
        s = msgspec.structs.replace(s, status=status)
    return msgspec.structs.replace(s, updated_on=now)


def is_live(s: Subscriber) -> bool:
    return s.status in LIVE


def cancelled(s: Subscriber, now: int) -> tuple[Subscriber, Event]:
    """Billing stops for good (cycles done, or deleted): inactive, nothing scheduled."""
    s = msgspec.structs.replace(
        s, status="inactive", subscription_billing_scheduled_on=None, updated_on=now
    )
    payload = msgspec.to_builtins(s)
    return s, Event(CANCELLED, "billing_template_client", s.id, payload, client_id=s.client_id)
