"""What the real platform's official clients send, accepted (issue 15, section 2): null for an
optional field, a numeric reference, a plugin's platform name. The spec's own rules stay."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from emulator.gateway.billing.model import SubscriberInput, TemplateInput
from emulator.gateway.clients.rules import ClientInput
from emulator.gateway.payouts.model import PaymentInput, PayoutInput
from emulator.gateway.purchases.input import DetailsInput, ProductInput, PurchaseInput
from emulator.gateway.webhooks.rules import WebhookInput
from tests.conftest import EPOCH_S
from tests.http.billing_helpers import TEMPLATES, add_client, template_body
from tests.http.purchase_helpers import events, get, purchase_body

PURCHASES = "/api/v1/purchases/"
REQUIRED = {"message": "This field is required.", "code": "required"}
# Keys that differ between two objects made from the same body.
OWN = {"id", "checkout_url", "direct_post_url", "reference_generated", "execution_url"}


def nulls(model: type[msgspec.Struct]) -> dict[str, None]:
    """Every optional field of a body struct, as null."""
    info = msgspec.inspect.type_info(model)
    assert isinstance(info, msgspec.inspect.StructType)
    return {f.encode_name: None for f in info.fields if not f.required}


def same(obj: dict[str, Any]) -> dict[str, Any]:
    """``obj`` without the keys that two objects made from one body cannot share."""
    return {k: v for k, v in obj.items() if k not in OWN}


async def post(http, gw, path: str, body: Any) -> dict[str, Any]:
    response = await http.post(path, json=body, headers=gw)
    assert response.status_code in (200, 201), response.text
    created: dict[str, Any] = response.json()
    return created


# -- null means absent -----------------------------------------------------------------------


async def test_an_official_sdk_purchase_body_with_nulls(http, merchant, gw):
    """An official SDK's body (cc, bcc, reference, success_callback... null) is a purchase."""
    body = purchase_body(
        merchant,
        client={"email": "payer@example.com", "cc": None, "bcc": None, "phone": None},
        reference=None,
        success_callback=None,
        success_redirect=None,
        failure_redirect=None,
        due=None,
        client_id=None,
        creator_agent=None,
        platform=None,
    )
    p = await post(http, gw, PURCHASES, body)
    assert (p["client"]["cc"], p["client"]["bcc"], p["client"]["phone"]) == ([], [], "")
    assert (p["reference"], p["success_callback"], p["success_redirect"]) == ("", "", "")
    assert (p["platform"], p["due"]) == ("api", EPOCH_S + 3600)


async def test_every_optional_purchase_field_may_be_null(http, merchant, gw):
    """Null on every optional field of the body, its purchase, products and client: the same
    purchase as a body without them."""
    plain = await post(http, gw, PURCHASES, purchase_body(merchant))
    body = {
        **nulls(PurchaseInput),
        "brand_id": merchant["brand_id"],
        "client": {**nulls(ClientInput), "email": "payer@example.com", "country": "ZA"},
        "purchase": {
            **nulls(DetailsInput),
            "currency": "ZAR",
            "products": [{**nulls(ProductInput), "name": "Widget", "price": 1000}],
        },
    }
    assert same(await post(http, gw, PURCHASES, body)) == same(plain)


async def test_every_optional_client_field_may_be_null(http, gw):
    """POST /clients/ with null optional fields; a PATCH of nulls changes nothing."""
    plain = await post(http, gw, "/api/v1/clients/", {"email": "a@example.com"})
    client = await post(
        http, gw, "/api/v1/clients/", {**nulls(ClientInput), "email": "b@example.com"}
    )
    assert {**same(client), "email": "a@example.com"} == same(plain)
    full = await post(
        http, gw, "/api/v1/clients/", {"email": "c@example.com", "phone": "+27821234567"}
    )
    response = await http.patch(
        f"/api/v1/clients/{full['id']}/",
        json={**nulls(ClientInput), "email": "c@example.com"},
        headers=gw,
    )
    assert response.status_code == 200
    assert response.json() == full


async def test_every_optional_payout_field_may_be_null(http, merchant, gw):
    client, payment = {"email": "payee@example.com"}, {"amount": 1500, "currency": "ZAR"}
    plain = await post(
        http,
        gw,
        "/api/v1/payouts/",
        {"client": client, "payment": payment, "brand_id": merchant["brand_id"]},
    )
    body = {
        **nulls(PayoutInput),
        "client": {**nulls(ClientInput), **client},
        "payment": {**nulls(PaymentInput), **payment},
        "brand_id": merchant["brand_id"],
    }
    payout = await post(http, gw, "/api/v1/payouts/", body)
    assert same(payout) == same(plain)
    assert (payout["reference"], payout["payment"]["description"]) == ("", "")


async def test_every_optional_webhook_field_may_be_null(http, gw):
    """POST /webhooks/ with null optional fields; a PATCH of nulls changes nothing."""
    body = {"title": "Shop", "callback": "https://shop.example/hook", "all_events": True}
    webhook = await post(http, gw, "/api/v1/webhooks/", {**nulls(WebhookInput), **body})
    assert (bool(webhook["events"]), webhook["all_events"]) == (True, True)  # every event
    response = await http.patch(
        f"/api/v1/webhooks/{webhook['id']}/", json=nulls(WebhookInput), headers=gw
    )
    assert response.status_code == 200
    assert response.json() == webhook


async def test_every_optional_billing_field_may_be_null(http, merchant, gw):
    """Templates (and their purchase), subscribers and /billing/ take null optional fields."""
    plain = await post(http, gw, TEMPLATES, template_body(merchant))
    body = {**nulls(TemplateInput), **template_body(merchant)}
    body["purchase"] = {**nulls(DetailsInput), **body["purchase"]}
    template = await post(http, gw, TEMPLATES, body)
    assert same(template) == same(plain)
    client_id = await add_client(http, gw)
    added = await post(
        http,
        gw,
        f"{TEMPLATES}{template['id']}/add_subscriber/",
        {**nulls(SubscriberInput), "client_id": client_id},
    )
    subscriber = added["billing_template_client"]
    assert (subscriber["status"], subscriber["invoice_reference"]) == ("pending", None)
    assert subscriber["send_receipt"] is True
    one_off = template_body(merchant, subscription=False)
    entry = {**nulls(SubscriberInput), "client_id": client_id}
    ids = await post(http, gw, "/api/v1/billing/", {**one_off, "clients": [entry]})
    assert len(ids) == 1


@pytest.mark.parametrize(
    ("path", "body", "field"),
    [
        pytest.param(PURCHASES, {"brand_id": None}, "brand_id", id="purchase-brand_id"),
        pytest.param(PURCHASES, {"purchase": None}, "purchase", id="purchase-purchase"),
        pytest.param(PURCHASES, {"purchase": {"products": None}}, "purchase.products", id="products"),
        pytest.param(PURCHASES, {"purchase": {"products": [{"name": None, "price": 1}]}}, "purchase.products.0.name", id="product-name"),
        pytest.param(PURCHASES, {"client": {"email": None}}, "client.email", id="purchase-client-email"),
        pytest.param("/api/v1/clients/", {"email": None}, "email", id="client-email"),
        pytest.param("/api/v1/payouts/", {"payment": None}, "payment", id="payout-payment"),
        pytest.param("/api/v1/webhooks/", {"title": "T", "callback": None, "all_events": True}, "callback", id="webhook-callback"),
        pytest.param(TEMPLATES, {"brand_id": None}, "brand_id", id="template-brand_id"),
    ],
)  # fmt: skip
async def test_a_required_field_given_as_null_is_missing(http, merchant, gw, path, body, field):
    """Null on a required field is the spec's 400 required, naming the field."""
    base: dict[str, Any] = {}
    if path == PURCHASES:
        base = purchase_body(merchant)
    elif path == TEMPLATES:
        base = template_body(merchant)
    elif path == "/api/v1/payouts/":
        base = {"client": {"email": "payee@example.com"}, "brand_id": merchant["brand_id"]}
    response = await http.post(path, json={**base, **body}, headers=gw)
    assert response.status_code == 400
    assert response.json() == {field: REQUIRED}


async def test_a_charge_with_a_null_token_is_still_refused(http, merchant, gw):
    """recurring_token is required by charge: null stays invalid_recurring_token."""
    p = await post(http, gw, PURCHASES, purchase_body(merchant))
    response = await http.post(
        f"{PURCHASES}{p['id']}/charge/", json={"recurring_token": None}, headers=gw
    )
    assert response.status_code == 400
    assert response.json() == {
        "recurring_token": {
            "message": "Invalid recurring token.",
            "code": "invalid_recurring_token",
        }
    }


async def test_null_where_the_field_itself_takes_null_sets_it(http, merchant, gw):
    """A subscriber's invoice_reference (nullable on the object): a PATCH of null clears it."""
    template = await post(http, gw, TEMPLATES, template_body(merchant))
    client_id = await add_client(http, gw)
    added = await post(
        http,
        gw,
        f"{TEMPLATES}{template['id']}/add_subscriber/",
        {"client_id": client_id, "invoice_reference": "SUB-1"},
    )
    path = f"{TEMPLATES}{template['id']}/clients/{added['billing_template_client']['id']}/"
    response = await http.patch(path, json={"invoice_reference": None}, headers=gw)
    assert response.status_code == 200
    assert response.json()["invoice_reference"] is None


# -- reference as a number, platform as any short string -------------------------------------


async def test_a_plugin_purchase_with_an_integer_reference(http, merchant, gw, runtime):
    """An e-commerce plugin's body: its order id as a number, its own platform name."""
    body = purchase_body(
        merchant,
        reference=1234,
        platform="woocommerce",
        creator_agent="WooCommerce: 1.6.0",
        success_callback="https://shop.example/?wc-api=wc_gateway&id=1234",
        cancel_redirect=None,
        due=EPOCH_S + 7200,
        purchase={
            "currency": "ZAR",
            "timezone": "Africa/Johannesburg",
            "due_strict": False,
            "total_override": 1500,
            "products": [{"name": "Order #1234", "price": 1500, "quantity": "1"}],
        },
    )
    p = await post(http, gw, PURCHASES, body)
    assert (p["reference"], p["platform"]) == ("1234", "woocommerce")
    assert (await get(http, gw, p["id"]))["reference"] == "1234"
    [(kind, payload)] = await events(runtime, p["id"])
    assert (kind, payload["reference"]) == ("purchase.created", "1234")


@pytest.mark.parametrize("platform", ["woocommerce", "woocommerce_subscriptions", "p" * 64])
async def test_platform_is_any_short_string(http, merchant, gw, platform):
    p = await post(http, gw, PURCHASES, purchase_body(merchant, platform=platform))
    assert p["platform"] == platform


@pytest.mark.parametrize(
    ("reference", "message"),
    [
        pytest.param(12.5, "Expected `str`, got `float`.", id="float"),
        pytest.param(True, "Expected `str`, got `bool`.", id="bool"),
    ],
)
async def test_only_an_integer_reference_is_taken_as_text(http, merchant, gw, reference, message):
    body = purchase_body(merchant, reference=reference)
    response = await http.post(PURCHASES, json=body, headers=gw)
    assert response.status_code == 400
    assert response.json() == {"reference": {"message": message, "code": "invalid"}}


async def test_integer_references_of_payouts_and_invoices(http, merchant, gw):
    """Payout reference and a subscriber's invoice_reference take an integer as its string."""
    payout = await post(
        http,
        gw,
        "/api/v1/payouts/",
        {
            "client": {"email": "payee@example.com"},
            "payment": {"amount": 1500, "currency": "ZAR"},
            "brand_id": merchant["brand_id"],
            "reference": 987,
        },
    )
    assert payout["reference"] == "987"
    one_off = await post(http, gw, TEMPLATES, template_body(merchant, subscription=False))
    client_id = await add_client(http, gw)
    invoice = await post(
        http,
        gw,
        f"{TEMPLATES}{one_off['id']}/send_invoice/",
        {"client_id": client_id, "invoice_reference": 42},
    )
    assert invoice["reference"] == "42"


@pytest.mark.parametrize(
    ("client", "field", "message"),
    [
        pytest.param({"phone": "0821234567"}, "client.phone", "Enter a valid phone number in E.164 format, e.g. +27821234567.", id="phone"),
        pytest.param({"country": "ZAF"}, "client.country", "'ZAF' is not a valid ISO 3166-1 alpha-2 country code.", id="country"),
    ],
)  # fmt: skip
async def test_the_spec_still_wins_over_a_client(http, merchant, gw, client, field, message):
    """Phone E.164 and ISO country stay rules, whatever a plugin sends."""
    body = purchase_body(merchant, client={"email": "payer@example.com", **client})
    response = await http.post(PURCHASES, json=body, headers=gw)
    assert response.status_code == 400
    assert response.json() == {field: {"message": message, "code": "invalid"}}
