"""Integer fields of the gateway read as the platform reads them: its error dialect is Django
REST Framework's, whose IntegerField takes integral strings and floats (the vendor's own sample
sends "price": "100"); anything else is DRF's "A valid integer is required."."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.http.bank_helpers import eft_body
from tests.http.purchase_helpers import purchase_body

PURCHASES = "/api/v1/purchases/"
JSON_TYPE = {"content-type": "application/json"}
INVALID = {"message": "A valid integer is required.", "code": "invalid"}


def with_product(merchant: dict[str, Any], **product: Any) -> dict[str, Any]:
    return purchase_body(
        merchant,
        purchase={"currency": "ZAR", "products": [{"name": "Widget", "price": 1000, **product}]},
    )


@pytest.mark.parametrize(
    ("price", "stored"),
    [
        pytest.param("100", 100, id="string"),
        pytest.param(" 100 ", 100, id="string-spaces"),
        pytest.param("100.0", 100, id="string-point-zero"),
        pytest.param("100.", 100, id="string-point"),
        pytest.param("+100", 100, id="string-plus"),
        pytest.param(150.0, 150, id="float"),
        pytest.param(1e2, 100, id="float-exponent"),
    ],
)
async def test_an_integral_string_or_float_is_the_integer(http, merchant, gw, price, stored):
    response = await http.post(PURCHASES, json=with_product(merchant, price=price), headers=gw)
    assert response.status_code == 201, response.text
    product = response.json()["purchase"]["products"][0]
    assert (product["price"], type(product["price"])) == (stored, int)
    assert response.json()["purchase"]["total"] == stored


async def test_the_vendors_sample_body_with_strings(http, merchant, gw):
    """Every integer of a purchase as a string: price, discount, the overrides, due."""
    body = purchase_body(
        merchant,
        purchase={
            "currency": "ZAR",
            "products": [{"name": "A", "price": "100", "quantity": "2", "discount": "10"}],
            "total_override": "150",
        },
        due="1767700000",
    )
    response = await http.post(PURCHASES, json=body, headers=gw)
    assert response.status_code == 201, response.text
    created = response.json()
    product = created["purchase"]["products"][0]
    assert (product["price"], product["discount"], product["quantity"]) == (100, 10, "2.0000")
    assert (created["purchase"]["total_override"], created["due"]) == (150, 1767700000)


@pytest.mark.parametrize(
    "price",
    [
        pytest.param("1.5", id="fraction-string"),
        pytest.param(150.5, id="fraction-float"),
        pytest.param("abc", id="word"),
        pytest.param("1e3", id="exponent-string"),  # int("1e3") fails in DRF too
        pytest.param("", id="empty"),
        pytest.param(True, id="bool"),  # DRF: int("True") fails
        pytest.param([100], id="list"),
        pytest.param({"amount": 100}, id="object"),
        pytest.param(1e16, id="float-printed-with-exponent"),  # str(1e16) is "1e+16"
    ],
)
async def test_anything_else_is_drfs_invalid_integer(http, merchant, gw, price):
    response = await http.post(PURCHASES, json=with_product(merchant, price=price), headers=gw)
    assert (response.status_code, response.json()) == (
        400,
        {"purchase.products.0.price": INVALID},
    )


async def test_a_long_string_is_drfs_string_too_large(http, merchant, gw):
    response = await http.post(PURCHASES, json=with_product(merchant, price="1" * 1001), headers=gw)
    assert (response.status_code, response.json()) == (
        400,
        {
            "purchase.products.0.price": {
                "message": "String value too large.",
                "code": "max_string_length",
            }
        },
    )


async def test_the_fields_rules_still_apply_to_the_integer_read(http, merchant, gw):
    """ "-5" is -5, and a price may not be negative: the field's own rule answers."""
    response = await http.post(PURCHASES, json=with_product(merchant, price="-5"), headers=gw)
    assert response.status_code == 400
    assert response.json()["purchase.products.0.price"]["code"] == "min_value"


async def test_a_refund_amount_as_a_string(http, merchant, gw):
    """The bodies of actions read integers the same way (amount: int | None)."""
    created = (await http.post(PURCHASES, json=purchase_body(merchant), headers=gw)).json()
    paid = await http.post(f"/_emulator/purchases/{created['id']}/pay")
    assert paid.status_code == 200, paid.text
    refund = await http.post(
        f"{PURCHASES}{created['id']}/refund/", json={"amount": "400.0"}, headers=gw
    )
    assert refund.status_code == 200, refund.text
    assert refund.json()["payment"]["amount"] == 400
    again = await http.post(
        f"{PURCHASES}{created['id']}/refund/", json={"amount": "4.5"}, headers=gw
    )
    assert (again.status_code, again.json()) == (400, {"amount": INVALID})


async def test_the_bank_interface_keeps_integers_strict(http, v2, merchant):
    """/v2/ is not DRF: an amount as a string stays refused there."""
    profile = merchant["profiles"][0]["profileCode"]
    response = await http.post(
        "/v2/collection/eft", json=eft_body(profile, amountCents="12345"), headers=v2
    )
    assert response.status_code == 400
    assert "amountCents" in response.json()["value"]["Message"]


async def test_a_number_out_of_range_names_its_field_on_both_interfaces(http, merchant, gw, v2):
    """1e400 is no double: the 400 names the field (the bodies are parsed before their struct
    reads them, and that parse alone could not say where)."""
    text = json.dumps(purchase_body(merchant)).replace('"price": 1000', '"price": 1e400')
    response = await http.post(PURCHASES, content=text, headers={**gw, **JSON_TYPE})
    assert (response.status_code, response.json()) == (
        400,
        {"purchase.products.0.price": {"message": "Number out of range.", "code": "invalid"}},
    )
    profile = merchant["profiles"][0]["profileCode"]
    text = json.dumps(eft_body(profile)).replace('"amountCents": 12345', '"amountCents": -1e400')
    response = await http.post("/v2/collection/eft", content=text, headers={**v2, **JSON_TYPE})
    assert response.status_code == 400
    assert response.json()["value"]["Message"] == "amountCents: Number out of range."
