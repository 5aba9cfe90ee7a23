"""Billing templates through HTTP: CRUD and validation, send_invoice and POST /billing/."""

from __future__ import annotations

from typing import Any

import pytest

from tests.conftest import EPOCH_S
from tests.http.billing_helpers import (
    REQUIRED,
    TEMPLATE_KEYS,
    TEMPLATES,
    TOO_LONG_128,
    UNKNOWN,
    add_client,
    assert_error,
    codes,
    create_template,
    pick,
    template_body,
)
from tests.http.purchase_helpers import advance, create, get, pay, statuses
from tests.http.test_purchases import PURCHASE_KEYS

NOT_FOUND = {"__all__": {"message": "No such object", "code": "billing_template_not_found"}}


async def test_create_returns_the_whole_template_with_its_defaults(http, merchant, gw):
    t = await create_template(http, gw, merchant)
    assert set(t) == TEMPLATE_KEYS
    expected = {
        "type": "billing_template", "created_on": EPOCH_S, "updated_on": EPOCH_S,
        "is_subscription": True, "title": "", "is_test": True, "user_id": None,
        "brand_id": merchant["brand_id"], "company_id": merchant["company_id"],
        "invoice_due": None, "invoice_issued": None, "invoice_send_receipt": True,
        "invoice_skip_capture": False, "force_recurring": False, "upsell_campaigns": [],
        "referral_campaign_id": None, "subscription_active": True, "subscription_period": 1,
        "subscription_period_units": "months", "subscription_due_period": 7,
        "subscription_due_period_units": "days", "subscription_charge_period_end": False,
        "subscription_trial_periods": 0, "number_of_billing_cycles": 0,
        "subscription_has_active_clients": False,
    }  # fmt: skip
    assert pick(t, expected) == expected
    response = await http.get(f"{TEMPLATES}{t['id']}/", headers=gw)
    assert response.status_code == 200
    assert response.json() == t


async def test_purchase_details_are_shown_as_purchases_show_them(http, merchant, gw):
    """The template's `purchase` is the PurchaseDetails object of a purchase with the same input."""
    details = {
        "currency": "ZAR",
        "timezone": "Africa/Johannesburg",
        "products": [{"name": "Plan", "price": 1000, "quantity": 2, "tax_percent": 15}],
    }
    t = await create_template(http, gw, merchant, purchase=details)
    p = await create(http, gw, merchant, purchase=details)
    assert t["purchase"] == p["purchase"]
    assert t["purchase"]["total"] == 2300
    assert t["purchase"]["products"][0]["quantity"] == "2.0000"
    assert t["purchase"]["products"][0]["tax_percent"] == "15.00"
    assert (await create_template(http, gw, merchant))["purchase"]["timezone"] == "UTC"


async def test_one_off_template_keeps_its_invoice_fields(http, merchant, gw):
    fields = {"title": "Once", "invoice_issued": "2026-02-01", "invoice_send_receipt": False,
              "invoice_skip_capture": True, "force_recurring": True}  # fmt: skip
    t = await create_template(http, gw, merchant, subscription=False, **fields)
    assert pick(t, fields) == fields
    assert (t["is_subscription"], t["invoice_due"]) == (False, EPOCH_S + 86400)


async def test_subscription_ignores_the_invoice_fields(http, merchant, gw):
    """invoice_due, invoice_issued, invoice_send_receipt, invoice_skip_capture are read-only."""
    given = {"invoice_due": EPOCH_S, "invoice_issued": "2026-02-01",
             "invoice_send_receipt": False, "invoice_skip_capture": True}  # fmt: skip
    t = await create_template(http, gw, merchant, **given)
    assert pick(t, given) == dict(zip(given, [None, None, True, False], strict=True))


@pytest.mark.parametrize("field", ["purchase", "is_subscription", "brand_id"])
async def test_post_requires_purchase_is_subscription_and_brand_id(http, merchant, gw, field):
    body = template_body(merchant, subscription=False)
    del body[field]
    response = await http.post(TEMPLATES, json=body, headers=gw)
    assert response.status_code == 400
    assert response.json() == {field: {"message": REQUIRED, "code": "required"}}


async def test_one_off_template_requires_invoice_due(http, merchant, gw):
    body = template_body(merchant, subscription=False)
    del body["invoice_due"]
    response = await http.post(TEMPLATES, json=body, headers=gw)
    assert response.json() == {"invoice_due": {"message": REQUIRED, "code": "required"}}


def _over(high: str) -> str:
    return f"Ensure this value is less than or equal to {high}."


def _under(low: int) -> str:
    return f"Ensure this value is greater than or equal to {low}."


BAD_FIELDS = [
    ({"brand_id": "nope"}, "brand_id", "invalid_uuid", "'nope' is not a valid UUID."),
    ({"brand_id": UNKNOWN}, "brand_id", "invalid", None),
    ({"purchase": {"products": [{"name": "P", "price": 1}], "timezone": "Mars/Base"}},
     "purchase.timezone", "invalid", None),
    ({"purchase": {"products": [{"name": "P", "price": -1}]}},
     "purchase.products.0.price", "min_value", _under(0)),
    ({"title": "t" * 257}, "title", "max_length",
     "Ensure this field has no more than 256 characters."),
    ({"is_subscription": "yes"}, "is_subscription", "invalid", None),
    ({"subscription_period": "1.5"}, "subscription_period", "invalid",
     "A valid integer is required."),  # "1" is 1, as DRF reads it
    ({"subscription_period_units": "years"}, "subscription_period_units", "invalid", None),
    ({"subscription_due_period_units": "hours"}, "subscription_due_period_units", "invalid", None),
    ({"subscription_period": 0}, "subscription_period", "min_value", _under(1)),
    ({"subscription_period": 257}, "subscription_period", "max_value", _over("256")),
    ({"subscription_due_period": 0}, "subscription_due_period", "min_value", _under(1)),
    ({"subscription_due_period": 257}, "subscription_due_period", "max_value", _over("256")),
    ({"subscription_trial_periods": -1}, "subscription_trial_periods", "min_value", _under(0)),
    ({"subscription_trial_periods": 257}, "subscription_trial_periods", "max_value", _over("256")),
    ({"number_of_billing_cycles": -1}, "number_of_billing_cycles", "min_value", _under(0)),
    ({"number_of_billing_cycles": 1_000_001}, "number_of_billing_cycles", "max_value",
     _over("1,000,000")),
]  # fmt: skip


@pytest.mark.parametrize(("fields", "field", "code", "message"), BAD_FIELDS)
async def test_invalid_field_is_a_400_on_that_field(
    http, merchant, gw, fields, field, code, message
):
    response = await http.post(TEMPLATES, json=template_body(merchant, **fields), headers=gw)
    assert_error(response, 400, field, code, message)


async def test_one_off_invoice_issued_must_be_a_real_date(http, merchant, gw):
    body = template_body(merchant, subscription=False, invoice_issued="2026-02-30")
    assert_error(
        await http.post(TEMPLATES, json=body, headers=gw), 400, "invoice_issued", "invalid"
    )


async def test_limits_are_accepted_and_unknown_fields_ignored(http, merchant, gw):
    fields = {"subscription_period": 256, "subscription_period_units": "weeks",
              "subscription_trial_periods": 256, "number_of_billing_cycles": 1_000_000}  # fmt: skip
    t = await create_template(http, gw, merchant, bogus=1, **fields)
    assert set(t) == TEMPLATE_KEYS
    assert pick(t, fields) == fields


async def test_list_is_newest_first_and_the_merchants_own(http, merchant, gw):
    other = (await http.post("/_emulator/merchants")).json()
    await create_template(http, {"Authorization": f"Bearer {other['api_key']}"}, other)
    first = await create_template(http, gw, merchant, title="first")
    second = await create_template(http, gw, merchant, title="second")
    response = await http.get(TEMPLATES, headers=gw)
    assert response.status_code == 200
    assert response.json() == {"results": [second, first], "next": None, "previous": None}


async def test_unknown_and_other_merchants_templates_are_404(http, merchant, gw):
    other = (await http.post("/_emulator/merchants")).json()
    theirs = await create_template(http, {"Authorization": f"Bearer {other['api_key']}"}, other)
    client_id = await add_client(http, gw)
    for template_id in (UNKNOWN, theirs["id"]):
        for method, suffix in [("GET", ""), ("PUT", ""), ("PATCH", ""), ("DELETE", ""),
                               ("POST", "send_invoice/"), ("POST", "add_subscriber/"),
                               ("GET", "clients/")]:  # fmt: skip
            body = {**template_body(merchant), "client_id": client_id}
            path = f"{TEMPLATES}{template_id}/{suffix}"
            response = await http.request(method, path, headers=gw, json=body)
            assert (response.status_code, response.json()) == (404, NOT_FOUND), (method, suffix)


async def test_a_template_id_that_is_not_a_uuid_is_invalid_uuid(http, gw):
    response = await http.get(f"{TEMPLATES}not-a-uuid/", headers=gw)
    assert_error(response, 400, "id", "invalid_uuid", "'not-a-uuid' is not a valid UUID.")


async def test_put_replaces_every_writable_field(http, merchant, gw):
    """Fields missing from the PUT body take their defaults again."""
    t = await create_template(http, gw, merchant, title="A", subscription_period=3,
                              subscription_trial_periods=2, force_recurring=True)  # fmt: skip
    await advance(http, 60)
    body = template_body(merchant, price=2500, title="B")
    response = await http.put(f"{TEMPLATES}{t['id']}/", json=body, headers=gw)
    assert response.status_code == 200
    new = response.json()
    expected = {"id": t["id"], "created_on": EPOCH_S, "updated_on": EPOCH_S + 60, "title": "B",
                "subscription_period": 1, "subscription_trial_periods": 0,
                "force_recurring": False}  # fmt: skip
    assert pick(new, expected) == expected and new["purchase"]["total"] == 2500
    assert (await http.get(f"{TEMPLATES}{t['id']}/", headers=gw)).json() == new


async def test_put_requires_purchase_is_subscription_and_brand_id(http, merchant, gw):
    t = await create_template(http, gw, merchant, subscription=False)
    for field in ("purchase", "is_subscription", "brand_id"):
        body = template_body(merchant, subscription=False, title="x")
        del body[field]
        response = await http.put(f"{TEMPLATES}{t['id']}/", json=body, headers=gw)
        assert response.status_code == 400
        assert response.json() == {field: {"message": REQUIRED, "code": "required"}}
    assert (await http.get(f"{TEMPLATES}{t['id']}/", headers=gw)).json() == t


async def test_patch_changes_only_the_given_fields(http, merchant, gw):
    t = await create_template(http, gw, merchant, title="A", subscription_period=3)
    await advance(http, 60)
    response = await http.patch(f"{TEMPLATES}{t['id']}/", json={"title": "B"}, headers=gw)
    assert response.status_code == 200
    assert response.json() == {**t, "title": "B", "updated_on": EPOCH_S + 60}


async def test_patch_validates_a_given_purchase_whole(http, merchant, gw):
    t = await create_template(http, gw, merchant)
    path = f"{TEMPLATES}{t['id']}/"
    response = await http.patch(path, json={"purchase": {"currency": "USD"}}, headers=gw)
    assert_error(response, 400, "purchase.products", "required", REQUIRED)
    bad = {"purchase": {"products": [{"name": "P", "price": -1}]}}
    response = await http.patch(path, json=bad, headers=gw)
    assert_error(response, 400, "purchase.products.0.price", "min_value", _under(0))
    response = await http.patch(path, json={"subscription_period_units": "years"}, headers=gw)
    assert_error(response, 400, "subscription_period_units", "invalid")
    assert (await http.get(path, headers=gw)).json() == t


@pytest.mark.parametrize("method", ["PUT", "PATCH"])
async def test_is_subscription_cannot_change(http, merchant, gw, method):
    t = await create_template(http, gw, merchant)
    body = template_body(merchant, subscription=False)
    response = await http.request(method, f"{TEMPLATES}{t['id']}/", json=body, headers=gw)
    assert_error(response, 400, "is_subscription", "invalid")
    same = await http.request(
        method, f"{TEMPLATES}{t['id']}/", json=template_body(merchant), headers=gw
    )
    assert same.status_code == 200


async def test_delete_is_204_then_404(http, merchant, gw):
    t = await create_template(http, gw, merchant)
    response = await http.delete(f"{TEMPLATES}{t['id']}/", headers=gw)
    assert (response.status_code, response.content) == (204, b"")
    for method in ("GET", "DELETE"):
        again = await http.request(method, f"{TEMPLATES}{t['id']}/", headers=gw)
        assert (again.status_code, again.json()) == (404, NOT_FOUND)
    assert (await http.get(TEMPLATES, headers=gw)).json()["results"] == []


async def invoice(http, gw, template_id: str, **fields: Any):
    return await http.post(f"{TEMPLATES}{template_id}/send_invoice/", json=fields, headers=gw)


async def test_send_invoice_makes_a_sent_purchase_from_the_template(http, merchant, gw):
    t = await create_template(http, gw, merchant, subscription=False, force_recurring=True,
                              invoice_issued="2026-01-10", invoice_send_receipt=False,
                              invoice_skip_capture=True)  # fmt: skip
    client_id = await add_client(http, gw)
    response = await invoice(http, gw, t["id"], client_id=client_id, invoice_reference="INV-7",
                             payment_method_whitelist=["visa"])  # fmt: skip
    assert response.status_code == 200
    p = response.json()
    assert set(p) == PURCHASE_KEYS
    assert statuses(p) == ["created", "sent"]
    expected = {"status": "sent", "product": "billing_invoices", "billing_template_id": t["id"],
                "client_id": client_id, "due": EPOCH_S + 86400, "issued": "2026-01-10",
                "reference": "INV-7", "send_receipt": False, "skip_capture": True,
                "force_recurring": True, "payment_method_whitelist": ["visa"],
                "purchase": t["purchase"]}  # fmt: skip
    assert pick(p, expected) == expected
    assert await get(http, gw, p["id"]) == p


async def test_send_invoice_defaults(http, merchant, gw):
    """issued is today in purchase.timezone (09:00Z is still the 4th in Honolulu)."""
    details = {"products": [{"name": "P", "price": 500}], "timezone": "Pacific/Honolulu"}
    t = await create_template(http, gw, merchant, subscription=False, purchase=details)
    p = (await invoice(http, gw, t["id"], client_id=await add_client(http, gw))).json()
    assert (p["issued"], p["reference"], p["payment_method_whitelist"]) == ("2026-01-04", "", None)
    assert (p["send_receipt"], p["skip_capture"], p["force_recurring"]) == (True, False, False)


async def test_send_invoice_errors(http, merchant, gw):
    one_off = await create_template(http, gw, merchant, subscription=False)
    response = await invoice(http, gw, one_off["id"])
    assert response.json() == {"client_id": {"message": REQUIRED, "code": "required"}}
    response = await invoice(http, gw, one_off["id"], client_id=UNKNOWN)
    assert_error(response, 404, "client_id", "client_not_found")
    client_id = await add_client(http, gw)
    response = await invoice(
        http, gw, one_off["id"], client_id=client_id, invoice_reference="r" * 129
    )
    assert_error(response, 400, "invoice_reference", "max_length", TOO_LONG_128)
    subscription = await create_template(http, gw, merchant)
    response = await invoice(http, gw, subscription["id"], client_id=client_id)
    assert codes(response) == (400, ["invalid"])


async def test_a_sent_invoice_is_viewed_on_checkout_and_payable(http, merchant, gw):
    t = await create_template(http, gw, merchant, subscription=False)
    p = (await invoice(http, gw, t["id"], client_id=await add_client(http, gw))).json()
    assert (await http.get(f"/p/{p['id']}/")).status_code == 200
    assert statuses(await get(http, gw, p["id"])) == ["created", "sent", "viewed"]
    paid = await pay(http, p["id"])
    assert paid.status_code == 200 and paid.json()["status"] == "paid"
    other = (await invoice(http, gw, t["id"], client_id=await add_client(http, gw))).json()
    assert (await pay(http, other["id"])).json()["status"] == "paid"


async def billing(http, gw, body: dict[str, Any]):
    return await http.post("/api/v1/billing/", json=body, headers=gw)


async def test_billing_sends_one_invoice_per_client_in_order(http, merchant, gw):
    a = await add_client(http, gw, "a@example.com")
    b = await add_client(http, gw, "b@example.com")
    body = template_body(merchant, subscription=False)
    del body["is_subscription"]
    body["clients"] = [{"client_id": b, "invoice_reference": "B-1"}, {"client_id": a}]
    response = await billing(http, gw, body)
    assert response.status_code == 200
    ids = response.json()
    assert isinstance(ids, list) and len(set(ids)) == 2
    made = [await get(http, gw, i) for i in ids]
    assert [(p["client_id"], p["reference"]) for p in made] == [(b, "B-1"), (a, "")]
    expected = {"status": "sent", "product": "billing_invoices", "billing_template_id": None,
                "due": EPOCH_S + 86400}  # fmt: skip
    for p in made:
        assert pick(p, expected) == expected
        assert statuses(p) == ["created", "sent"] and p["purchase"]["total"] == 1000


async def test_billing_validates_all_or_none(http, merchant, gw):
    """An unknown client in the second entry fails the call and creates no purchase at all."""
    a = await add_client(http, gw, "a@example.com")
    body = template_body(merchant, False, clients=[{"client_id": a}, {"client_id": UNKNOWN}])
    assert_error(await billing(http, gw, body), 404, "clients.1.client_id", "client_not_found")
    feed = (await http.get(f"/api/v1/clients/{a}/feed/", headers=gw)).json()["results"]
    assert [e["event_type"] for e in feed] == ["client.created"]


async def test_billing_errors(http, merchant, gw):
    a = await add_client(http, gw, "a@example.com")
    one = [{"client_id": a}]
    base = template_body(merchant, subscription=False)
    response = await billing(http, gw, {**base, "is_subscription": True, "clients": one})
    assert_error(response, 400, "is_subscription", "invalid")
    no_due = {k: v for k, v in base.items() if k != "invoice_due"}
    response = await billing(http, gw, {**no_due, "clients": one})
    assert response.json() == {"invoice_due": {"message": REQUIRED, "code": "required"}}
    response = await billing(http, gw, base)
    assert response.json() == {"clients": {"message": REQUIRED, "code": "required"}}
    response = await billing(http, gw, {**base, "clients": []})
    assert response.status_code == 400 and list(response.json()) == ["clients"]
    assert response.json()["clients"]["code"] in {"required", "invalid"}
    response = await billing(http, gw, {**base, "clients": [{"client_id": a}, {}]})
    assert response.json() == {"clients.1.client_id": {"message": REQUIRED, "code": "required"}}
    response = await billing(http, gw, {**base, "clients": one * 1001})
    assert response.status_code == 400 and list(response.json()) == ["clients"]
