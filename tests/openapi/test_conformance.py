"""Answers of the app conform to the OpenAPI document: a representative replay through the
in-process app (every object kind of both interfaces made and read, errors 400/401/404 of each
dialect), each answer checked explicitly against its operation's response for its status.

(With ``--openapi-check=on``, the default, every answer of the suite's ``http`` client is
checked the same way, by the response hook in tests/conftest.py.)
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from tests.http.bank_helpers import debicheck_body, eft_body
from tests.http.purchase_helpers import purchase_body
from tests.openapi_check import checker

UNKNOWN = "00000000-0000-4000-8000-000000000000"


def conforms(response: httpx.Response, status: int) -> Any:
    """The answer has ``status``, its operation is documented, and the document describes it;
    returns the JSON body (or None)."""
    request = response.request
    assert response.status_code == status, response.text
    assert checker().operation(request.method, request.url.path) is not None, request.url
    problems = checker().problems(
        request.method,
        request.url.path,
        response.status_code,
        {k.lower(): v for k, v in response.headers.items()},
        response.content,
    )
    assert problems == []
    return (
        response.json() if response.content and "json" in response.headers["content-type"] else None
    )


@pytest.fixture
def profile(merchant: dict[str, Any]) -> str:
    code: str = merchant["profiles"][0]["profileCode"]
    return code


async def test_gateway_objects_conform(http, merchant, gw):
    """Clients, purchases (paid, refunded), billing templates and subscribers, payouts
    (executed), webhooks and their lists, the account and the public key."""
    client = conforms(
        await http.post("/api/v1/clients/", json={"email": "a@example.com"}, headers=gw), 201
    )
    conforms(await http.get(f"/api/v1/clients/{client['id']}/", headers=gw), 200)
    conforms(
        await http.patch(
            f"/api/v1/clients/{client['id']}/",
            json={"email": "b@example.com", "phone": "+27821234567"},
            headers=gw,
        ),
        200,
    )
    conforms(await http.get("/api/v1/clients/", headers=gw), 200)
    purchase = conforms(
        await http.post("/api/v1/purchases/", json=purchase_body(merchant), headers=gw), 201
    )
    paid = conforms(
        await http.post(f"/_emulator/purchases/{purchase['id']}/pay", json={"remember_card": True}),
        200,
    )
    assert paid["status"] == "paid"
    conforms(await http.get(f"/api/v1/purchases/{purchase['id']}/", headers=gw), 200)
    conforms(
        await http.post(
            f"/api/v1/purchases/{purchase['id']}/refund/", json={"amount": 100}, headers=gw
        ),
        200,
    )
    conforms(
        await http.get(f"/api/v1/clients/{paid['client_id']}/recurring_tokens/", headers=gw), 200
    )
    conforms(await http.get(f"/api/v1/clients/{paid['client_id']}/feed/", headers=gw), 200)
    template = conforms(
        await http.post(
            "/api/v1/billing_templates/",
            json={
                "purchase": {"products": [{"name": "Gym", "price": 5000}]},
                "is_subscription": True,
                "brand_id": merchant["brand_id"],
            },
            headers=gw,
        ),
        201,
    )
    added = conforms(
        await http.post(
            f"/api/v1/billing_templates/{template['id']}/add_subscriber/",
            json={"client_id": client["id"]},
            headers=gw,
        ),
        200,
    )
    subscriber = added["billing_template_client"]["id"]
    conforms(
        await http.get(
            f"/api/v1/billing_templates/{template['id']}/clients/{subscriber}/", headers=gw
        ),
        200,
    )
    conforms(
        await http.get(f"/api/v1/billing_templates/{template['id']}/clients/", headers=gw), 200
    )
    payout = conforms(
        await http.post(
            "/api/v1/payouts/",
            json={
                "client": {"email": "r@example.com"},
                "payment": {"amount": 500, "currency": "ZAR"},
                "brand_id": merchant["brand_id"],
            },
            headers=gw,
        ),
        201,
    )
    card = {
        "card_number": "4444333322221111",
        "cardholder_name": "Jane Doe",
        "expiry_month": "12",
        "expiry_year": "30",
    }
    conforms(
        await http.post(payout["execution_url"].removeprefix("http://emulator"), json=card), 200
    )
    conforms(await http.get(f"/api/v1/payouts/{payout['id']}/", headers=gw), 200)
    webhook = conforms(
        await http.post(
            "/api/v1/webhooks/",
            json={"title": "all", "all_events": True, "callback": "http://127.0.0.1:9/hook"},
            headers=gw,
        ),
        201,
    )
    conforms(await http.get(f"/api/v1/webhooks/{webhook['id']}/", headers=gw), 200)
    conforms(
        await http.get(
            "/api/v1/webhooks/deliveries/",
            params={"id": purchase["id"], "source_type": "Purchase"},
            headers=gw,
        ),
        200,
    )
    conforms(await http.get("/api/v1/account/json/balance/", headers=gw), 200)
    conforms(await http.get("/api/v1/account/json/turnover/", headers=gw), 200)
    conforms(
        await http.get(
            "/api/v1/payment_methods/",
            params={"brand_id": merchant["brand_id"], "currency": "ZAR"},
            headers=gw,
        ),
        200,
    )
    conforms(await http.get("/api/v1/public_key/", headers=gw), 200)
    conforms(await http.delete(f"/api/v1/webhooks/{webhook['id']}/", headers=gw), 204)


async def test_bank_objects_conform(http, v2, profile):
    """Profiles, EFT and DebiCheck mandates and collections, payments, verification, events,
    callback registrations, bulk upload and download."""
    conforms(await http.get("/v2/merchantprofile", headers=v2), 200)
    collection = conforms(
        await http.post("/v2/collection/eft", json=eft_body(profile), headers=v2), 201
    )
    conforms(await http.get(f"/v2/collection/eft/{collection['id']}/status", headers=v2), 200)
    conforms(await http.get(f"/v2/mandate/eft/{collection['mandateId']}/status", headers=v2), 200)
    conforms(await http.get("/v2/mandate/eft", headers=v2), 200)
    mandate = conforms(
        await http.post("/v2/mandate/debicheck", json=debicheck_body(profile), headers=v2), 201
    )
    conforms(await http.post(f"/_emulator/mandates/{mandate['id']}/authorise"), 200)
    conforms(
        await http.post(
            "/v2/collection/debicheck/from_mandate",
            json={"mandateId": mandate["id"], "amountCents": 1000, "externalReference": "DCC-1"},
            headers=v2,
        ),
        201,
    )
    conforms(await http.get("/v2/collection/debicheck", headers=v2), 200)
    payment = conforms(
        await http.post(
            "/v2/payment/eft",
            json={
                **eft_body(profile, "PAY-1"),
                "creditor": {"accountNumber": "62000000001", "branchCode": "250655"},
                "paymentDate": "2026-01-06",
                "debtor": {"accountNumber": "4052218811", "branchCode": "051001"},
            },
            headers=v2,
        ),
        201,
    )
    conforms(await http.get(f"/v2/payment/eft/{payment['id']}/status", headers=v2), 200)
    conforms(
        await http.post(
            "/v2/accountverification/validate",
            json={"accountType": "CURRENT", "accountNumber": "62000000001", "branchCode": "250655"},
            headers=v2,
        ),
        200,
    )
    for feed in ("mandate", "collection", "payment"):
        conforms(await http.get(f"/v2/event/{feed}", headers=v2), 200)
    conforms(await http.post(f"/_emulator/collections/{collection['id']}/settle"), 200)
    client_id = (await http.get("/v2/merchantprofile", headers=v2)).json()[0]["createdByClient"]
    conforms(
        await http.post(
            "/v2/clientcallbackurl/",
            json={
                "clientId": client_id,
                "url": "http://127.0.0.1:9/cb",
                "callbackType": "EFT_COLLECTION",
                "callbackVersion": "V2",
            },
            headers=v2,
        ),
        200,
    )
    conforms(
        await http.post(
            f"/v2/callback/test/collection/eft/{collection['id']}/",
            json={"collectionStatus": "UNPAID", "callbackVersion": "V2"},
            headers=v2,
        ),
        200,
    )
    csv = f"profileCode,amountCents,abbreviatedName,contractReference,paymentDate,debtor.accountNumber,creditor.accountNumber\n{profile},100,PAY,C1,2026-01-06,4052218811,62000000001\n"
    upload = conforms(
        await http.post(
            "/v2/payment/eft/upload/csv", content=csv, headers={**v2, "Content-Type": "text/csv"}
        ),
        200,
    )
    response = await http.get(
        f"/v2/collection/eft/download/csv/{upload['bulkUploadId']}", headers=v2
    )
    assert conforms(response, 200) is None and response.text.startswith("line,")


async def test_control_plane_objects_conform(http, merchant):
    conforms(await http.get("/_emulator/health"), 200)
    conforms(await http.get("/_emulator/merchants"), 200)
    conforms(await http.get("/_emulator/clock"), 200)
    conforms(
        await http.put(
            f"/_emulator/merchants/{merchant['company_id']}/clock", json={"mode": "frozen"}
        ),
        200,
    )
    conforms(
        await http.post(
            f"/_emulator/merchants/{merchant['company_id']}/clock/advance", json={"hours": 1}
        ),
        200,
    )
    conforms(await http.get(f"/_emulator/merchants/{merchant['company_id']}/schedule"), 200)
    conforms(await http.get("/_emulator/schedule"), 200)
    conforms(await http.get("/_emulator/scenarios"), 200)
    conforms(
        await http.post(
            "/_emulator/scenarios/insufficient-funds/activate",
            json={"merchant": merchant["company_id"]},
        ),
        200,
    )
    conforms(
        await http.post(
            "/_emulator/scenarios/insufficient-funds/deactivate",
            json={"merchant": merchant["company_id"]},
        ),
        200,
    )
    conforms(await http.post("/_emulator/sink/box", json={"hello": 1}), 200)
    conforms(await http.get("/_emulator/sink/box"), 200)
    conforms(await http.get("/_emulator/requests", params={"limit": 5}), 200)
    conforms(await http.get("/_emulator/deliveries"), 200)
    conforms(await http.get("/_emulator/test-values"), 200)
    conforms(await http.post("/_emulator/snapshots/conformance"), 201)
    conforms(await http.get("/_emulator/snapshots"), 200)
    conforms(await http.get("/_emulator/openapi/control.json"), 200)


@pytest.mark.parametrize(
    ("method", "path", "kwargs", "auth", "status"),
    [
        # gateway: {"field": {"message", "code"}}
        pytest.param(
            "POST", "/api/v1/clients/", {"content": b"{"}, "gw", 400, id="gateway-400-malformed"
        ),
        pytest.param(
            "POST",
            "/api/v1/clients/",
            {"json": {"email": "nope"}},
            "gw",
            400,
            id="gateway-400-invalid",
        ),
        pytest.param("GET", "/api/v1/clients/not-a-uuid/", {}, "gw", 400, id="gateway-400-uuid"),
        pytest.param("GET", "/api/v1/clients/", {}, None, 401, id="gateway-401"),
        pytest.param("GET", f"/api/v1/purchases/{UNKNOWN}/", {}, "gw", 404, id="gateway-404"),
        pytest.param(
            "POST",
            f"/api/v1/purchases/{UNKNOWN}/charge/",
            {"json": {"recurring_token": 1}},
            "gw",
            400,
            id="gateway-400-token",
        ),
        # bank: the 400 result object, {"statusCode", "message"} otherwise
        pytest.param("POST", "/v2/mandate/eft", {"json": {"debtor": 5}}, "v2", 400, id="bank-400"),
        pytest.param("GET", "/v2/merchantprofile", {}, None, 401, id="bank-401"),
        pytest.param("GET", "/v2/merchantprofile", {}, "gw", 403, id="bank-403"),
        pytest.param("GET", f"/v2/payment/eft/{UNKNOWN}/status", {}, "v2", 404, id="bank-404"),
        # the token endpoint: {"error", "error_description"}
        pytest.param(
            "POST",
            "/oauth2/token",
            {"data": {"grant_type": "client_credentials"}},
            None,
            400,
            id="oauth-400-client",
        ),
        pytest.param("POST", "/oauth2/token", {"json": {}}, None, 400, id="oauth-400-form"),
        # the control plane: {"error": {"code", "message"}}
        pytest.param(
            "POST", "/_emulator/clock/advance", {"json": {"weeks": 1}}, None, 400, id="control-400"
        ),
        pytest.param(
            "POST", "/_emulator/merchants", {"content": b"[1]"}, None, 400, id="control-400-body"
        ),
        pytest.param(
            "GET", f"/_emulator/merchants/{UNKNOWN}/clock", {}, None, 404, id="control-404"
        ),
        pytest.param(
            "POST", "/_emulator/merchants/{company}/clock/freeze", {}, None, 409, id="control-409"
        ),
    ],
)
async def test_errors_conform(http, merchant, gw, v2, method, path, kwargs, auth, status):
    """Errors of each dialect validate against the operation's response for their status."""
    headers = {"gw": gw, "v2": v2, None: {}}[auth]
    path = path.replace("{company}", merchant["company_id"])
    body = conforms(await http.request(method, path, headers=headers, **kwargs), status)
    assert body


async def test_the_check_finds_what_the_document_does_not_say(http, gw):
    """The checker is not vacuous: a status, a body or a header the operation does not
    document is reported."""
    response = await http.get("/api/v1/clients/", headers=gw)
    check = checker()
    ok = response.content
    assert (
        check.problems(
            "GET",
            "/api/v1/clients/",
            200,
            {"content-type": "application/json", "x-emulator-time": "t"},
            ok,
        )
        == []
    )
    assert "status not documented" in check.problems("GET", "/api/v1/clients/", 418, {}, b"")[0]
    wrong = check.problems(
        "GET",
        "/api/v1/clients/",
        200,
        {"content-type": "application/json", "x-emulator-time": "t"},
        b'{"results": 1}',
    )
    assert any("body at results: 1 is not of type 'array'" in p for p in wrong)
    assert (
        "header X-Emulator-Time missing"
        in check.problems("GET", "/api/v1/clients/", 200, {"content-type": "application/json"}, ok)[
            0
        ]
    )
    assert check.problems("GET", "/api/v1/no-such-thing/", 404, {}, b"") == []  # not an operation
