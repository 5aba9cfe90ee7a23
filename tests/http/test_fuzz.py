"""Never a 500 for bad input: generated bodies, ids and queries against every endpoint."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from emulator.gateway.clients.rules import ClientInput
from emulator.gateway.payouts.model import PayoutInput
from emulator.gateway.payouts.rules_cards import CardInput
from emulator.gateway.purchases.input import DetailsInput, PurchaseInput
from emulator.gateway.webhooks.rules import WebhookInput
from tests.conftest import DEFAULT_KEY

pytestmark = pytest.mark.slow  # hypothesis drives each endpoint through many generated bodies

GW = {"Authorization": f"Bearer {DEFAULT_KEY}"}
FUZZ = settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)

scalars = (
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=40)
)
json_values = st.recursive(
    scalars,
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=10), children, max_size=4)
    ),
    max_leaves=12,
)
client_bodies = st.fixed_dictionaries(
    {},
    optional={name: json_values | st.text(max_size=300) for name in ClientInput.__struct_fields__},
)
FIELDS = {
    *ClientInput.__struct_fields__,
    *PayoutInput.__struct_fields__,
    *WebhookInput.__struct_fields__,
    *CardInput.__struct_fields__,
    "amount",
    "currency",
}
other_bodies = st.fixed_dictionaries(
    {}, optional={name: json_values | st.text(max_size=300) for name in FIELDS}
)
bodies = st.one_of(
    client_bodies.map(lambda d: json.dumps(d).encode()),
    other_bodies.map(lambda d: json.dumps(d).encode()),
    json_values.map(lambda v: json.dumps(v).encode()),
    st.binary(max_size=200),
    # valid JSON structure with letters and high bytes inside a string (invalid UTF-8 mostly)
    st.lists(st.sampled_from([*range(0x80, 0x100), *b"az@."]), max_size=20).map(
        lambda raw: b'{"email": "' + bytes(raw) + b'"}'
    ),
)
path_ids = st.one_of(
    st.uuids().map(str), st.text(alphabet="abcdef0123456789-", max_size=40).filter(bool)
)
queries = st.dictionaries(
    st.sampled_from(
        [
            "page",
            "page_size",
            "email",
            "skip",
            "take",
            "creditorProfileId",
            "instrument",
            "x",
            "id",
            "source_type",
        ]
    ),
    st.text(max_size=12),
    max_size=3,
)


def assert_gateway_shape(status: int, body: Any) -> None:
    assert status < 500
    if status >= 400:
        assert isinstance(body, dict) and body
        for value in body.values():
            assert set(value) == {"message", "code"}


@FUZZ
@given(method=st.sampled_from(["POST", "PUT", "PATCH"]), body=bodies, client_id=path_ids)
async def test_gateway_client_writes(http, method, body, client_id):
    """Any body to any client write endpoint: a 2xx or a gateway-dialect 4xx."""
    path = "/api/v1/clients/" if method == "POST" else f"/api/v1/clients/{client_id}/"
    response = await http.request(method, path, content=body, headers=GW)
    assert_gateway_shape(response.status_code, response.json())


@FUZZ
@given(
    client_id=path_ids, suffix=st.sampled_from(["", "feed/", "recurring_tokens/"]), query=queries
)
async def test_gateway_reads(http, client_id, suffix, query):
    """Any id and query on the read endpoints: never a 500, always the gateway dialect."""
    response = await http.get(f"/api/v1/clients/{client_id}/{suffix}", params=query, headers=GW)
    assert_gateway_shape(response.status_code, response.json())
    listed = await http.get("/api/v1/clients/", params=query, headers=GW)
    assert_gateway_shape(listed.status_code, listed.json())


@FUZZ
@given(query=queries, auth=st.one_of(st.none(), st.text(max_size=30)))
async def test_bank_reads(http, query, auth):
    """Any query and Authorization header on v2: never a 500, always the v2 dialect."""
    headers = (
        {"Authorization": auth}
        if auth is not None and auth.isprintable() and auth.isascii()
        else {}
    )
    response = await http.get("/v2/merchantprofile", params=query, headers=headers)
    assert response.status_code in (200, 400, 401, 403)
    body = response.json()
    if response.status_code >= 400:
        assert body["statusCode"] == response.status_code


@FUZZ
@given(
    body=st.one_of(st.just(b"grant_type=client_credentials"), st.binary(max_size=200)),
    auth=st.binary(max_size=40),
)
async def test_token_endpoint(http, body, auth):
    """Any form body and Basic header (any latin-1 bytes) at the token endpoint: 200 or an
    OAuth 400."""
    headers: dict[str, bytes] = {"Content-Type": b"application/x-www-form-urlencoded"}
    value = auth.replace(b"\r", b"").replace(b"\n", b"").replace(b"\x00", b"").strip()
    if value:
        headers["Authorization"] = b"Basic " + value
    response = await http.post("/oauth2/token", content=body, headers=headers)
    assert response.status_code in (200, 400)
    assert "error" in response.json() or "access_token" in response.json()


# -- purchases, the payer's pages, account --------------------------------------------------

DEFAULT_BRAND = "4b0d6e2a-1c3f-4a5b-8d7e-9f0a1b2c3d4e"
purchase_fields = st.fixed_dictionaries(
    {},
    optional={
        name: json_values | st.text(max_size=300)
        for name in (*PurchaseInput.__struct_fields__, "client_id")
    },
)
product_bodies = st.fixed_dictionaries(
    {"name": st.text(max_size=300) | json_values},
    optional={
        "price": st.integers() | json_values,
        "quantity": st.floats() | json_values,
        "discount": st.integers(),
        "tax_percent": st.floats() | st.integers(),
    },
)
purchase_bodies = st.builds(
    lambda base, products, details: {
        "client": {"email": "fuzz@example.com"},
        "brand_id": DEFAULT_BRAND,
        "purchase": {"products": products, **details},
        **base,
    },
    purchase_fields,
    st.lists(product_bodies, max_size=3),
    st.dictionaries(st.sampled_from(DetailsInput.__struct_fields__), json_values, max_size=3),
)


@FUZZ
@given(body=st.one_of(purchase_bodies.map(lambda d: json.dumps(d).encode()), bodies))
async def test_purchase_create(http, body):
    """Any body to POST /purchases/: a 201 or a gateway-dialect 4xx."""
    response = await http.post("/api/v1/purchases/", content=body, headers=GW)
    assert_gateway_shape(response.status_code, response.json())


ACTIONS = ["cancel/", "release/", "capture/", "charge/", "refund/", "delete_recurring_token/",
           "mark_as_paid/"]  # fmt: skip
action_bodies = st.one_of(
    st.dictionaries(
        st.sampled_from(["amount", "recurring_token", "paid_on"]), json_values, max_size=2
    ).map(lambda d: json.dumps(d).encode()),
    bodies,
)


@FUZZ
@given(action=st.sampled_from(ACTIONS), body=action_bodies, known=st.booleans(), pid=path_ids)
async def test_purchase_actions(http, action, body, known, pid):
    """Any body to any action, on a real purchase (paid or not) or any id: never a 500."""
    if known:
        made = await http.post(
            "/api/v1/purchases/",
            json={"client": {"email": "f@example.com"}, "brand_id": DEFAULT_BRAND,
                  "purchase": {"products": [{"name": "x", "price": 100}]}, "skip_capture": True},
            headers=GW,
        )  # fmt: skip
        pid = made.json()["id"]
        await http.post(f"/_emulator/purchases/{pid}/pay")
    response = await http.post(f"/api/v1/purchases/{pid}/{action}", content=body, headers=GW)
    assert_gateway_shape(response.status_code, response.json())


account_queries = st.dictionaries(
    st.sampled_from(["brand", "terminal_uid", "currency", "payment_method", "product", "flow",
                     "country", "tokenized", "from", "to", "brand_id", "x"]),
    st.text(max_size=40) | st.sampled_from(["ZAR", "true", "visa", "1700000000", DEFAULT_BRAND]),
    max_size=4,
)  # fmt: skip


@FUZZ
@given(
    path=st.sampled_from(["account/json/balance/", "account/json/turnover/", "payment_methods/"]),
    query=account_queries,
)
async def test_account_reads(http, path, query):
    response = await http.get(f"/api/v1/{path}", params=query, headers=GW)
    assert_gateway_shape(response.status_code, response.json())


card_bodies = st.fixed_dictionaries(
    {},
    optional={
        "card_number": st.sampled_from(["4444333322221111", "5555555555554444"])
        | st.text(max_size=25),
        "expires": st.sampled_from(["12/30", "01/26"]) | st.text(max_size=6),
        "cvc": st.sampled_from(["123"]) | st.text(max_size=5),
        "cardholder_name": st.text(max_size=35),
        "remember_card": st.booleans() | st.integers() | st.text(max_size=5) | st.none(),
    },
)


@FUZZ
@given(
    card=card_bodies,
    kind=st.sampled_from(["json", "form", "raw"]),
    raw=st.binary(max_size=100),
    target=st.sampled_from(["/direct_post/?s2s=true", "/direct_post/", "/", "/3ds/x/"]),
)
async def test_payer_pages(http, card, kind, raw, target):
    """Any card fields, as JSON, a form or raw bytes, to the payer's pages: never a 500."""
    made = await http.post(
        "/api/v1/purchases/",
        json={"client": {"email": "f@example.com"}, "brand_id": DEFAULT_BRAND,
              "purchase": {"products": [{"name": "x", "price": 100}]}},
        headers=GW,
    )  # fmt: skip
    url = f"/p/{made.json()['id']}{target}"
    if kind == "json":
        response = await http.post(url, json=card)
    elif kind == "form":
        response = await http.post(url, data={k: str(v) for k, v in card.items()})
    else:
        response = await http.post(url, content=raw)
    assert response.status_code < 500
    control = await http.post(f"/_emulator/purchases/{made.json()['id']}/pay", json=card)
    assert control.status_code < 500


scenario_rules = st.fixed_dictionaries(
    {"when": st.sampled_from(["http.request", "collection.outcome", "purchase.payment", "x"])},
    optional={"match": json_values, "then": json_values, "times": json_values},
)
scenario_docs = st.fixed_dictionaries(
    {"name": st.sampled_from(["fuzzed", "Bad Name", ""]) | st.text(max_size=8)},
    optional={
        "rules": st.lists(scenario_rules, max_size=3) | json_values,
        "description": json_values,
    },
)


@FUZZ
@given(
    body=st.one_of(
        scenario_docs.map(lambda d: json.dumps(d).encode()),  # JSON is YAML
        st.binary(max_size=200),
        st.text(max_size=200).map(str.encode),
    )
)
async def test_scenario_loading(http, body):
    """Any body is a 201 or a located 400 invalid_scenario, never a 500; whatever loaded
    activates and deactivates."""
    response = await http.post("/_emulator/scenarios", content=body)
    assert response.status_code in (201, 400), response.text
    if response.status_code == 400:
        assert response.json()["error"]["code"] == "invalid_scenario"
        return
    name = response.json()["name"]
    assert (await http.post(f"/_emulator/scenarios/{name}/activate")).status_code == 200
    assert (await http.get("/api/v1/clients/", headers=GW)).status_code < 600
    assert (await http.post(f"/_emulator/scenarios/{name}/deactivate")).status_code == 200


BANK_WRITES = [
    "/v2/collection/eft",
    "/v2/collection/eft/from_mandate",
    "/v2/collection/debicheck/from_mandate",
    "/v2/collection/debicheck/{id}/recreate_as_eft",
    "/v2/mandate/eft",
    "/v2/mandate/debicheck",
    "/v2/mandate/debicheck/{id}/reset",
    "/v2/payment/eft",
    "/v2/payment/eft/upload/csv",
    "/v2/accountverification/validate",
    "/v2/clientcallbackurl/",
    "/v2/callback/collection/eft/{id}/",
    "/v2/callback/test/collection/eft/{id}/",
]
BANK_READS = [
    "/v2/collection/debicheck",
    "/v2/collection/eft/{id}/status",
    "/v2/collection/debicheck/{id}/status",
    "/v2/mandate/eft",
    "/v2/mandate/debicheck/{id}/status",
    "/v2/payment/eft/{id}/status",
    "/v2/event/mandate",
    "/v2/event/collection",
    "/v2/event/payment",
    "/v2/bankaccountstatement/{id}/{id}",
    "/v2/collection/eft/download/csv/{id}",
]
bank_fields = st.sampled_from(
    ["collectionStatus", "overrideUrl", "debtor", "creditor", "amountCents", "profileCode", "externalReference", "serviceType",
     "collectionDate", "paymentDate", "mandateId", "trackingPeriod", "debitSequence",
     "authenticationType", "maxAmountCents", "accountType", "bank", "accountNumber", "url",
     "clientId", "callbackType", "callbackVersion", "merchantProfileId", "releaseDate"]
)  # fmt: skip
# Digits of every script (superscripts, Arabic-Indic...: str.isdigit() says yes, int() no)
# and instants whose offset takes them out of 1970-9000 in UTC.
any_digits = st.text(
    alphabet=st.sampled_from("0123456789\u00b2\u00b3\u0660\u0661\u0665\u0967\uff11"),
    min_size=6,
    max_size=11,
)
branches = st.sampled_from(["051001", "250655", "470010", "462005"]) | any_digits
edge_instants = st.builds(
    "{:04d}-{:02d}-{:02d}T{:02d}:00:00{:+03d}:00".format,
    st.sampled_from([1, 1969, 1970, 2026, 8999, 9000, 9999]),
    st.sampled_from([1, 12]),
    st.sampled_from([1, 31]),
    st.integers(0, 23),
    st.integers(-23, 23),
)
bank_accounts = st.fixed_dictionaries(
    {"accountNumber": any_digits, "branchCode": branches},
    optional={"bank": st.sampled_from(["BIDVEST_BANK", "FNB", "nope"])},
)
bank_edge_bodies = st.fixed_dictionaries(
    {
        "profileCode": st.just("DEFAULT01"), "accountType": st.just("CURRENT"),
        "debtor": bank_accounts, "creditor": bank_accounts, "accountNumber": any_digits,
        "branchCode": branches, "externalReference": st.text(min_size=1, max_size=8),
        "amountCents": st.integers(1, 10**6), "maxAmountCents": st.integers(1, 10**6),
        "contractReference": st.just("C"), "abbreviatedName": st.just("A"),
    },
    optional={
        "validateAccount": st.booleans(), "verifyAccount": st.booleans(),
        "ultimateCreditor": bank_accounts, "releaseDate": edge_instants,
        "collectionDate": edge_instants, "paymentDate": edge_instants,
        "firstCollectionDate": edge_instants,
    },
)  # fmt: skip
bank_bodies = st.one_of(
    st.dictionaries(bank_fields, json_values | st.text(max_size=300), max_size=6).map(
        lambda d: json.dumps({**d, "profileCode": d.get("profileCode", "DEFAULT01")}).encode()
    ),
    bodies,
)
bank_queries = st.dictionaries(
    st.sampled_from(
        ["skip", "take", "state", "eventId", "fromEventId", "fromTimestamp", "collectionDate",
         "sequenceNumber", "bulkId", "isError", "isStatementIdNull", "debitSequence", "mandateId"]
    ),
    st.text(max_size=12),
    max_size=3,
)  # fmt: skip


async def default_token(http) -> dict[str, str]:
    response = await http.post(
        "/oauth2/token",
        auth=("emulator-default-client", "emulator-default-secret"),
        data={"grant_type": "client_credentials"},
    )
    return {"Authorization": f"Bearer {response.json()['access_token']}"}


def assert_bank_shape(status: int, body: Any) -> None:
    assert status < 500
    if status >= 400:
        assert body["statusCode"] == status
        if status == 400:
            assert set(body) == {
                "value",
                "formatters",
                "contentTypes",
                "declaredType",
                "statusCode",
            }


@FUZZ
@given(path=st.sampled_from(BANK_WRITES), body=bank_bodies, object_id=path_ids)
async def test_bank_writes(http, path, body, object_id):
    """Any body to any v2 write endpoint: a 2xx or a v2-dialect 4xx."""
    headers = await default_token(http)
    response = await http.post(path.replace("{id}", object_id), content=body, headers=headers)
    assert_bank_shape(response.status_code, response.json())


BANK_ACCOUNT_WRITES = [
    "/v2/collection/eft",
    "/v2/mandate/eft",
    "/v2/mandate/debicheck",
    "/v2/payment/eft",
    "/v2/accountverification/validate",
]


@settings(FUZZ, max_examples=300)
@given(path=st.sampled_from(BANK_ACCOUNT_WRITES), body=bank_edge_bodies)
async def test_bank_writes_at_the_edges(http, path, body):
    """Well-formed v2 bodies with digits of other scripts and instants at the clock's edges:
    a 2xx or a v2-dialect 4xx."""
    headers = await default_token(http)
    response = await http.post(path, json=body, headers=headers)
    assert_bank_shape(response.status_code, response.json())


@FUZZ
@given(path=st.sampled_from(BANK_READS), query=bank_queries, object_id=path_ids)
async def test_bank_object_reads(http, path, query, object_id):
    """Any id and query on the v2 reads: never a 500, always the v2 dialect."""
    headers = await default_token(http)
    response = await http.get(path.replace("{id}", object_id), params=query, headers=headers)
    json_body = response.headers["content-type"].startswith("application/json")
    if response.status_code >= 400:
        assert_bank_shape(response.status_code, response.json() if json_body else None)
    assert response.status_code < 500


@FUZZ
@given(
    method=st.sampled_from(["POST", "PUT", "PATCH"]),
    resource=st.sampled_from(["payouts", "webhooks", "execute"]),
    body=bodies,
    object_id=path_ids,
)
async def test_payout_and_webhook_writes(http, method, resource, body, object_id):
    """Any body to payouts, webhooks and execution URLs: a 2xx or a gateway-dialect 4xx."""
    if resource == "execute":
        path = f"/payouts/{object_id}/execute/token/"
    elif method == "POST":
        path = f"/api/v1/{resource}/"
    else:
        path = f"/api/v1/webhooks/{object_id}/"
    response = await http.request(method, path, content=body, headers=GW)
    assert_gateway_shape(response.status_code, response.json())


payout_card_bodies = st.fixed_dictionaries(
    {},
    optional={
        name: json_values | st.text(alphabet="0123456789 aZ-", max_size=22)
        for name in CardInput.__struct_fields__
    },
).map(lambda d: json.dumps(d).encode())


@FUZZ
@given(body=st.one_of(payout_card_bodies, bodies))
async def test_payout_execution_bodies(http, body):
    """Any card payload at a real execution URL: 200, or 400 in the gateway dialect."""
    created = await http.post(
        "/api/v1/payouts/",
        json={
            "client": {"email": "payee@example.com"},
            "payment": {"amount": 100, "currency": "ZAR"},
            "brand_id": "4b0d6e2a-1c3f-4a5b-8d7e-9f0a1b2c3d4e",
        },
        headers=GW,
    )
    path = httpx.URL(created.json()["execution_url"]).path
    response = await http.post(path, content=body)
    assert response.status_code in (200, 400)
    assert_gateway_shape(response.status_code, response.json())


@FUZZ
@given(object_id=path_ids, query=queries)
async def test_payout_and_webhook_reads(http, object_id, query):
    """Any id and query on payouts, webhooks and the deliveries log: never a 500."""
    for path in (
        f"/api/v1/payouts/{object_id}/",
        f"/api/v1/webhooks/{object_id}/",
        "/api/v1/payouts/",
        "/api/v1/webhooks/",
        "/api/v1/webhooks/deliveries/",
    ):
        response = await http.get(path, params=query, headers=GW)
        assert_gateway_shape(response.status_code, response.json())
