"""Authentication of both interfaces and the OAuth 2.0 token endpoint."""

from __future__ import annotations

import asyncio
import base64

import pytest

from tests.conftest import DEFAULT_CLIENT, DEFAULT_KEY, token_for

UNAUTHORIZED_V2 = {"statusCode": 401, "message": "Unauthorized"}


async def test_token_endpoint_issues_a_bearer_token(http):
    """Client credentials with HTTP Basic and a form body give a 24-hour bearer token."""
    response = await http.post(
        "/oauth2/token", auth=DEFAULT_CLIENT, data={"grant_type": "client_credentials"}
    )
    assert response.status_code == 200
    body = response.json()
    assert set(body) == {"access_token", "expires_in", "token_type"}
    assert (body["expires_in"], body["token_type"]) == (86400, "Bearer")
    assert response.headers["cache-control"] == "no-store"


@pytest.mark.parametrize(
    ("auth", "form", "error"),
    [
        pytest.param(
            ("emulator-default-client", "wrong"),
            {"grant_type": "client_credentials"},
            "invalid_client",
            id="wrong-secret",
        ),
        pytest.param(
            ("nobody", "x"),
            {"grant_type": "client_credentials"},
            "invalid_client",
            id="unknown-client",
        ),
        pytest.param(
            None, {"grant_type": "client_credentials"}, "invalid_client", id="no-basic-auth"
        ),
        pytest.param(
            DEFAULT_CLIENT, {"grant_type": "password"}, "unsupported_grant_type", id="wrong-grant"
        ),
        pytest.param(DEFAULT_CLIENT, {}, "invalid_request", id="no-grant"),
    ],
)
async def test_token_endpoint_errors(http, auth, form, error):
    """Wrong credentials are invalid_client; a wrong grant is unsupported_grant_type (400)."""
    response = await http.post("/oauth2/token", auth=auth, data=form)
    assert response.status_code == 400
    assert response.json()["error"] == error


async def test_token_endpoint_wants_a_form_body(http):
    """A JSON body is an invalid_request."""
    response = await http.post(
        "/oauth2/token", auth=DEFAULT_CLIENT, json={"grant_type": "client_credentials"}
    )
    assert (response.status_code, response.json()["error"]) == (400, "invalid_request")


async def test_garbled_basic_header_is_invalid_client(http):
    """A Basic header that is not base64 of id:secret is invalid_client."""
    for value in ("Basic %%%", "Basic " + base64.b64encode(b"no-colon").decode(), b"Basic \xe9"):
        response = await http.post(
            "/oauth2/token",
            headers={"Authorization": value},
            data={"grant_type": "client_credentials"},
        )
        assert response.json()["error"] == "invalid_client", value


async def test_token_expires_on_the_emulator_clock(http, runtime):
    """After 86400 s on the emulator clock the token is a 401; a new token works."""
    token = await token_for(http, *DEFAULT_CLIENT)
    headers = {"Authorization": f"Bearer {token}"}
    assert (await http.get("/v2/merchantprofile", headers=headers)).status_code == 200
    await http.post("/_emulator/clock/advance", json={"seconds": 86399})
    assert (await http.get("/v2/merchantprofile", headers=headers)).status_code == 200
    advanced = await http.post("/_emulator/clock/advance", json={"seconds": 1})
    assert advanced.json()["jobs_run"] == 2  # the token's expiry job, and the daily retention
    expired = await http.get("/v2/merchantprofile", headers=headers)
    assert (expired.status_code, expired.json()) == (401, UNAUTHORIZED_V2)
    assert (await http.get("/api/v1/clients/", headers=headers)).status_code == 401
    fresh = await token_for(http, *DEFAULT_CLIENT)
    ok = await http.get("/v2/merchantprofile", headers={"Authorization": f"Bearer {fresh}"})
    assert ok.status_code == 200


@pytest.mark.parametrize(
    "header",
    [
        pytest.param(None, id="absent"),
        pytest.param(DEFAULT_KEY, id="no-bearer-word"),
        pytest.param("Bearer", id="bearer-without-key"),
        pytest.param("Basic abc", id="other-scheme"),
        pytest.param("Bearer a b", id="two-words"),
    ],
)
async def test_gateway_missing_or_malformed_authorization(http, header):
    """No Authorization, or not 'Bearer <key>': 401 missing_authorization."""
    headers = {"Authorization": header} if header else {}
    response = await http.get("/api/v1/clients/", headers=headers)
    assert response.status_code == 401
    assert response.json() == {
        "__all__": {
            "message": "Authorization header is missing or malformed; expected 'Bearer <key>'.",
            "code": "missing_authorization",
        }
    }


@pytest.mark.parametrize(
    "key",
    [
        pytest.param("sk_test_wrong", id="unknown"),
        pytest.param("sk_live_emulator_default_key", id="production-key"),
    ],
)
async def test_gateway_wrong_key_is_invalid_token(http, key):
    """An unknown key, or the production key of this sandbox, is 401 invalid_token."""
    response = await http.get("/api/v1/clients/", headers={"Authorization": f"Bearer {key}"})
    assert response.status_code == 401
    assert response.json() == {"__all__": {"message": "Invalid token.", "code": "invalid_token"}}


async def test_gateway_accepts_the_sandbox_key_and_access_tokens(http):
    """The gateway takes the sandbox API key or an OAuth access token of the merchant."""
    by_key = await http.get("/api/v1/clients/", headers={"Authorization": f"Bearer {DEFAULT_KEY}"})
    token = await token_for(http, *DEFAULT_CLIENT)
    by_token = await http.get("/api/v1/clients/", headers={"Authorization": f"Bearer {token}"})
    assert (by_key.status_code, by_token.status_code) == (200, 200)


@pytest.mark.parametrize(
    "header",
    [None, "Bearer nope", "Token abc", "Bearer"],
)
async def test_bank_unauthorized(http, header):
    """v2 without a valid token: 401 {statusCode, message}."""
    headers = {"Authorization": header} if header else {}
    response = await http.get("/v2/merchantprofile", headers=headers)
    assert (response.status_code, response.json()) == (401, UNAUTHORIZED_V2)


async def test_bank_takes_the_production_key_as_an_invalid_token(http):
    """The production key is invalid anywhere in a sandbox: 401 on v2 as on the gateway."""
    response = await http.get(
        "/v2/merchantprofile", headers={"Authorization": "Bearer sk_live_emulator_default_key"}
    )
    assert (response.status_code, response.json()) == (401, UNAUTHORIZED_V2)


async def test_bank_refuses_api_keys_with_403(http):
    """A gateway API key is a known credential without v2 permission: 403."""
    response = await http.get(
        "/v2/merchantprofile", headers={"Authorization": f"Bearer {DEFAULT_KEY}"}
    )
    assert (response.status_code, response.json()) == (
        403,
        {"statusCode": 403, "message": "Forbidden"},
    )


async def test_a_lookup_racing_a_reset_does_not_cache_the_old_credential(runtime):
    """A key read from the database before a reset, answered after it, is not kept: the next
    request looks again (and finds the merchant gone)."""
    credentials = runtime.credentials
    lookup = asyncio.ensure_future(credentials.gateway_caller(DEFAULT_KEY))
    await asyncio.sleep(0)  # the lookup is now waiting on the read connection
    credentials.forget()  # what a reset or restore does once the state is replaced
    await lookup
    assert credentials._keys == {}
