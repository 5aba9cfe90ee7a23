"""Gateway purchases through HTTP: create, read, validation, and the merchant's actions."""

from __future__ import annotations

from typing import Any

import pytest

from tests.conftest import EPOCH_S
from tests.http.purchase_helpers import create, events, get, pay, purchase_body, statuses

# The keys of the provider's purchase.paid webhook body (reference/gateway-webhook-samples),
# event_type aside (delivery adds it), plus the spec's refunded_amount.
PURCHASE_KEYS = {
    "billing_template_id", "brand_id", "can_chargeback", "can_retrieve", "cancel_redirect",
    "checkout_url", "client", "client_id", "company_id", "created_from_ip", "created_on",
    "creator_agent", "currency_conversion", "direct_post_url", "due", "failure_redirect",
    "force_recurring", "id", "invoice_url", "is_recurring_token", "is_test", "issued",
    "issuer_details", "marked_as_paid", "order_id", "payment", "payment_method_whitelist",
    "platform", "product", "purchase", "recurring_token", "reference", "reference_generated",
    "referral_campaign_id", "referral_code", "referral_code_details", "referral_code_generated",
    "refund_availability", "refundable_amount", "refunded_amount", "retain_level_details",
    "send_receipt", "skip_capture", "status", "status_history", "success_callback",
    "success_redirect", "transaction_data", "type", "updated_on", "upsell_campaigns", "user_id",
    "viewed_on",
}  # fmt: skip
PAYMENT_DETAILS_KEYS = {
    "amount", "currency", "description", "fee_amount", "is_outgoing", "net_amount",
    "owned_bank_account", "owned_bank_account_id", "owned_bank_code", "paid_on", "payment_type",
    "pending_amount", "pending_unfreeze_on", "remote_paid_on",
}  # fmt: skip


async def test_create_returns_the_whole_purchase(http, merchant, gw):
    """POST /purchases/ answers 201 with every field of the provider's Purchase."""
    p = await create(
        http, gw, merchant, reference="ORDER-1", success_callback="https://m.example/cb"
    )
    pid = p["id"]
    assert p["status"] == "created"
    assert p["type"] == "purchase"
    assert p["payment"] is None
    assert p["client"]["email"] == "payer@example.com"
    assert p["client_id"] is not None
    assert p["purchase"]["total"] == 1000
    assert p["purchase"]["products"] == [
        {"name": "Widget", "price": 1000, "quantity": "1.0000", "discount": 0,
         "tax_percent": "0.00", "category": ""}
    ]  # fmt: skip
    assert p["status_history"] == [{"status": "created", "timestamp": EPOCH_S}]
    assert p["transaction_data"] == {
        "flow": "payform", "payment_method": "", "extra": {}, "country": "", "attempts": []
    }  # fmt: skip
    assert p["checkout_url"] == f"http://emulator/p/{pid}/"
    assert p["direct_post_url"] == f"http://emulator/p/{pid}/direct_post/"
    assert p["due"] == EPOCH_S + 3600
    assert p["issued"] == "2026-01-05"
    assert p["is_test"] is True
    assert p["company_id"] == merchant["company_id"]
    assert p["reference"] == "ORDER-1"
    assert p["reference_generated"].startswith("EM")
    assert p["success_callback"] == "https://m.example/cb"
    assert p["refundable_amount"] == 0 and p["refund_availability"] == "none"
    assert p["is_recurring_token"] is False and p["recurring_token"] is None
    assert set(p) == PURCHASE_KEYS
    assert await get(http, gw, pid) == p
    assert [kind for kind, _ in await events(http._transport.app.state.runtime, pid)] == [
        "purchase.created"
    ]


async def test_the_created_event_is_the_purchase_as_answered_byte_for_byte(
    http, merchant, gw, runtime
):
    """purchase.created stores the purchase's JSON as stored and answered (the same bytes,
    not a second encoding of it): what its webhooks and the feeds carry."""
    response = await http.post("/api/v1/purchases/", json=purchase_body(merchant), headers=gw)
    assert response.status_code == 201
    pid = response.json()["id"]
    rows = await runtime.db.read(
        lambda tx: tx.all(
            "SELECT o.payload, p.data FROM outbox_events o JOIN purchases p ON p.id = o.object_id"
            " WHERE o.object_id = ? AND o.event_type = 'purchase.created'",
            (pid,),
        )
    )
    assert [(bytes(r[0]), bytes(r[1])) for r in rows] == [(response.content, response.content)]


async def test_total_is_computed_from_products(http, merchant, gw):
    """The total is quantities, discounts, tax and debt; total_override wins."""
    products = [
        {"name": "A", "price": 1000, "quantity": 2, "discount": 100},
        {"name": "B", "price": 500, "tax_percent": 15},
    ]
    p = await create(http, gw, merchant, purchase={"products": products, "debt": 25})
    assert p["purchase"]["total"] == 1900 + 575 + 25
    assert p["purchase"]["currency"] == "ZAR"
    p = await create(http, gw, merchant, purchase={"products": products, "total_override": 7})
    assert p["purchase"]["total"] == 7


async def test_client_id_copies_the_client_and_email_reuses_it(http, merchant, gw):
    """client_id uses the stored client; an email of an existing client links to it."""
    made = await http.post(
        "/api/v1/clients/", json={"email": "known@example.com", "full_name": "Known"}, headers=gw
    )
    client = made.json()
    p = await create(http, gw, merchant, client=None, client_id=client["id"])
    assert p["client_id"] == client["id"]
    assert p["client"]["full_name"] == "Known"
    p2 = await create(http, gw, merchant, client={"email": "KNOWN@example.com"})
    assert p2["client_id"] == client["id"]
    feed = (await http.get(f"/api/v1/clients/{client['id']}/feed/", headers=gw)).json()
    assert [e["event_type"] for e in feed["results"]][:2] == [
        "purchase.created",
        "purchase.created",
    ]


def _products(**item: Any) -> dict[str, Any]:
    return {"products": [{"name": "Widget", "price": 100, **item}]}


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        pytest.param({"reference": "r" * 129}, {"reference": ("max_length", "Ensure this field has no more than 128 characters.")}, id="reference"),
        pytest.param({"purchase": _products(name="n" * 257)}, {"purchase.products.0.name": ("max_length", "Ensure this field has no more than 256 characters.")}, id="product-name"),
        pytest.param({"purchase": _products(price=-1)}, {"purchase.products.0.price": ("min_value", "Ensure this value is greater than or equal to 0.")}, id="price-negative"),
        pytest.param({"purchase": _products(price=10_000_000_000)}, {"purchase.products.0.price": ("max_value", "Ensure this value is less than or equal to 9,999,999,999.")}, id="price-too-big"),
        pytest.param({"purchase": {**_products(), "total_override": 10**15}}, {"purchase.total_override": ("max_value", "Ensure this value is less than or equal to 999,999,999,999,999.")}, id="total-override"),
        pytest.param({"purchase": {**_products(), "total_override": -1}}, {"purchase.total_override": ("min_value", "Ensure this value is greater than or equal to 0.")}, id="total-override-negative"),
        pytest.param({"success_redirect": "https://x.example/" + "a" * 490}, {"success_redirect": ("max_length", "Ensure this field has no more than 500 characters.")}, id="success-redirect"),
        pytest.param({"success_callback": "not a url"}, {"success_callback": ("invalid", "Enter a valid URL.")}, id="callback-url"),
        pytest.param({"purchase": {**_products(), "currency": "XXY"}}, {"purchase.currency": ("invalid", "'XXY' is not a valid ISO 4217 currency code.")}, id="currency"),
        pytest.param({"client": {"email": "nope"}}, {"client.email": ("invalid", "Enter a valid email address.")}, id="email"),
        pytest.param({"client": None}, {"client": ("required", "This field is required.")}, id="no-client"),
        pytest.param({"purchase": {"products": []}}, {"purchase.products": ("invalid", "At least one product is required.")}, id="no-products"),
        pytest.param({"brand_id": "nope"}, {"brand_id": ("invalid_uuid", "'nope' is not a valid UUID.")}, id="brand-uuid"),
        pytest.param({"brand_id": "00000000-0000-4000-8000-000000000000"}, {"brand_id": ("invalid", "No brand with this id.")}, id="brand-unknown"),
        pytest.param({"purchase": {"products": [{"name": "W", "price": 9_999_999_999, "quantity": 200_000}]}}, {"purchase.total": ("max_value", "Ensure this value is less than or equal to 999,999,999,999,999.")}, id="total-too-big"),
        pytest.param({"purchase": _products(price=0)}, {"purchase.total": ("invalid_amount", "A zero total needs skip_capture.")}, id="zero-total"),
        pytest.param({"payment_method_whitelist": ["paypal"]}, {"payment_method_whitelist": ("payment_method_not_available", "'paypal' is not an available payment method.")}, id="whitelist"),
        pytest.param({"purchase": {"products": "x"}}, {"purchase.products": ("invalid", "Expected `array`, got `str`.")}, id="wrong-type"),
        pytest.param({"platform": "p" * 65}, {"platform": ("max_length", "Ensure this field has no more than 64 characters.")}, id="platform-too-long"),
        pytest.param({"platform": ""}, {"platform": ("invalid", "This field may not be blank.")}, id="platform-blank"),
        pytest.param({"platform": 7}, {"platform": ("invalid", "Expected `str`, got `int`.")}, id="platform-not-a-string"),
    ],
)  # fmt: skip
async def test_create_validation(http, merchant, gw, fields, expected):
    """Each limit of the spec answers 400 with the gateway's field error."""
    body = purchase_body(merchant, **fields)
    body = {k: v for k, v in body.items() if v is not None}
    response = await http.post("/api/v1/purchases/", json=body, headers=gw)
    assert response.status_code == 400
    assert response.json() == {f: {"message": m, "code": c} for f, (c, m) in expected.items()}


async def test_unknown_client_id_is_client_not_found(http, merchant, gw):
    body = purchase_body(merchant, client_id="00000000-0000-4000-8000-000000000000")
    del body["client"]
    response = await http.post("/api/v1/purchases/", json=body, headers=gw)
    assert response.status_code == 404
    assert response.json() == {
        "client_id": {"message": "No such object", "code": "client_not_found"}
    }


async def test_another_merchants_purchase_is_not_found(http, merchant, gw):
    """Purchases are per merchant: another's id is purchase_not_found."""
    other = (await http.post("/_emulator/merchants")).json()
    p = await create(http, {"Authorization": f"Bearer {other['api_key']}"}, other)
    response = await http.get(f"/api/v1/purchases/{p['id']}/", headers=gw)
    assert response.status_code == 404
    assert response.json() == {
        "__all__": {"message": "No such object", "code": "purchase_not_found"}
    }


async def test_cancel(http, merchant, gw, runtime):
    """created → cancelled; paying it then is purchase_cancelled."""
    p = await create(http, gw, merchant)
    response = await http.post(f"/api/v1/purchases/{p['id']}/cancel/", headers=gw)
    assert response.status_code == 200
    assert response.json()["status"] == "cancelled"
    assert statuses(response.json()) == ["created", "cancelled"]
    paid = await pay(http, p["id"])
    assert paid.status_code == 409
    assert paid.json()["error"]["code"] == "purchase_cancelled"
    again = await http.post(f"/api/v1/purchases/{p['id']}/cancel/", headers=gw)
    assert again.status_code == 409
    assert again.json() == {
        "__all__": {"message": "Purchase has been cancelled.", "code": "purchase_cancelled"}
    }
    kinds = [kind for kind, _ in await events(runtime, p["id"])]
    assert kinds == ["purchase.created", "purchase.cancelled"]


async def test_hold_then_full_capture(http, merchant, gw, runtime):
    """skip_capture: paying places a hold; capture takes the total → paid, purchase.captured."""
    p = await create(http, gw, merchant, skip_capture=True)
    held = (await pay(http, p["id"])).json()
    assert held["status"] == "hold"
    assert held["payment"] is None
    assert held["transaction_data"]["attempts"][0]["type"] == "authorize"
    response = await http.post(f"/api/v1/purchases/{p['id']}/capture/", headers=gw)
    assert response.status_code == 200
    captured = response.json()
    assert captured["status"] == "paid"
    assert captured["payment"]["amount"] == 1000
    assert [a["type"] for a in captured["transaction_data"]["attempts"]] == ["capture", "authorize"]
    kinds = [kind for kind, _ in await events(runtime, p["id"])]
    assert kinds == ["purchase.created", "purchase.hold", "purchase.captured"]
    _, payload = (await events(runtime, p["id"]))[-1]
    assert payload == captured  # the event carries the whole purchase as GET shows it


async def test_partial_capture_releases_the_rest(http, merchant, gw):
    """A capture of part of the total takes that amount; the balance shows only it."""
    p = await create(http, gw, merchant, skip_capture=True)
    await pay(http, p["id"])
    response = await http.post(
        f"/api/v1/purchases/{p['id']}/capture/", json={"amount": 400}, headers=gw
    )
    assert response.json()["payment"]["amount"] == 400
    assert response.json()["refundable_amount"] == 400
    balance = (await http.get("/api/v1/account/json/balance/", headers=gw)).json()
    assert balance["ZAR"]["balance"] == 400


@pytest.mark.parametrize("amount", [0, -5, 1001])
async def test_capture_invalid_amount(http, merchant, gw, amount):
    p = await create(http, gw, merchant, skip_capture=True)
    await pay(http, p["id"])
    response = await http.post(
        f"/api/v1/purchases/{p['id']}/capture/", json={"amount": amount}, headers=gw
    )
    assert response.status_code == 400
    assert response.json() == {
        "amount": {"message": "Amount must be between 1 and 1000.", "code": "invalid_amount"}
    }


async def test_capture_not_allowed(http, merchant, gw):
    """Without skip_capture, or not in hold: 409 capture_not_allowed."""
    plain = await create(http, gw, merchant)
    await pay(http, plain["id"])
    held_unpaid = await create(http, gw, merchant, skip_capture=True)
    for pid in (plain["id"], held_unpaid["id"]):
        response = await http.post(f"/api/v1/purchases/{pid}/capture/", headers=gw)
        assert response.status_code == 409
        assert response.json() == {
            "__all__": {
                "message": "Capture is not allowed for this purchase.",
                "code": "capture_not_allowed",
            }
        }


async def test_slow_capture_is_pending_then_paid_ten_minutes_later(http, merchant, gw, runtime):
    """Test card ...0259: capture → pending_capture; 10 minutes later paid (purchase.captured)."""
    p = await create(http, gw, merchant, skip_capture=True)
    await pay(http, p["id"], card_number="4000000000000259")
    response = await http.post(
        f"/api/v1/purchases/{p['id']}/capture/", json={"amount": 600}, headers=gw
    )
    assert response.status_code == 200
    assert response.json()["status"] == "pending_capture"
    assert response.json()["payment"] is None  # as the provider's pending_capture event
    await http.post("/_emulator/clock/advance", json={"seconds": 599})
    assert (await get(http, gw, p["id"]))["status"] == "pending_capture"
    await http.post("/_emulator/clock/advance", json={"seconds": 1})
    done = await get(http, gw, p["id"])
    assert done["status"] == "paid" and done["payment"]["amount"] == 600  # the partial capture
    assert statuses(done) == ["created", "hold", "pending_capture", "paid"]
    kinds = [kind for kind, _ in await events(runtime, p["id"])]
    assert kinds == [
        "purchase.created",
        "purchase.hold",
        "purchase.pending_capture",
        "purchase.captured",
    ]


async def test_release(http, merchant, gw, runtime):
    """hold → released (purchase.released); releasing a paid purchase is capture_not_allowed."""
    p = await create(http, gw, merchant, skip_capture=True)
    await pay(http, p["id"])
    response = await http.post(f"/api/v1/purchases/{p['id']}/release/", headers=gw)
    assert response.status_code == 200
    assert response.json()["status"] == "released"
    assert response.json()["transaction_data"]["attempts"][0]["type"] == "release"
    again = await http.post(f"/api/v1/purchases/{p['id']}/release/", headers=gw)
    assert again.status_code == 409
    assert again.json()["__all__"]["code"] == "capture_not_allowed"
    assert [k for k, _ in await events(runtime, p["id"])][-1] == "purchase.released"


async def test_mark_as_paid(http, merchant, gw):
    """mark_as_paid: paid, marked_as_paid, paid_on as given; no money in the balance."""
    p = await create(http, gw, merchant)
    response = await http.post(
        f"/api/v1/purchases/{p['id']}/mark_as_paid/", json={"paid_on": EPOCH_S - 60}, headers=gw
    )
    body = response.json()
    assert response.status_code == 200
    assert body["status"] == "paid" and body["marked_as_paid"] is True
    assert body["payment"]["paid_on"] == EPOCH_S - 60
    assert (await http.get("/api/v1/account/json/balance/", headers=gw)).json() == {}
    again = await http.post(f"/api/v1/purchases/{p['id']}/mark_as_paid/", headers=gw)
    assert again.status_code == 409
    assert again.json()["__all__"]["code"] == "purchase_already_paid"


async def test_paying_a_paid_purchase_is_already_paid(http, merchant, gw):
    p = await create(http, gw, merchant)
    assert (await pay(http, p["id"])).status_code == 200
    again = await pay(http, p["id"])
    assert again.status_code == 409
    assert again.json() == {
        "error": {"code": "purchase_already_paid", "message": "Purchase has already been paid."}
    }


async def test_an_uncaptured_hold_is_released_after_seven_days(http, merchant, gw, runtime):
    """The authorisation lapses: released (purchase.released); capture is then not allowed."""
    p = await create(http, gw, merchant, skip_capture=True)
    await pay(http, p["id"])
    await http.post("/_emulator/clock/advance", json={"seconds": 7 * 86400 - 1})
    assert (await get(http, gw, p["id"]))["status"] == "hold"
    await http.post("/_emulator/clock/advance", json={"seconds": 1})
    assert (await get(http, gw, p["id"]))["status"] == "released"
    response = await http.post(f"/api/v1/purchases/{p['id']}/capture/", headers=gw)
    assert response.status_code == 409
    assert response.json()["__all__"]["code"] == "capture_not_allowed"
    assert [k for k, _ in await events(runtime, p["id"])][-1] == "purchase.released"


async def test_quantity_and_tax_percent_as_the_decimal_strings_the_api_returns(http, merchant, gw):
    product = {"name": "Widget", "price": 1000, "quantity": "2.0000", "tax_percent": "15.00"}
    created = await http.post(
        "/api/v1/purchases/",
        json={"client": {"email": "d@example.com"}, "brand_id": merchant["brand_id"],
              "purchase": {"products": [product]}},
        headers=gw,
    )  # fmt: skip
    assert created.status_code == 201, created.text
    body = created.json()["purchase"]
    assert body["total"] == 2300
    assert (body["products"][0]["quantity"], body["products"][0]["tax_percent"]) == (
        "2.0000",
        "15.00",
    )
    bad = await http.post(
        "/api/v1/purchases/",
        json={"client": {"email": "d@example.com"}, "brand_id": merchant["brand_id"],
              "purchase": {"products": [{**product, "quantity": "two"}]}},
        headers=gw,
    )  # fmt: skip
    assert bad.status_code == 400
    assert bad.json()["purchase.products.0.quantity"]["code"] == "invalid"
