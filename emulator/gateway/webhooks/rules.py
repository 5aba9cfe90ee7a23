"""Gateway webhooks: the object, its validation and the events it can subscribe to."""

from __future__ import annotations

from typing import Literal

import msgspec
from msgspec import UNSET, UnsetType

from emulator.core.merchants.model import control_character
from emulator.domain import urls, validation
from emulator.domain.errors import FieldError, ValidationFailed
from emulator.domain.urls import UrlRule

# The OpenAPI document's Event enum: the event_type values a webhook can carry.
EVENTS: tuple[str, ...] = (
    "purchase.created",
    "purchase.paid",
    "purchase.payment_failure",
    "purchase.pending_execute",
    "purchase.pending_charge",
    "purchase.cancelled",
    "purchase.hold",
    "purchase.captured",
    "purchase.pending_capture",
    "purchase.released",
    "purchase.pending_release",
    "purchase.preauthorized",
    "purchase.pending_recurring_token_delete",
    "purchase.recurring_token_deleted",
    "purchase.subscription_charge_failure",
    "purchase.pending_refund",
    "payment.refunded",
    "billing_template_client.subscription_billing_cancelled",
    "payout.pending",
    "payout.failed",
    "payout.success",
)
EVENT_SET = frozenset(EVENTS)

# WebhookSourceType (deliveries query) -> the outbox's object_type and its not-found code.
SOURCE_TYPES: dict[str, tuple[str, str]] = {
    "Purchase": ("purchase", "purchase_not_found"),
    "Payment": ("payment", "payment_not_found"),
    "Payout": ("payout", "payout_not_found"),
    "BillingTemplateClient": ("billing_template_client", "billing_template_client_not_found"),
}

TITLE_MAX = 100
CONTROL_IN_TITLE = "Title must not contain control characters (line breaks, NUL, ESC...)."
URL_MAX = 500


class WebhookInput(msgspec.Struct, forbid_unknown_fields=False):
    """A POST/PUT/PATCH body (``public_key`` and other read-only fields are ignored)."""

    title: str | UnsetType = UNSET
    all_events: bool | UnsetType = UNSET
    events: list[str] | UnsetType = UNSET
    callback: str | UnsetType = UNSET


class Webhook(msgspec.Struct, kw_only=True):
    id: str
    type: str = "webhook"
    created_on: int
    updated_on: int
    title: str
    all_events: bool = False
    events: list[str] = []
    callback: str
    public_key: str

    def wants(self, event_type: str) -> bool:
        return self.all_events or event_type in self.events


def callback_problem(field: str, url: str, rule: UrlRule) -> FieldError | None:
    """HTTPS, or plain HTTP to loopback (the built-in sink, a local receiver) or a host of
    ``--callback-hosts``; never the emulator's control plane (emulator/domain/urls.py)."""
    if len(url) > URL_MAX:
        return validation.max_length(field, url, URL_MAX)
    found = urls.problem(url, rule)
    if found is None:
        return None
    # The provider requires HTTPS; the emulator also takes plain HTTP to loopback and to the
    # hosts it is told about (DESIGN.md).
    code = "webhook_url_invalid" if found == "not_https" else "invalid"
    return FieldError(field, code, urls.MESSAGES[found])


Mode = Literal["create", "replace", "patch"]


def _validate(
    data: WebhookInput, mode: Mode, current: Webhook | None, rule: UrlRule
) -> dict[str, object]:
    given = {f: val for f in data.__struct_fields__ if (val := getattr(data, f)) is not UNSET}
    errors: list[FieldError | None] = []
    if mode != "patch":
        errors += [validation.required(f) for f in ("title", "callback") if f not in given]
    if "title" in given:
        title = str(given["title"])
        errors.append(validation.max_length("title", title, TITLE_MAX))
        if not title:
            errors.append(validation.invalid("title", "This field may not be blank."))
        elif control_character(title) is not None:
            errors.append(validation.invalid("title", CONTROL_IN_TITLE))
    if "callback" in given:
        errors.append(callback_problem("callback", str(given["callback"]), rule))
    events = given.get("events")
    if isinstance(events, list):
        for i, name in enumerate(events):
            if name not in EVENT_SET:
                errors.append(validation.invalid(f"events.{i}", f'"{name}" is not a valid choice.'))
        if len(set(events)) != len(events):
            errors.append(validation.invalid("events", "Events must be unique."))
    all_events = given.get(
        "all_events", current.all_events if current and mode == "patch" else False
    )
    chosen = given.get("events", current.events if current and mode == "patch" else [])
    if not all_events and not chosen:
        errors.append(validation.invalid("events", "Either events or all_events is required."))
    found = [e for e in errors if e is not None]
    if found:
        raise ValidationFailed(found)
    return given


def _listed(webhook: Webhook) -> Webhook:
    """Provider quirk: a webhook with ``all_events`` lists every event in ``events`` (the
    document's whole Event enum, in its order), whatever ``events`` was given."""
    if webhook.all_events and webhook.events != list(EVENTS):
        return msgspec.structs.replace(webhook, events=list(EVENTS))
    return webhook


def create(
    data: WebhookInput, webhook_id: str, public_key: str, now: int, rule: UrlRule
) -> Webhook:
    given = _validate(data, "create", None, rule)
    return _listed(
        Webhook(
            id=webhook_id,
            created_on=now,
            updated_on=now,
            public_key=public_key,
            **given,  # type: ignore[arg-type]
        )
    )


def replace(current: Webhook, data: WebhookInput, now: int, rule: UrlRule) -> Webhook:
    """PUT: fields not given return to their defaults (the key pair stays)."""
    given = _validate(data, "replace", current, rule)
    return _listed(
        Webhook(
            id=current.id,
            created_on=current.created_on,
            updated_on=now,
            public_key=current.public_key,
            **given,  # type: ignore[arg-type]
        )
    )


def patch(current: Webhook, data: WebhookInput, now: int, rule: UrlRule) -> Webhook:
    given = _validate(data, "patch", current, rule)
    return _listed(msgspec.structs.replace(current, updated_on=now, **given))
