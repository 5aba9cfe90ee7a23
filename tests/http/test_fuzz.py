"""Never a 500 for bad input: generated bodies, ids and queries against every endpoint."""

from __future__ import annotations

import json
from typing import Any

import httpx
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from emulator.domain.clients import ClientInput
from emulator.domain.payout_cards import CardInput
from emulator.domain.payouts import PayoutInput
from emulator.domain.webhooks import WebhookInput
from tests.conftest import DEFAULT_KEY

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


card_bodies = st.fixed_dictionaries(
    {},
    optional={
        name: json_values | st.text(alphabet="0123456789 aZ-", max_size=22)
        for name in CardInput.__struct_fields__
    },
).map(lambda d: json.dumps(d).encode())


@FUZZ
@given(body=st.one_of(card_bodies, bodies))
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
