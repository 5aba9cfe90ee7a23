"""Purchase actions as the real platform's official clients use them (issue 15, section 2):
``{"amount": null}`` means all, a decline's attempt names its reason, and business errors that
concern no single field are keyed ``__all__``."""

from __future__ import annotations

from typing import Any

import pytest

from tests.http.purchase_helpers import CARD, create, form, get, pay

PURCHASES = "/api/v1/purchases/"

DECLINES = [
    ("4000000000000002", "do_not_honour", "Card declined: do not honour."),
    ("4000000000009995", "insufficient_funds", "Card declined: insufficient funds."),
    ("4000000000000069", "expired_card", "Card declined: the card has expired."),
    ("4000000000000127", "invalid_card_number", "Card declined: invalid card number."),
    ("4000000000009987", "lost_card", "Card declined: the card is reported lost."),
    ("4000000000009979", "stolen_card", "Card declined: the card is reported stolen."),
    ("4100000000000019", "suspected_fraud", "Card declined: suspected fraud."),
    ("4000000000000101", "validation_cvc_invalid", "Card declined: the CVC is not the card's."),
    (
        "4000000000006975",
        "exceeds_withdrawal_limit",
        "Card declined: the card's withdrawal limit is exceeded.",
    ),
    (
        "4000000000000119",
        "issuer_not_available",
        "Card declined: the card's issuer is not available.",
    ),
]


async def action(http, gw, purchase_id: str, name: str, body: Any = None):
    return await http.post(f"{PURCHASES}{purchase_id}/{name}/", json=body, headers=gw)


async def paid(http, gw, merchant, **fields: Any) -> dict[str, Any]:
    p = await create(http, gw, merchant, **fields)
    assert (await pay(http, p["id"])).status_code == 200
    return await get(http, gw, p["id"])


def all_error(code: str, message: str) -> dict[str, Any]:
    return {"__all__": {"message": message, "code": code}}


# -- null amount means all -------------------------------------------------------------------


async def test_refund_with_a_null_amount_refunds_all(http, merchant, gw):
    p = await paid(http, gw, merchant)
    response = await action(http, gw, p["id"], "refund", {"amount": None})
    assert response.status_code == 200
    assert response.json()["payment"]["amount"] == 1000
    refunded = await get(http, gw, p["id"])
    assert (refunded["status"], refunded["refunded_amount"]) == ("refunded", 1000)


async def test_refund_with_a_null_amount_after_a_partial_refunds_the_rest(http, merchant, gw):
    p = await paid(http, gw, merchant)
    assert (await action(http, gw, p["id"], "refund", {"amount": 300})).status_code == 200
    response = await action(http, gw, p["id"], "refund", {"amount": None})
    assert response.json()["payment"]["amount"] == 700
    assert (await get(http, gw, p["id"]))["status"] == "refunded"


async def test_capture_with_a_null_amount_captures_all(http, merchant, gw):
    p = await paid(http, gw, merchant, skip_capture=True)
    assert p["status"] == "hold"
    response = await action(http, gw, p["id"], "capture", {"amount": None})
    assert response.status_code == 200
    assert (response.json()["status"], response.json()["payment"]["amount"]) == ("paid", 1000)


async def test_mark_as_paid_with_a_null_paid_on_is_now(http, merchant, gw):
    p = await create(http, gw, merchant)
    response = await action(http, gw, p["id"], "mark_as_paid", {"paid_on": None})
    assert response.status_code == 200
    assert response.json()["payment"]["paid_on"] == p["created_on"]


# -- a decline names its reason --------------------------------------------------------------


@pytest.mark.parametrize(("number", "reason", "text"), DECLINES)
async def test_a_declined_attempt_carries_the_reason_as_its_code(
    http, merchant, gw, number, reason, text
):
    """The attempt's error code is the reason; the direct post's answer stays card_declined
    (400), the reason in its message."""
    p = await create(http, gw, merchant)
    response = await http.post(f"{p['direct_post_url']}?s2s=true", json=form(number))
    message = f"{text} (reason: {reason})"
    assert response.status_code == 400
    assert response.json() == {
        "status": "error",
        "error": {"code": "card_declined", "message": message},
    }
    failed = await get(http, gw, p["id"])
    assert failed["status"] == "error"
    [attempt] = failed["transaction_data"]["attempts"]
    assert (attempt["successful"], attempt["error"]) == (
        False,
        {"code": reason, "message": message},
    )


async def test_a_wrong_cvc_attempt_is_do_not_honour(http, merchant, gw):
    p = await create(http, gw, merchant)
    body = (await pay(http, p["id"], card_number=CARD, cvc="999")).json()
    error = body["transaction_data"]["attempts"][0]["error"]
    assert error["code"] == "do_not_honour"


async def test_3ds_failure_keeps_its_own_code(http, merchant, gw):
    p = await create(http, gw, merchant)
    body = (await pay(http, p["id"], card_number="4000008400001629")).json()
    error = body["transaction_data"]["attempts"][0]["error"]
    assert error == {
        "code": "3ds_authentication_failed",
        "message": "3-D Secure authentication failed.",
    }


# -- non-field business errors are keyed __all__ ---------------------------------------------


async def test_refund_exceeds_amount_is_keyed_all(http, merchant, gw):
    p = await paid(http, gw, merchant)
    response = await action(http, gw, p["id"], "refund", {"amount": 1001})
    assert response.status_code == 400
    assert response.json() == all_error("refund_exceeds_amount", "At most 1000 can be refunded.")


@pytest.mark.parametrize(
    ("state", "name", "status", "expected"),
    [
        pytest.param("created", "refund", 409, all_error("purchase_invalid_status", "This action is not available for the purchase in its current status."), id="refund-unpaid"),
        pytest.param("refunded", "refund", 409, all_error("purchase_invalid_status", "This action is not available for the purchase in its current status."), id="refund-refunded"),
        pytest.param("cancelled", "refund", 409, all_error("purchase_cancelled", "Purchase has been cancelled."), id="refund-cancelled"),
        pytest.param("paid", "capture", 409, all_error("capture_not_allowed", "Capture is not allowed for this purchase."), id="capture-paid"),
        pytest.param("created", "capture", 409, all_error("capture_not_allowed", "Capture is not allowed for this purchase."), id="capture-unpaid"),
        pytest.param("captured", "capture", 409, all_error("capture_not_allowed", "Capture is not allowed for this purchase."), id="capture-twice"),
    ],
)  # fmt: skip
async def test_an_action_in_the_wrong_state_is_keyed_all(
    http, merchant, gw, state, name, status, expected
):
    """A refund or capture the purchase's status does not allow: the spec's code, __all__."""
    if state == "created":
        p = await create(http, gw, merchant)
    elif state == "cancelled":
        p = await create(http, gw, merchant)
        assert (await action(http, gw, p["id"], "cancel")).status_code == 200
    elif state == "captured":
        p = await paid(http, gw, merchant, skip_capture=True)
        assert (await action(http, gw, p["id"], "capture")).status_code == 200
    else:
        p = await paid(http, gw, merchant)
        if state == "refunded":
            assert (await action(http, gw, p["id"], "refund")).status_code == 200
    response = await action(http, gw, p["id"], name, {"amount": None})
    assert response.status_code == status
    assert response.json() == expected
