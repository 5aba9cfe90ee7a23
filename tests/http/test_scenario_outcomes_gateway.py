"""purchase.payment, purchase.capture and purchase.charge answered by scenarios, through HTTP:
every outcome of README's table, the match fields, ``times`` and a merchant's scope."""

from __future__ import annotations

import httpx
import pytest

from tests.http.purchase_helpers import (
    CARD,
    SLOW,
    THREE_DS_FAIL,
    THREE_DS_PASS,
    advance,
    create,
    form,
    get,
    pay,
    statuses,
)
from tests.http.scenario_helpers import activate, new_merchant

DECLINING = {
    "do_not_honour": "4000000000000002",
    "insufficient_funds": "4000000000009995",
    "expired_card": "4000000000000069",
    "invalid_card_number": "4000000000000127",
    "lost_card": "4000000000009987",
    "stolen_card": "4000000000009979",
    "suspected_fraud": "4100000000000019",
    "validation_cvc_invalid": "4000000000000101",
    "exceeds_withdrawal_limit": "4000000000006975",
    "issuer_not_available": "4000000000000119",
}


def gw_of(merchant):
    return {"Authorization": f"Bearer {merchant['api_key']}"}


async def paid_with(http, gw, merchant, number=CARD, **fields):
    """A new purchase paid through the control plane with ``number``: the purchase."""
    p = await create(http, gw, merchant, **fields)
    response = await pay(http, p["id"], card_number=number)
    assert response.status_code == 200, response.text
    return response.json()


def error_of(p):
    return p["transaction_data"]["attempts"][0]["error"]


# -- purchase.payment ---------------------------------------------------------------------


async def test_payment_paid_pays_declining_and_3ds_failing_cards(http, merchant, gw):
    assert (await paid_with(http, gw, merchant, DECLINING["do_not_honour"]))["status"] == "error"
    await activate(http, merchant, "purchase.payment", {"result": "paid"})
    for number in [*DECLINING.values(), THREE_DS_FAIL]:
        paid = await paid_with(http, gw, merchant, number)
        assert paid["status"] == "paid", number
        assert paid["payment"]["amount"] == 1000


@pytest.mark.parametrize("reason", list(DECLINING))
async def test_payment_declined_with_each_reason(http, merchant, gw, reason):
    """The attempt's error is what the test card of that reason gives: the reason's code."""
    expected = error_of(await paid_with(http, gw, merchant, DECLINING[reason]))
    assert expected["code"] == reason and reason in expected["message"]
    await activate(http, merchant, "purchase.payment", {"result": "declined", "reason": reason})
    declined = await paid_with(http, gw, merchant, CARD)
    assert declined["status"] == "error"
    assert error_of(declined) == expected


async def test_payment_declined_without_reason_is_do_not_honour(http, merchant, gw):
    expected = error_of(await paid_with(http, gw, merchant, DECLINING["do_not_honour"]))
    await activate(http, merchant, "purchase.payment", {"result": "declined"})
    assert error_of(await paid_with(http, gw, merchant, THREE_DS_PASS)) == expected


async def test_payment_declined_on_the_direct_post_answers_the_reason(http, merchant, gw):
    await activate(
        http, merchant, "purchase.payment", {"result": "declined", "reason": "lost_card"}
    )
    p = await create(http, gw, merchant)
    response = await http.post(p["direct_post_url"] + "?s2s=true", json=form(CARD))
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "card_declined"
    assert "lost_card" in response.json()["error"]["message"]


async def test_payment_3ds_failed(http, merchant, gw):
    """An approving card: the payer is challenged and the challenge fails; the control
    plane's pay fails at once."""
    await activate(http, merchant, "purchase.payment", {"result": "3ds_failed"})
    p = await create(http, gw, merchant)
    response = await http.post(p["direct_post_url"] + "?s2s=true", json=form(CARD))
    assert response.json()["status"] == "3DS_required"
    challenge = httpx.URL(response.json()["url"]).path  # the page posts back to itself
    assert (await http.get(challenge)).status_code == 200
    await http.post(challenge, data={"action": "complete"})
    failed = await get(http, gw, p["id"])
    assert failed["status"] == "error"
    assert error_of(failed)["code"] == "3ds_authentication_failed"
    direct = await paid_with(http, gw, merchant, CARD)
    assert (direct["status"], error_of(direct)["code"]) == ("error", "3ds_authentication_failed")


@pytest.mark.parametrize(
    ("match", "hit", "miss"),
    [
        pytest.param(
            {"amount": {"gt": 5000}},
            {"purchase": {"currency": "ZAR", "products": [{"name": "Big", "price": 5001}]}},
            {"purchase": {"currency": "ZAR", "products": [{"name": "Big", "price": 5000}]}},
            id="amount",
        ),
        pytest.param(
            {"reference": {"prefix": "decline:"}},
            {"reference": "decline:123"},
            {"reference": "order-123"},
            id="reference",
        ),
        pytest.param(
            {"email": "broke@example.com"},
            {"client": {"email": "broke@example.com", "country": "ZA"}},
            {"client": {"email": "rich@example.com", "country": "ZA"}},
            id="email",
        ),
    ],
)
async def test_payment_match_on_the_purchase(http, merchant, gw, match, hit, miss):
    then = {"result": "declined", "reason": "insufficient_funds"}
    await activate(http, merchant, "purchase.payment", then, match)
    declined = await paid_with(http, gw, merchant, CARD, **hit)
    assert (declined["status"], error_of(declined)["code"]) == ("error", "insufficient_funds")
    assert (await paid_with(http, gw, merchant, CARD, **miss))["status"] == "paid"


async def test_payment_match_on_the_card_number(http, merchant, gw):
    await activate(
        http, merchant, "purchase.payment", {"result": "declined"}, {"card_number": SLOW}
    )
    assert (await paid_with(http, gw, merchant, SLOW))["status"] == "error"
    assert (await paid_with(http, gw, merchant, CARD))["status"] == "paid"


async def test_payment_times_then_the_test_cards_again(http, merchant, gw):
    await activate(http, merchant, "purchase.payment", {"result": "declined"}, times=1)
    assert (await paid_with(http, gw, merchant, CARD))["status"] == "error"
    assert (await paid_with(http, gw, merchant, CARD))["status"] == "paid"
    unknown = await paid_with(http, gw, merchant, DECLINING["invalid_card_number"])
    assert unknown["status"] == "error"


async def test_payment_scope_is_one_merchant(http, merchant, gw):
    other = await new_merchant(http)
    await activate(http, merchant, "purchase.payment", {"result": "declined"})
    assert (await paid_with(http, gw, merchant, CARD))["status"] == "error"
    assert (await paid_with(http, gw_of(other), other, CARD))["status"] == "paid"
    assert (await paid_with(http, gw_of(other), other, THREE_DS_FAIL))["status"] == "error"


# -- purchase.capture ---------------------------------------------------------------------


async def held(http, gw, merchant, number=CARD):
    p = await create(http, gw, merchant, skip_capture=True)
    assert (await pay(http, p["id"], card_number=number)).json()["status"] == "hold"
    return p


async def capture(http, gw, p, **body):
    return await http.post(f"/api/v1/purchases/{p['id']}/capture/", json=body or None, headers=gw)


async def test_capture_paid_at_once_with_the_slow_card(http, merchant, gw):
    await activate(http, merchant, "purchase.capture", {"result": "paid"})
    p = await held(http, gw, merchant, SLOW)
    response = await capture(http, gw, p)
    assert response.status_code == 200, response.text
    assert response.json()["status"] == "paid"


async def test_capture_pending_for_delay_seconds(http, merchant, gw):
    await activate(
        http, merchant, "purchase.capture", {"result": "pending_capture", "delay_seconds": 90}
    )
    p = await held(http, gw, merchant)
    assert (await capture(http, gw, p)).json()["status"] == "pending_capture"
    await advance(http, 89)
    assert (await get(http, gw, p["id"]))["status"] == "pending_capture"
    await advance(http, 1)
    done = await get(http, gw, p["id"])
    assert statuses(done) == ["created", "hold", "pending_capture", "paid"]


async def test_capture_error_keeps_the_hold(http, merchant, gw):
    await activate(http, merchant, "purchase.capture", {"result": "error"})
    p = await held(http, gw, merchant)
    response = await capture(http, gw, p)
    assert response.status_code == 400
    assert response.json()["__all__"]["code"] == "purchase_capture_error"
    assert (await get(http, gw, p["id"]))["status"] == "hold"


async def test_capture_match_on_capture_amount_and_times(http, merchant, gw):
    """Only a partial capture of 500 matches, once; the next partial capture is paid."""
    await activate(
        http, merchant, "purchase.capture", {"result": "error"}, {"capture_amount": 500}, times=1
    )
    whole = await held(http, gw, merchant)
    assert (await capture(http, gw, whole)).json()["status"] == "paid"
    part = await held(http, gw, merchant)
    assert (await capture(http, gw, part, amount=500)).status_code == 400
    response = await capture(http, gw, part, amount=500)
    assert response.status_code == 200 and response.json()["payment"]["amount"] == 500


# -- purchase.charge ----------------------------------------------------------------------


async def token(http, gw, merchant, number=CARD):
    p = await create(http, gw, merchant)
    paid = (await pay(http, p["id"], card_number=number, remember_card=True)).json()
    assert paid["is_recurring_token"] is True
    return p["id"]


async def charge(http, gw, merchant, token_id, **fields):
    """Charge a new purchase with the token: the answer and the purchase as it is after."""
    p = await create(http, gw, merchant, **fields)
    response = await http.post(
        f"/api/v1/purchases/{p['id']}/charge/", json={"recurring_token": token_id}, headers=gw
    )
    return response, await get(http, gw, p["id"])


async def test_charge_paid_with_a_declining_card(http, merchant, gw):
    """A declining card's token (paid once by a scenario) is declined on charge, unless the
    charge point answers paid."""
    name = await activate(http, merchant, "purchase.payment", {"result": "paid"})
    declining = await token(http, gw, merchant, DECLINING["insufficient_funds"])
    scope = {"merchant": merchant["company_id"]}
    await http.post(f"/_emulator/scenarios/{name}/deactivate", json=scope)
    response, _ = await charge(http, gw, merchant, declining)
    assert response.status_code == 422
    await activate(http, merchant, "purchase.charge", {"result": "paid"})
    response, paid = await charge(http, gw, merchant, declining)
    assert response.status_code == 200, response.text
    assert paid["status"] == "paid" and paid["recurring_token"] == declining


async def test_charge_pending_for_delay_seconds(http, merchant, gw):
    card = await token(http, gw, merchant)
    await activate(
        http, merchant, "purchase.charge", {"result": "pending_charge", "delay_seconds": 300}
    )
    response, pending = await charge(http, gw, merchant, card)
    assert response.json()["status"] == pending["status"] == "pending_charge"
    await advance(http, 299)
    assert (await get(http, gw, pending["id"]))["status"] == "pending_charge"
    await advance(http, 1)
    assert (await get(http, gw, pending["id"]))["status"] == "paid"


@pytest.mark.parametrize("reason", list(DECLINING))
async def test_charge_declined_with_each_reason(http, merchant, gw, reason):
    card = await token(http, gw, merchant)
    await activate(http, merchant, "purchase.charge", {"result": "declined", "reason": reason})
    response, failed = await charge(http, gw, merchant, card)
    assert response.status_code == 422
    error = error_of(failed)
    assert (failed["status"], error["code"]) == ("error", reason)
    assert reason in error["message"]
    assert response.json() == {"__all__": {"message": error["message"], "code": "card_declined"}}


async def test_charge_match_and_times(http, merchant, gw):
    card = await token(http, gw, merchant)
    await activate(
        http,
        merchant,
        "purchase.charge",
        {"result": "declined", "reason": "expired_card"},
        {"recurring_token": card, "amount": {"gte": 2000}},
        times=1,
    )
    big = {"purchase": {"currency": "ZAR", "products": [{"name": "Plan", "price": 2000}]}}
    response, _ = await charge(http, gw, merchant, card)  # 1000: no match
    assert response.json()["status"] == "paid"
    response, failed = await charge(http, gw, merchant, card, **big)
    assert response.status_code == 422 and "expired_card" in error_of(failed)["message"]
    response, _ = await charge(http, gw, merchant, card, **big)  # the one use is spent
    assert response.json()["status"] == "paid"
