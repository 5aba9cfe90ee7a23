"""Every purchase error path: status and the whole gateway body (or the s2s body).

tests/http/test_error_shapes.py counts the classes walked here as covered.
"""

from __future__ import annotations

from typing import Any

import pytest

from emulator.domain import errors
from tests.conftest import EPOCH_S
from tests.http.purchase_helpers import create, form, pay

UNKNOWN = "00000000-0000-4000-8000-000000000000"


def gw(field: str, code: str, message: str) -> dict[str, Any]:
    return {field: {"message": message, "code": code}}


def s2s(code: str, message: str) -> dict[str, Any]:
    return {"status": "error", "error": {"code": code, "message": message}}


# (id, state of the purchase, method, path ({id} and {token} filled in), body, status, expected, class)
WALK: list[tuple[str, str, str, str, Any, int, Any, type]] = [
    ("unknown-purchase", "created", "GET", f"/api/v1/purchases/{UNKNOWN}/", None, 404,
     gw("__all__", "purchase_not_found", "No such object"), errors.PurchaseNotFound),
    ("already-paid", "paid", "POST", "/api/v1/purchases/{id}/cancel/", None, 409,
     gw("__all__", "purchase_already_paid", "Purchase has already been paid."), errors.PurchaseAlreadyPaid),
    ("cancelled", "cancelled", "POST", "/api/v1/purchases/{id}/mark_as_paid/", None, 409,
     gw("__all__", "purchase_cancelled", "Purchase has been cancelled."), errors.PurchaseCancelled),
    ("expired", "expired", "POST", "/p/{id}/direct_post/?s2s=true", form(), 409,
     s2s("purchase_expired", "Purchase has expired."), errors.PurchaseExpired),
    ("invalid-status", "created", "POST", "/api/v1/purchases/{id}/refund/", None, 409,
     gw("__all__", "purchase_invalid_status", "This action is not available for the purchase in its current status."),
     errors.PurchaseInvalidStatus),
    ("invalid-amount", "hold", "POST", "/api/v1/purchases/{id}/capture/", {"amount": -1}, 400,
     gw("amount", "invalid_amount", "Amount must be between 1 and 1000."), errors.InvalidAmount),
    ("capture-not-allowed", "paid", "POST", "/api/v1/purchases/{id}/capture/", None, 409,
     gw("__all__", "capture_not_allowed", "Capture is not allowed for this purchase."), errors.CaptureNotAllowed),
    ("refund-exceeds", "paid", "POST", "/api/v1/purchases/{id}/refund/", {"amount": 1001}, 400,
     gw("__all__", "refund_exceeds_amount", "At most 1000 can be refunded."), errors.RefundExceedsAmount),
    ("method-not-available", "created", "POST", "/api/v1/purchases/", "whitelist", 400,
     gw("payment_method_whitelist", "payment_method_not_available", "'cash' is not an available payment method."),
     errors.PaymentMethodNotAvailable),
    ("invalid-token", "created", "POST", "/api/v1/purchases/{id}/charge/", {"recurring_token": 5}, 400,
     gw("recurring_token", "invalid_recurring_token", "Invalid recurring token."), errors.InvalidRecurringToken),
    ("token-not-found", "created", "POST", "/api/v1/purchases/{id}/charge/", {"recurring_token": UNKNOWN}, 404,
     gw("recurring_token", "recurring_token_not_found", "No such object"), errors.RecurringTokenNotFound),
    ("token-expired", "token-expired", "POST", "/api/v1/purchases/{id}/charge/", {"recurring_token": "{token}"}, 409,
     gw("recurring_token", "recurring_token_expired", "Recurring token has expired."), errors.RecurringTokenExpired),
    ("direct-post-expired", "used", "POST", "/p/{id}/direct_post/?s2s=true", form(), 400,
     s2s("direct_post_expired", "Direct post URL has expired or has already been used."), errors.DirectPostExpired),
    ("invalid-card-data", "created", "POST", "/p/{id}/direct_post/?s2s=true", form(cvc="1"), 400,
     s2s("invalid_card_data", "CVC must be 3 or 4 digits."), errors.InvalidCardData),
]  # fmt: skip

# Reached only through scenarios: tests/http/test_purchase_scenarios.py.
BY_SCENARIO = {errors.PurchaseCaptureError}
WALKED = {case[7] for case in WALK} | BY_SCENARIO


async def prepare(http, merchant, headers, state: str) -> tuple[str, str]:
    """A purchase in ``state``; returns its id and a recurring token id (or "")."""
    token = ""
    fields: dict[str, Any] = {}
    if state == "hold":
        fields["skip_capture"] = True
    if state == "expired":
        fields = {
            "due": EPOCH_S + 1,
            "purchase": {"products": [{"name": "W", "price": 9}], "due_strict": True},
        }
    if state == "token-expired":
        t = await create(http, headers, merchant)
        await pay(http, t["id"], expires="01/26", remember_card=True)
        token = t["id"]
        fields["due"] = EPOCH_S + 90 * 86400
    p = await create(http, headers, merchant, **fields)
    if state in ("paid", "hold"):
        await pay(http, p["id"])
    elif state == "cancelled":
        await http.post(f"/api/v1/purchases/{p['id']}/cancel/", headers=headers)
    elif state == "expired":
        await http.post("/_emulator/clock/advance", json={"seconds": 2})
    elif state == "token-expired":
        await http.post("/_emulator/clock/advance", json={"seconds": 40 * 86400})
    elif state == "used":
        await http.post(f"/p/{p['id']}/direct_post/?s2s=true", json=form())
    return p["id"], token


@pytest.mark.parametrize(
    ("state", "method", "path", "body", "status", "expected"),
    [pytest.param(*case[1:7], id=case[0]) for case in WALK],
)
async def test_purchase_error_path(http, merchant, gw, state, method, path, body, status, expected):
    """Each purchase error answers its status and exactly its body."""
    purchase_id, token = await prepare(http, merchant, gw, state)
    if body == "whitelist":
        body = {"client": {"email": "a@example.com"}, "brand_id": merchant["brand_id"],
                "purchase": {"products": [{"name": "W", "price": 1}]},
                "payment_method_whitelist": ["visa", "cash"]}  # fmt: skip
    if isinstance(body, dict) and body.get("recurring_token") == "{token}":
        body = {"recurring_token": token}
    url = path.replace("{id}", purchase_id)
    response = await http.request(method, url, json=body, headers=gw)
    assert response.status_code == status
    assert response.json() == expected
