"""Helpers of the billing tests: templates, clients, subscribers, paying a subscriber's purchase."""

from __future__ import annotations

import itertools
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from emulator.runtime.runtime import Runtime
from tests.conftest import EPOCH_S, settings_for
from tests.http.purchase_helpers import pay

TEMPLATES = "/api/v1/billing_templates/"
UNKNOWN = "00000000-0000-4000-8000-000000000000"
REQUIRED = "This field is required."
TOO_LONG_128 = "Ensure this field has no more than 128 characters."

TEMPLATE_KEYS = {
    "id", "type", "created_on", "updated_on", "purchase", "is_subscription", "title", "is_test",
    "user_id", "brand_id", "company_id", "invoice_due", "invoice_issued", "invoice_send_receipt",
    "invoice_skip_capture", "force_recurring", "upsell_campaigns", "referral_campaign_id",
    "subscription_active", "subscription_period", "subscription_period_units",
    "subscription_due_period", "subscription_due_period_units", "subscription_charge_period_end",
    "subscription_trial_periods", "number_of_billing_cycles", "subscription_has_active_clients",
}  # fmt: skip

SUBSCRIBER_KEYS = {
    "id", "type", "created_on", "updated_on", "billing_template_id", "client_id", "company_id",
    "is_test", "status", "send_receipt", "invoice_reference", "payment_method_whitelist",
    "send_invoice_on_add_subscriber", "send_invoice_on_charge_failure",
    "number_of_billing_cycles_passed", "subscription_billing_scheduled_on",
}  # fmt: skip


def template_body(
    merchant: dict[str, Any], subscription: bool = True, price: int = 1000, **fields: Any
) -> dict[str, Any]:
    """A valid POST /billing_templates/ body; one-off templates get an invoice_due."""
    body: dict[str, Any] = {
        "purchase": {"currency": "ZAR", "products": [{"name": "Plan", "price": price}]},
        "is_subscription": subscription,
        "brand_id": merchant["brand_id"],
    }
    if not subscription:
        body["invoice_due"] = EPOCH_S + 86400  # a day after the tests' epoch
    body.update(fields)
    return body


async def create_template(
    http: httpx.AsyncClient,
    gw: dict[str, str],
    merchant: dict[str, Any],
    subscription: bool = True,
    **fields: Any,
) -> dict[str, Any]:
    """POST a template (fields override template_body's); asserts 201."""
    body = template_body(merchant, subscription, **fields)
    response = await http.post(TEMPLATES, json=body, headers=gw)
    assert response.status_code == 201, response.text
    template: dict[str, Any] = response.json()
    return template


_emails = itertools.count(1)


async def add_client(http: httpx.AsyncClient, gw: dict[str, str], email: str | None = None) -> str:
    """Create a Client (a fresh email unless one is given); returns its id."""
    email = email or f"subscriber-{next(_emails)}@example.com"
    response = await http.post("/api/v1/clients/", json={"email": email}, headers=gw)
    assert response.status_code == 201, response.text
    client_id: str = response.json()["id"]
    return client_id


async def post_subscriber(
    http: httpx.AsyncClient, gw: dict[str, str], template_id: str, **fields: Any
) -> httpx.Response:
    """POST .../add_subscriber/ with the fields as body, whatever the answer."""
    return await http.post(f"{TEMPLATES}{template_id}/add_subscriber/", json=fields, headers=gw)


async def add_subscriber(
    http: httpx.AsyncClient,
    gw: dict[str, str],
    template_id: str,
    client_id: str | None = None,
    email: str | None = None,
    **fields: Any,
) -> dict[str, Any]:
    """add_subscriber (a new client, by email when given, unless client_id is given); asserts 200 and returns
    {"billing_template_client": ..., "purchase": ...}."""
    if client_id is None:
        client_id = await add_client(http, gw, email)
    response = await post_subscriber(http, gw, template_id, client_id=client_id, **fields)
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


async def get_subscriber(
    http: httpx.AsyncClient, gw: dict[str, str], template_id: str, subscriber_id: str
) -> dict[str, Any]:
    response = await http.get(f"{TEMPLATES}{template_id}/clients/{subscriber_id}/", headers=gw)
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


async def pay_purchase(http: httpx.AsyncClient, purchase_id: str, **card: Any) -> dict[str, Any]:
    """Pay through the control plane (default test card unless card fields are given); asserts
    200 and returns the purchase."""
    response = await pay(http, purchase_id, **card)
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def pick(obj: dict[str, Any], expected: dict[str, Any]) -> dict[str, Any]:
    """obj's values of expected's keys, to compare with expected."""
    return {k: obj[k] for k in expected}


def assert_error(
    response: httpx.Response, status: int, field: str, code: str, message: str | None = None
) -> None:
    """The whole gateway error body: exactly one field, its code, and its message when given
    (any non-empty text otherwise)."""
    assert response.status_code == status, response.text
    body = response.json()
    assert list(body) == [field], body
    assert body[field]["code"] == code, body
    assert set(body[field]) == {"message", "code"}, body
    if message is None:
        assert isinstance(body[field]["message"], str) and body[field]["message"], body
    else:
        assert body[field]["message"] == message, body


def codes(response: httpx.Response) -> tuple[int, list[str]]:
    """The status and the error codes of an answer."""
    return response.status_code, [e["code"] for e in response.json().values()]


async def patch_template(
    http: httpx.AsyncClient, gw: dict[str, str], template_id: str, **fields: Any
) -> dict[str, Any]:
    """PATCH a template; asserts 200 and returns it."""
    response = await http.patch(f"{TEMPLATES}{template_id}/", json=fields, headers=gw)
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


async def patch_subscriber(
    http: httpx.AsyncClient, gw: dict[str, str], template_id: str, subscriber_id: str, **fields: Any
) -> httpx.Response:
    """PATCH a subscriber on the template's path, whatever the answer."""
    path = f"{TEMPLATES}{template_id}/clients/{subscriber_id}/"
    return await http.patch(path, json=fields, headers=gw)


@pytest.fixture(name="runtime")
async def without_retention(tmp_path: Path) -> AsyncIterator[Runtime]:
    """Retention off: billing tests advance months and read every purchase.created of the
    outbox as the history of bills (retention would prune what is older than 7 days)."""
    async with Runtime(settings_for(tmp_path, retain_seconds=None)) as rt:
        yield rt
