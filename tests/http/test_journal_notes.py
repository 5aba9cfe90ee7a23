"""A 401 in the request journal says why: which credential was missing or wrong, and how. The
answer itself stays the interface's own."""

from __future__ import annotations

import pytest

from tests.conftest import DEFAULT_KEY

PRODUCTION = "a production API key"
UNKNOWN = "neither an API key nor a live access token"
NOT_A_TOKEN = "not a live access token from /oauth2/token"


@pytest.mark.parametrize(
    ("path", "headers", "note"),
    [
        ("/api/v1/clients/", {}, "no Authorization header; expected 'Bearer <API key"),
        ("/api/v1/clients/", {"Authorization": "Basic eDp5"}, "Authorization scheme 'Basic'"),
        ("/api/v1/clients/", {"Authorization": "Bearer "}, "a malformed Bearer credential"),
        ("/api/v1/clients/", {"Authorization": "Bearer nope"}, UNKNOWN),
        ("/v2/merchantprofile", {}, "no Authorization header; expected 'Bearer <access token"),
        ("/v2/merchantprofile", {"Authorization": "Bearer nope"}, NOT_A_TOKEN),
    ],
)
async def test_a_401_is_journaled_with_its_reason(http, path, headers, note):
    response = await http.get(path, headers=headers)
    assert response.status_code == 401
    entry = (await http.get("/_emulator/requests?limit=1")).json()["requests"][0]
    assert (entry["path"], entry["status"]) == (path, 401)
    assert note in entry["note"]
    assert entry["note"] not in response.text  # the caller gets the provider's answer only


async def test_a_production_key_is_named_as_such(http, merchant):
    production = {"Authorization": f"Bearer {merchant['production_api_key']}"}
    for path in ("/api/v1/clients/", "/v2/merchantprofile"):
        assert (await http.get(path, headers=production)).status_code == 401
        entry = (await http.get("/_emulator/requests?limit=1")).json()["requests"][0]
        assert PRODUCTION in entry["note"], path


async def test_answered_requests_have_no_note(http):
    ok = await http.get("/api/v1/clients/", headers={"Authorization": f"Bearer {DEFAULT_KEY}"})
    assert ok.status_code == 200
    entry = (await http.get("/_emulator/requests?limit=1")).json()["requests"][0]
    assert entry["note"] is None
