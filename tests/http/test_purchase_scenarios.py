"""Purchase decision points answered by scenarios (purchase.payment, .capture, .charge).

Charge and capture errors cannot happen with the default test values, only by scenario. These
tests need the scenario engine; on a branch without it they are skipped, not passed.
"""

from __future__ import annotations

import pytest

from tests.http.purchase_helpers import create, get, pay


async def activate(http, merchant, yaml: str, name: str) -> None:
    loaded = await http.post(
        "/_emulator/scenarios", content=yaml.encode(), headers={"Content-Type": "application/yaml"}
    )
    if loaded.status_code == 404 and loaded.json()["error"]["code"] == "not_implemented":
        pytest.skip("the scenario engine has not landed on this branch")
    assert loaded.status_code in (200, 201), loaded.text
    response = await http.post(
        f"/_emulator/scenarios/{name}/activate", json={"merchant": merchant["company_id"]}
    )
    assert response.status_code == 200, response.text


CHARGE_DECLINED = """
name: charge-declined
rules:
  - when: purchase.charge
    then: {result: declined, reason: insufficient_funds}
"""

CAPTURE_ERROR = """
name: capture-error
rules:
  - when: purchase.capture
    then: {result: error, message: Acquirer refused the capture.}
"""


async def test_charge_declined_is_card_declined(http, merchant, gw):
    """A declined charge: the spec's 422 card_declined with the attempt's message; status
    error."""
    token = await create(http, gw, merchant)
    await pay(http, token["id"], remember_card=True)
    await activate(http, merchant, CHARGE_DECLINED, "charge-declined")
    p = await create(http, gw, merchant)
    response = await http.post(
        f"/api/v1/purchases/{p['id']}/charge/", json={"recurring_token": token["id"]}, headers=gw
    )
    assert response.status_code == 422
    failed = await get(http, gw, p["id"])
    error = failed["transaction_data"]["attempts"][0]["error"]
    assert response.json() == {"__all__": {"message": error["message"], "code": "card_declined"}}
    assert error["code"] == "insufficient_funds" and failed["status"] == "error"


async def test_capture_error_is_purchase_capture_error(http, merchant, gw):
    """A refused capture: 400 purchase_capture_error, the purchase stays on hold."""
    p = await create(http, gw, merchant, skip_capture=True)
    await pay(http, p["id"])
    await activate(http, merchant, CAPTURE_ERROR, "capture-error")
    response = await http.post(f"/api/v1/purchases/{p['id']}/capture/", headers=gw)
    assert response.status_code == 400
    assert response.json() == {
        "__all__": {"message": "Acquirer refused the capture.", "code": "purchase_capture_error"}
    }
    held = await get(http, gw, p["id"])
    assert held["status"] == "hold"
    assert held["transaction_data"]["attempts"][0]["error"]["code"] == "purchase_capture_error"
