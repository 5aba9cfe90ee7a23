"""Never a 500 for bad input on billing: generated template, invoice and subscriber bodies,
ids and queries, against real templates and subscribers as well as unknown ones."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from emulator.gateway.billing.model import SubscriberInput, TemplateInput
from tests.http.test_fuzz import (
    DEFAULT_BRAND,
    FUZZ,
    GW,
    assert_gateway_shape,
    bodies,
    json_values,
    path_ids,
    queries,
)

pytestmark = pytest.mark.slow  # hypothesis drives each endpoint through many generated bodies

PURCHASE = {"products": [{"name": "Plan", "price": 1000}]}

template_values: dict[str, Any] = {
    "purchase": st.just(PURCHASE) | json_values,
    "is_subscription": st.booleans() | json_values,
    "brand_id": st.just(DEFAULT_BRAND) | json_values,
    "invoice_due": st.integers() | json_values,
    "invoice_issued": st.sampled_from(["2026-02-30", "2026-01-05", "2026-1-5"]) | json_values,
    "subscription_period_units": st.sampled_from(["days", "weeks", "months", "years"]),
    "subscription_due_period_units": st.sampled_from(["days", "weeks", "months", "DAYS"]),
    "subscription_period": st.integers(),
    "subscription_trial_periods": st.integers(),
    "number_of_billing_cycles": st.integers(),
    "upsell_campaigns": st.lists(st.uuids().map(str) | st.text(max_size=8)) | json_values,
}
template_bodies = st.fixed_dictionaries(
    {},
    optional={
        name: template_values.get(name, json_values) for name in TemplateInput.__struct_fields__
    },
)
subscriber_bodies = st.fixed_dictionaries(
    {},
    optional={
        **{name: json_values for name in SubscriberInput.__struct_fields__},
        "status": st.sampled_from(["active", "subscription_paused", "pending", "x"]) | json_values,
        "payment_method_whitelist": st.lists(st.sampled_from(["visa", "card", "nope"])),
    },
)


def encoded(strategy: st.SearchStrategy[Any]) -> st.SearchStrategy[bytes]:
    return st.one_of(strategy.map(lambda d: json.dumps(d).encode()), bodies)


async def _template(http: Any, subscription: bool) -> str:
    body = {"purchase": PURCHASE, "brand_id": DEFAULT_BRAND, "is_subscription": subscription}
    if not subscription:
        body["invoice_due"] = 1_800_000_000
    made = await http.post("/api/v1/billing_templates/", json=body, headers=GW)
    assert made.status_code == 201, made.text
    return str(made.json()["id"])


async def _client(http: Any) -> str:
    made = await http.post(
        "/api/v1/clients/", json={"email": "fuzz-billing@example.com"}, headers=GW
    )
    if made.status_code == 409:
        found = await http.get("/api/v1/clients/?email=fuzz-billing@example.com", headers=GW)
        return str(found.json()["results"][0]["id"])
    return str(made.json()["id"])


@FUZZ
@given(method=st.sampled_from(["POST", "PUT", "PATCH"]), body=encoded(template_bodies),
       known=st.booleans(), subscription=st.booleans(), template_id=path_ids)  # fmt: skip
async def test_template_writes(http, method, body, known, subscription, template_id):
    """Any body to create, replace or patch a template (a real one or any id)."""
    if method == "POST":
        path = "/api/v1/billing_templates/"
    else:
        template_id = await _template(http, subscription) if known else template_id
        path = f"/api/v1/billing_templates/{template_id}/"
    response = await http.request(method, path, content=body, headers=GW)
    assert_gateway_shape(response.status_code, response.json())


invoice_bodies = st.builds(
    lambda base, clients: {**base, "clients": clients},
    template_bodies,
    st.lists(subscriber_bodies, max_size=3) | json_values,
)


@FUZZ
@given(body=encoded(invoice_bodies))
async def test_one_off_invoices(http, body):
    response = await http.post("/api/v1/billing/", content=body, headers=GW)
    assert_gateway_shape(response.status_code, response.json())


@FUZZ
@given(action=st.sampled_from(["add_subscriber/", "send_invoice/"]),
       body=encoded(subscriber_bodies), subscription=st.booleans(), with_client=st.booleans())  # fmt: skip
async def test_subscriber_and_invoice_bodies(http, action, body, subscription, with_client):
    """Any body to add_subscriber and send_invoice of a real template (with a real client_id
    when ``with_client``)."""
    template_id = await _template(http, subscription)
    if with_client and body.startswith(b"{") and body != b"{}":
        try:
            decoded = json.loads(body)
        except ValueError:
            decoded = None
        if isinstance(decoded, dict):
            body = json.dumps({**decoded, "client_id": await _client(http)}).encode()
    path = f"/api/v1/billing_templates/{template_id}/{action}"
    response = await http.post(path, content=body, headers=GW)
    assert_gateway_shape(response.status_code, response.json())


@FUZZ
@given(body=encoded(subscriber_bodies), scoped=st.booleans())
async def test_subscriber_patches(http, body, scoped):
    """Any body to PATCH a real subscriber, through either path."""
    template_id = await _template(http, True)
    added = await http.post(
        f"/api/v1/billing_templates/{template_id}/add_subscriber/",
        json={"client_id": await _client(http)},
        headers=GW,
    )
    subscriber = added.json()["billing_template_client"]["id"]
    prefix = f"/api/v1/billing_templates/{template_id}" if scoped else "/api/v1/billing_templates"
    response = await http.patch(f"{prefix}/clients/{subscriber}/", content=body, headers=GW)
    assert_gateway_shape(response.status_code, response.json())
    await http.delete(f"{prefix}/clients/{subscriber}/", headers=GW)


@FUZZ
@given(template_id=path_ids, subscriber_id=path_ids, query=queries)
async def test_billing_reads(http, template_id, subscriber_id, query):
    for path in (
        "/api/v1/billing_templates/",
        f"/api/v1/billing_templates/{template_id}/",
        f"/api/v1/billing_templates/{template_id}/clients/",
        f"/api/v1/billing_templates/{template_id}/clients/{subscriber_id}/",
        f"/api/v1/billing_templates/clients/{subscriber_id}/",
    ):
        response = await http.get(path, params=query, headers=GW)
        assert_gateway_shape(response.status_code, response.json())
