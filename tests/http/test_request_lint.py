"""Keys the platform ignores: the emulator ignores them too, and says so (X-Emulator-Warnings,
the request journal), or refuses them in strict mode (the server's or a merchant's) with a 400
naming each key path in the interface's dialect (emulator/http/lint.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import msgspec
import pytest

from emulator.cli.commands import _parser
from emulator.cli.serve_options import settings_from
from emulator.gateway.clients.rules import ClientInput
from emulator.gateway.purchases.input import DetailsInput, ProductInput, PurchaseInput
from emulator.runtime.runtime import Runtime
from emulator.runtime.settings import from_env, parse_switch
from emulator.serving.app import create_app
from tests.conftest import settings_for, token_for
from tests.http.bank_helpers import eft_body
from tests.http.purchase_helpers import purchase_body

PURCHASES = "/api/v1/purchases/"
HEADER = "x-emulator-warnings"


def nulls(model: type[msgspec.Struct]) -> dict[str, None]:
    """Every optional field of a body struct, as null."""
    info = msgspec.inspect.type_info(model)
    assert isinstance(info, msgspec.inspect.StructType)
    return {f.encode_name: None for f in info.fields if not f.required}


def misspelt(merchant: dict[str, Any]) -> dict[str, Any]:
    """A purchase whose notes are misspelt and whose payer's email sits at the top."""
    body = purchase_body(merchant, email="payer@example.com")
    body["purchase"]["notse"] = "gift wrap"
    return body


async def last_entry(http: httpx.AsyncClient) -> dict[str, Any]:
    entry: dict[str, Any] = (await http.get("/_emulator/requests?limit=1")).json()["requests"][0]
    return entry


async def test_unknown_and_misplaced_keys_are_named_and_ignored(http, merchant, gw):
    response = await http.post(PURCHASES, json=misspelt(merchant), headers=gw)
    assert response.status_code == 201, response.text
    assert response.json()["purchase"]["notes"] == ""  # lost, as on the platform
    # in the body's order, depth first ("purchase" comes before "email" in it)
    assert response.headers[HEADER] == (
        "unknown key purchase.notse (did you mean notes?); "
        "misplaced key email (belongs at client.email)"
    )
    entry = await last_entry(http)
    assert (entry["path"], entry["status"]) == (PURCHASES, 201)
    assert entry["warnings"] == [
        "unknown key purchase.notse (did you mean notes?)",
        "misplaced key email (belongs at client.email)",
    ]


async def test_a_clean_body_has_no_header_and_no_warnings(http, merchant, gw):
    response = await http.post(PURCHASES, json=purchase_body(merchant), headers=gw)
    assert response.status_code == 201
    assert HEADER not in response.headers
    assert (await last_entry(http))["warnings"] == []


async def test_an_official_sdks_body_with_nulls_gives_no_warning(http, merchant, gw):
    """Every optional field as null, the way the Go SDK sends its structs: all known keys."""
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
    response = await http.post(PURCHASES, json=body, headers=gw)
    assert response.status_code == 201, response.text
    assert HEADER not in response.headers


async def test_keys_inside_lists_are_named_by_index(http, merchant, gw):
    body = purchase_body(merchant)
    body["purchase"]["products"] = [
        {"name": "A", "price": 100},
        {"name": "B", "price": 100, "quantitiy": 2},
    ]
    response = await http.post(PURCHASES, json=body, headers=gw)
    assert response.status_code == 201
    assert response.headers[HEADER] == (
        "unknown key purchase.products.1.quantitiy (did you mean quantity?)"
    )


async def test_a_refused_body_still_names_its_unknown_keys(http, merchant, gw):
    """A misspelt required key: the 400 says it is missing, the header says why."""
    body = purchase_body(merchant)
    body["purchase"]["products"] = [{"name": "A", "prise": 100}]
    response = await http.post(PURCHASES, json=body, headers=gw)
    assert response.status_code == 400
    assert "purchase.products.0.price" in response.json()
    assert response.headers[HEADER] == (
        "unknown key purchase.products.0.prise (did you mean price?)"
    )


async def test_free_form_objects_are_not_linted(http, merchant, gw):
    """A delivery method's options are free-form (dict): their keys are the caller's own."""
    body = purchase_body(merchant)
    body["client"]["delivery_methods"] = [{"method": "email", "options": {"anything": 1}}]
    response = await http.post(PURCHASES, json=body, headers=gw)
    assert response.status_code == 201, response.text
    assert HEADER not in response.headers


async def test_keys_are_shown_in_ascii_and_cannot_forge_a_separator(http, merchant, gw):
    body = purchase_body(merchant)
    body["x;y, z"] = 1
    body["naïve\n"] = 2
    body["k" * 100] = 3
    body["client"][""] = 4
    response = await http.post(PURCHASES, json=body, headers=gw)
    assert response.status_code == 201
    assert response.headers[HEADER].split("; ") == [
        'unknown key client.""',
        "unknown key x%3By%2C%20z",
        "unknown key na%C3%AFve%0A",
        "unknown key " + "k" * 64 + "...",
    ]


async def test_the_header_is_bounded_and_the_journal_keeps_more(http, merchant, gw):
    body = purchase_body(merchant)
    body.update({f"extra_{n:03d}": n for n in range(120)})
    response = await http.post(PURCHASES, json=body, headers=gw)
    assert response.status_code == 201
    shown = response.headers[HEADER].split("; ")
    assert len(shown) == 11 and len(response.headers[HEADER]) < 1200
    assert shown[0] == "unknown key extra_000"
    assert shown[-1] == "41 more in GET /_emulator/requests"
    warnings = (await last_entry(http))["warnings"]
    assert len(warnings) == 51 and warnings[-1] == "70 more unknown keys"


async def test_the_bank_interface_names_its_unknown_keys(http, v2, merchant):
    profile = merchant["profiles"][0]["profileCode"]
    body = eft_body(profile, amountCent=5)
    body["debtor"]["acountNumber"] = "1"
    response = await http.post("/v2/collection/eft", json=body, headers=v2)
    assert response.status_code == 201, response.text
    assert response.headers[HEADER] == (
        "unknown key debtor.acountNumber (did you mean accountNumber?); "
        "unknown key amountCent (did you mean amountCents?)"
    )
    assert (await last_entry(http))["warnings"] == response.headers[HEADER].split("; ")
    clean = await http.post("/v2/collection/eft", json=eft_body(profile, "REF-2"), headers=v2)
    assert clean.status_code == 201 and HEADER not in clean.headers


# -- strict mode ---------------------------------------------------------------------------


@pytest.fixture
async def strict_http(tmp_path: Path):
    async with Runtime(settings_for(tmp_path, strict_requests=True)) as rt:
        transport = httpx.ASGITransport(app=create_app(rt))
        async with httpx.AsyncClient(transport=transport, base_url="http://emulator") as client:
            yield client


STRICT = "the platform ignores it; refused in strict mode."


async def test_strict_server_refuses_unknown_keys_on_the_gateway(strict_http):
    merchant = (await strict_http.post("/_emulator/merchants")).json()
    gw = {"Authorization": f"Bearer {merchant['api_key']}"}
    response = await strict_http.post(PURCHASES, json=misspelt(merchant), headers=gw)
    assert (response.status_code, response.json()) == (
        400,
        {
            "email": {
                "message": f"Misplaced key email (belongs at client.email): {STRICT}",
                "code": "invalid",
            },
            "purchase.notse": {
                "message": f"Unknown key purchase.notse (did you mean notes?): {STRICT}",
                "code": "invalid",
            },
        },
    )
    entry = await last_entry(strict_http)
    assert (entry["status"], len(entry["warnings"])) == (400, 2)
    clean = await strict_http.post(PURCHASES, json=purchase_body(merchant), headers=gw)
    assert clean.status_code == 201


async def test_strict_server_refuses_unknown_keys_on_the_bank_interface(strict_http):
    merchant = (await strict_http.post("/_emulator/merchants")).json()
    token = await token_for(strict_http, merchant["client_id"], merchant["client_secret"])
    body = eft_body(merchant["profiles"][0]["profileCode"], amountCent=5)
    response = await strict_http.post(
        "/v2/collection/eft", json=body, headers={"Authorization": f"Bearer {token}"}
    )
    assert response.status_code == 400
    assert response.json()["value"]["Message"] == (
        f"amountCent: Unknown key amountCent (did you mean amountCents?): {STRICT}"
    )


async def test_a_strict_merchant_is_refused_and_others_are_not(http, merchant, gw):
    strict = (await http.post("/_emulator/merchants", json={"strict_requests": True})).json()
    assert strict["strict_requests"] is True and merchant["strict_requests"] is False
    strict_gw = {"Authorization": f"Bearer {strict['api_key']}"}
    refused = await http.post(PURCHASES, json=misspelt(strict), headers=strict_gw)
    assert refused.status_code == 400
    assert set(refused.json()) == {"email", "purchase.notse"}
    assert refused.headers[HEADER].startswith("unknown key purchase.notse")
    assert (await http.post(PURCHASES, json=misspelt(merchant), headers=gw)).status_code == 201

    token = await token_for(http, strict["client_id"], strict["client_secret"])
    body = eft_body(strict["profiles"][0]["profileCode"], amountCent=5)
    v2 = {"Authorization": f"Bearer {token}"}
    assert (await http.post("/v2/collection/eft", json=body, headers=v2)).status_code == 400

    changed = await http.patch(
        f"/_emulator/merchants/{strict['company_id']}", json={"strict_requests": False}
    )
    assert changed.json() == {"company_id": strict["company_id"], "strict_requests": False}
    again = await http.post(PURCHASES, json=misspelt(strict), headers=strict_gw)
    assert again.status_code == 201 and HEADER in again.headers
    listed = (await http.get("/_emulator/merchants")).json()["merchants"]
    assert {m["company_id"]: m["strict_requests"] for m in listed}[strict["company_id"]] is False

    on = await http.patch(
        f"/_emulator/merchants/{merchant['company_id']}", json={"strict_requests": True}
    )
    assert on.status_code == 200
    assert (await http.post(PURCHASES, json=misspelt(merchant), headers=gw)).status_code == 400


@pytest.mark.parametrize(
    ("body", "status", "message"),
    [
        ({"strict_requests": "yes"}, 400, "'strict_requests' must be true or false"),
        ({"strictness": True}, 400, "'strictness' is not a merchant setting"),
        ({}, 400, "give 'strict_requests'"),
    ],
)
async def test_bad_merchant_settings_are_400(http, merchant, body, status, message):
    response = await http.patch(f"/_emulator/merchants/{merchant['company_id']}", json=body)
    assert response.status_code == status
    assert response.json()["error"]["code"] == "invalid"
    assert message in response.json()["error"]["message"]


async def test_settings_of_an_unknown_merchant_are_404(http):
    response = await http.patch("/_emulator/merchants/nobody", json={"strict_requests": True})
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "merchant_not_found"
    bad = await http.post("/_emulator/merchants", json={"strict_requests": 1})
    assert bad.status_code == 400


def test_the_environment_variable_and_its_words():
    assert from_env({"EMULATOR_STRICT_REQUESTS": "1"})["strict_requests"] is True
    assert from_env({"EMULATOR_STRICT_REQUESTS": "off"})["strict_requests"] is False
    assert [parse_switch(w) for w in ("true", "YES", "on", "0", "no", "")] == [
        True, True, True, False, False, False,
    ]  # fmt: skip
    with pytest.raises(ValueError, match="EMULATOR_STRICT_REQUESTS='maybe'"):
        from_env({"EMULATOR_STRICT_REQUESTS": "maybe"})


def test_the_serve_flag():
    assert settings_from(_parser().parse_args(["serve"]), {}).strict_requests is False
    flagged = settings_from(_parser().parse_args(["serve", "--strict-requests"]), {})
    assert flagged.strict_requests is True
    from_env_too = settings_from(_parser().parse_args(["serve"]), {"EMULATOR_STRICT_REQUESTS": "1"})
    assert from_env_too.strict_requests is True
