"""Recurring tokens and charges, refunds, and the purchase time rules (due, due_strict)."""

from __future__ import annotations

import pytest

from tests.conftest import EPOCH_S
from tests.http.purchase_helpers import SLOW, advance, create, events, get, pay, statuses
from tests.http.test_purchases import PAYMENT_DETAILS_KEYS

UNKNOWN = "00000000-0000-4000-8000-000000000000"


async def token_for(http, gw, merchant, number: str = "4444333322221111", expires: str = "12/30"):
    """A paid purchase that is a recurring token (remember_card)."""
    p = await create(http, gw, merchant)
    card = {"card_number": number, "expires": expires, "remember_card": True}
    body = (await pay(http, p["id"], **card)).json()
    assert body["is_recurring_token"] is True
    return body


async def test_remember_card_lists_the_token_under_its_client(http, merchant, gw):
    token = await token_for(http, gw, merchant)
    response = await http.get(f"/api/v1/clients/{token['client_id']}/recurring_tokens/", headers=gw)
    assert response.status_code == 200
    assert response.json() == {
        "results": [
            {"type": "client_recurring_token", "id": token["id"], "created_on": EPOCH_S,
             "updated_on": EPOCH_S, "payment_method": "visa", "description": "444433******1111"}
        ],
        "next": None,
        "previous": None,
    }  # fmt: skip


async def test_force_recurring_makes_a_token_without_asking(http, merchant, gw):
    p = await create(http, gw, merchant, force_recurring=True)
    assert (await pay(http, p["id"])).json()["is_recurring_token"] is True
    plain = await create(http, gw, merchant)
    assert (await pay(http, plain["id"])).json()["is_recurring_token"] is False


async def test_zero_amount_authorisation_is_preauthorized(http, merchant, gw, runtime):
    """skip_capture with a zero total: preauthorized, a recurring token."""
    p = await create(http, gw, merchant, skip_capture=True,
                     purchase={"products": [{"name": "Card check", "price": 0}]})  # fmt: skip
    body = (await pay(http, p["id"])).json()
    assert body["status"] == "preauthorized" and body["is_recurring_token"] is True
    assert [k for k, _ in await events(runtime, p["id"])][-1] == "purchase.preauthorized"


async def test_charge_with_a_token(http, merchant, gw, runtime):
    """POST .../charge/ with a token of the same client: paid, tokenized in the ledger."""
    token = await token_for(http, gw, merchant)
    p = await create(http, gw, merchant)
    response = await http.post(
        f"/api/v1/purchases/{p['id']}/charge/", json={"recurring_token": token["id"]}, headers=gw
    )
    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "paid" and body["recurring_token"] == token["id"]
    assert body["payment"]["payment_type"] == "purchase_charge"
    assert body["transaction_data"]["attempts"][0]["type"] == "recurring_execute"
    assert [k for k, _ in await events(runtime, p["id"])] == ["purchase.created", "purchase.paid"]
    tokenized = (await http.get("/api/v1/account/json/balance/?tokenized=true", headers=gw)).json()
    assert tokenized["ZAR"]["balance"] == 1000
    again = await http.post(
        f"/api/v1/purchases/{p['id']}/charge/", json={"recurring_token": token["id"]}, headers=gw
    )
    assert again.status_code == 409
    assert again.json()["__all__"]["code"] == "purchase_already_paid"


async def test_slow_charge_is_pending_then_paid(http, merchant, gw, runtime):
    token = await token_for(http, gw, merchant, SLOW)
    p = await create(http, gw, merchant)
    response = await http.post(
        f"/api/v1/purchases/{p['id']}/charge/", json={"recurring_token": token["id"]}, headers=gw
    )
    assert response.json()["status"] == "pending_charge"
    await advance(http, 600)
    assert statuses(await get(http, gw, p["id"])) == ["created", "pending_charge", "paid"]
    kinds = [k for k, _ in await events(runtime, p["id"])]
    assert kinds == ["purchase.created", "purchase.pending_charge", "purchase.paid"]


@pytest.mark.parametrize(
    ("token", "status", "code"),
    [
        ("not-a-uuid", 400, "invalid_recurring_token"),
        (None, 400, "invalid_recurring_token"),
        (UNKNOWN, 404, "recurring_token_not_found"),
    ],
)
async def test_charge_with_a_bad_token(http, merchant, gw, token, status, code):
    p = await create(http, gw, merchant)
    response = await http.post(
        f"/api/v1/purchases/{p['id']}/charge/", json={"recurring_token": token}, headers=gw
    )
    assert response.status_code == status
    assert response.json()["recurring_token"]["code"] == code


async def test_token_of_another_client_or_deleted_is_not_found(http, merchant, gw):
    token = await token_for(http, gw, merchant)
    other = await create(http, gw, merchant, client={"email": "other@example.com"})
    response = await http.post(
        f"/api/v1/purchases/{other['id']}/charge/",
        json={"recurring_token": token["id"]},
        headers=gw,
    )
    assert response.status_code == 404
    assert response.json()["recurring_token"]["code"] == "recurring_token_not_found"


async def test_expired_token(http, merchant, gw):
    """A token whose card has expired since: 409 recurring_token_expired."""
    token = await token_for(http, gw, merchant, expires="01/26")
    p = await create(http, gw, merchant, due=EPOCH_S + 40 * 86400)
    await advance(http, 30 * 86400)  # February 2026
    response = await http.post(
        f"/api/v1/purchases/{p['id']}/charge/", json={"recurring_token": token["id"]}, headers=gw
    )
    assert response.status_code == 409
    assert response.json() == {
        "recurring_token": {
            "message": "Recurring token has expired.",
            "code": "recurring_token_expired",
        }
    }


async def test_delete_recurring_token_action(http, merchant, gw, runtime):
    """delete_recurring_token: no longer a token, two events, gone from the client's list."""
    token = await token_for(http, gw, merchant)
    response = await http.post(
        f"/api/v1/purchases/{token['id']}/delete_recurring_token/", headers=gw
    )
    assert response.status_code == 200
    assert response.json()["is_recurring_token"] is False
    assert response.json()["status"] == "paid"
    kinds = [k for k, _ in await events(runtime, token["id"])]
    assert kinds[-2:] == [
        "purchase.pending_recurring_token_delete",
        "purchase.recurring_token_deleted",
    ]
    listed = await http.get(f"/api/v1/clients/{token['client_id']}/recurring_tokens/", headers=gw)
    assert listed.json()["results"] == []
    again = await http.post(f"/api/v1/purchases/{token['id']}/delete_recurring_token/", headers=gw)
    assert again.status_code == 404
    assert again.json()["__all__"]["code"] == "recurring_token_not_found"
    p = await create(http, gw, merchant)
    charge = await http.post(
        f"/api/v1/purchases/{p['id']}/charge/", json={"recurring_token": token["id"]}, headers=gw
    )
    assert charge.status_code == 404


async def test_delete_token_through_the_client(http, merchant, gw):
    token = await token_for(http, gw, merchant)
    path = f"/api/v1/clients/{token['client_id']}/recurring_tokens/{token['id']}/"
    assert (await http.delete(path, headers=gw)).status_code == 204
    again = await http.delete(path, headers=gw)
    assert again.status_code == 404
    assert again.json()["__all__"]["code"] == "recurring_token_not_found"
    unknown = await http.delete(
        f"/api/v1/clients/{token['client_id']}/recurring_tokens/{UNKNOWN}/", headers=gw
    )
    assert unknown.json()["__all__"]["code"] == "recurring_token_not_found"


async def test_read_one_token_of_a_client(http, merchant, gw):
    """GET /clients/{id}/recurring_tokens/{token}/: the document's ClientRecurringToken."""
    token = await token_for(http, gw, merchant)
    path = f"/api/v1/clients/{token['client_id']}/recurring_tokens/{token['id']}/"
    response = await http.get(path, headers=gw)
    assert (response.status_code, response.json()) == (
        200,
        {"type": "client_recurring_token", "id": token["id"], "created_on": EPOCH_S,
         "updated_on": EPOCH_S, "payment_method": "visa", "description": "444433******1111"},
    )  # fmt: skip


async def test_a_token_that_is_not_the_clients_is_a_404(http, merchant, gw):
    """Unknown, deleted, a plain purchase, another client's: ``recurring_token_not_found``;
    an unknown client: ``client_not_found``; a token id that is no UUID: 400."""
    token = await token_for(http, gw, merchant)
    plain = await create(http, gw, merchant)
    other = (
        await http.post("/api/v1/clients/", json={"email": "o@example.com"}, headers=gw)
    ).json()
    not_found = {"__all__": {"message": "No such object", "code": "recurring_token_not_found"}}
    for client_id, token_id in (
        (token["client_id"], UNKNOWN),
        (token["client_id"], plain["id"]),
        (other["id"], token["id"]),
    ):
        path = f"/api/v1/clients/{client_id}/recurring_tokens/{token_id}/"
        response = await http.get(path, headers=gw)
        assert (response.status_code, response.json()) == (404, not_found), path
    unknown_client = await http.get(
        f"/api/v1/clients/{UNKNOWN}/recurring_tokens/{token['id']}/", headers=gw
    )
    assert (unknown_client.status_code, unknown_client.json()) == (
        404,
        {"__all__": {"message": "No such object", "code": "client_not_found"}},
    )
    bad = await http.get(f"/api/v1/clients/{token['client_id']}/recurring_tokens/x/", headers=gw)
    assert (bad.status_code, bad.json()["token"]["code"]) == (400, "invalid_uuid")
    path = f"/api/v1/clients/{token['client_id']}/recurring_tokens/{token['id']}/"
    assert (await http.delete(path, headers=gw)).status_code == 204
    deleted = await http.get(path, headers=gw)
    assert (deleted.status_code, deleted.json()) == (404, not_found)


async def test_full_refund(http, merchant, gw, runtime):
    """Refund without amount: a Payment of payment_type refund; the purchase is refunded."""
    p = await create(http, gw, merchant)
    await pay(http, p["id"])
    response = await http.post(f"/api/v1/purchases/{p['id']}/refund/", headers=gw)
    assert response.status_code == 200
    payment = response.json()
    assert payment["type"] == "payment" and payment["status"] == "success"
    assert set(payment) == {
        "account_extra",
        "account_fx_buy_amount",
        "account_fx_currency",
        "account_fx_rate",
        "audit_log_entries",
        "brand_id",
        "client",
        "company_id",
        "created_on",
        "currency_conversion",
        "fee_amount",
        "id",
        "is_test",
        "payment",
        "reference",
        "reference_generated",
        "refund_availability",
        "related_to",
        "status",
        "transaction_data",
        "type",
        "updated_on",
        "user_id",
    }  # the provider's payment.refunded body, event_type aside, plus OpenAPI's brand_id
    assert set(payment["payment"]) == PAYMENT_DETAILS_KEYS
    assert payment["client"]["client_id"] == p["client_id"]
    assert payment["payment"]["payment_type"] == "refund"
    assert payment["payment"]["is_outgoing"] is True
    assert payment["payment"]["amount"] == 1000
    assert payment["related_to"]["id"] == p["id"]
    refunded = await get(http, gw, p["id"])
    assert refunded["status"] == "refunded"
    assert refunded["refundable_amount"] == 0 and refunded["refunded_amount"] == 1000
    assert statuses(refunded)[-2:] == ["pending_refund", "refunded"]
    assert refunded["status_history"][-1]["related_object"] == {
        "type": "payment",
        "id": payment["id"],
    }
    assert [k for k, _ in await events(runtime, p["id"])][-1] == "purchase.pending_refund"
    assert await events(runtime, payment["id"]) == [("payment.refunded", payment)]


async def test_partial_refunds_then_refund_exceeds_amount(http, merchant, gw):
    p = await create(http, gw, merchant)
    await pay(http, p["id"])
    first = await http.post(
        f"/api/v1/purchases/{p['id']}/refund/", json={"amount": 300}, headers=gw
    )
    assert first.json()["payment"]["amount"] == 300
    after = await get(http, gw, p["id"])
    assert after["status"] == "paid" and after["refundable_amount"] == 700
    over = await http.post(f"/api/v1/purchases/{p['id']}/refund/", json={"amount": 701}, headers=gw)
    assert over.status_code == 400
    assert over.json() == {
        "__all__": {"message": "At most 700 can be refunded.", "code": "refund_exceeds_amount"}
    }
    zero = await http.post(f"/api/v1/purchases/{p['id']}/refund/", json={"amount": 0}, headers=gw)
    assert zero.json()["amount"]["code"] == "invalid_amount"
    balance = (await http.get("/api/v1/account/json/balance/", headers=gw)).json()
    assert balance["ZAR"]["balance"] == 700


async def test_refund_of_an_unpaid_purchase(http, merchant, gw):
    p = await create(http, gw, merchant)
    response = await http.post(f"/api/v1/purchases/{p['id']}/refund/", headers=gw)
    assert response.status_code == 409
    assert response.json()["__all__"]["code"] == "purchase_invalid_status"


async def test_due_without_strict_makes_it_overdue_but_payable(http, merchant, gw, runtime):
    p = await create(http, gw, merchant)
    await advance(http, 3600)
    assert (await get(http, gw, p["id"]))["status"] == "overdue"
    assert (await pay(http, p["id"])).json()["status"] == "paid"
    kinds = [k for k, _ in await events(runtime, p["id"])]
    assert kinds == ["purchase.created", "purchase.overdue", "purchase.paid"]


async def test_due_strict_expires_at_due(http, merchant, gw):
    """due_strict: at due the purchase expires; paying is purchase_expired."""
    p = await create(http, gw, merchant, due=EPOCH_S + 120,
                     purchase={"products": [{"name": "W", "price": 5}], "due_strict": True})  # fmt: skip
    await advance(http, 119)
    assert (await get(http, gw, p["id"]))["status"] == "created"
    await advance(http, 1)
    assert (await get(http, gw, p["id"]))["status"] == "expired"
    response = await pay(http, p["id"])
    assert response.status_code == 409
    assert response.json()["error"]["code"] == "purchase_expired"
    page = await http.get(f"/p/{p['id']}/")
    assert "expired" in page.text


async def test_paid_purchase_ignores_due(http, merchant, gw):
    p = await create(http, gw, merchant)
    await pay(http, p["id"])
    await advance(http, 7200)
    assert (await get(http, gw, p["id"]))["status"] == "paid"


async def test_charge_respects_the_payment_method_whitelist(http, merchant, gw):
    token = await token_for(http, gw, merchant)  # a visa card
    p = await create(http, gw, merchant, payment_method_whitelist=["mastercard"])
    response = await http.post(
        f"/api/v1/purchases/{p['id']}/charge/", json={"recurring_token": token["id"]}, headers=gw
    )
    assert response.status_code == 400
    assert response.json()["recurring_token"]["code"] == "payment_method_not_available"
    assert (await get(http, gw, p["id"]))["status"] == "created"


async def test_refunding_a_purchase_marked_as_paid_moves_no_money(http, merchant, gw):
    """mark_as_paid books nothing, so its refund must not take money out either."""
    p = await create(http, gw, merchant)
    assert (
        await http.post(f"/api/v1/purchases/{p['id']}/mark_as_paid/", headers=gw)
    ).status_code == 200
    refund = await http.post(f"/api/v1/purchases/{p['id']}/refund/", headers=gw)
    assert refund.status_code == 200
    balance = (await http.get("/api/v1/account/json/balance/", headers=gw)).json()
    assert balance.get("ZAR", {}).get("balance", 0) == 0
