"""GET /v2/merchantprofile: the token's profiles, filters, paging, errors."""

from __future__ import annotations

import pytest

from tests.conftest import DEFAULT_CLIENT, token_for

DEFAULT_PROFILES = [
    {
        "id": 1,
        "profileCode": "DEFAULT01",
        "abbreviatedName": "DEFAULTMER",
        "name": "Default Merchant (Pty) Ltd",
        "accountNumber": "4052218811",
        "branchCode": "051001",
        "bank": "STANDARDBANK_SA",
        "currency": "ZAR",
        "instruments": ["EFTONEDAY", "EFTTWODAY", "EFTSAMEDAY", "DEBICHECK"],
        "entryClass": "35",
        "createdByClient": 1001,
        "contactName": "Sandbox Support",
        "contactEmail": "support@merchant.example",
        "contactPhone": "+27215550100",
    },
    {
        "id": 2,
        "profileCode": "DEFAULT02",
        "abbreviatedName": "DEFAULTINS",
        "name": "Default Merchant Insurance (Pty) Ltd",
        "accountNumber": "62001234567",
        "branchCode": "250655",
        "bank": "FNB",
        "currency": "ZAR",
        "instruments": ["EFTONEDAY", "EFTTWODAY", "DEBICHECK"],
        "entryClass": "21",
        "createdByClient": 1001,
        "contactName": "Sandbox Support",
        "contactEmail": "support@merchant.example",
        "contactPhone": "+27215550100",
    },
]


@pytest.fixture
async def default_v2(http):
    token = await token_for(http, *DEFAULT_CLIENT)
    return {"Authorization": f"Bearer {token}"}


@pytest.mark.parametrize("path", ["/v2/merchantprofile", "/v2/merchantprofile/"])
async def test_lists_the_default_merchants_profiles(http, default_v2, path):
    """Both spellings of the path return the token's profiles in id order."""
    response = await http.get(path, headers=default_v2)
    assert response.status_code == 200
    assert response.json() == DEFAULT_PROFILES


async def test_a_token_sees_only_its_merchants_profiles(http, merchant, v2):
    """A fresh merchant's token lists its own profile, never the default merchant's."""
    body = (await http.get("/v2/merchantprofile", headers=v2)).json()
    assert [p["profileCode"] for p in body] == [p["profileCode"] for p in merchant["profiles"]]
    assert [p["createdByClient"] for p in body] == [
        p["createdByClient"] for p in merchant["profiles"]
    ]


@pytest.mark.parametrize(
    ("query", "codes"),
    [
        pytest.param("profileCode=DEFAULT02", ["DEFAULT02"], id="profileCode"),
        pytest.param("creditorProfileId=1", ["DEFAULT01"], id="creditorProfileId"),
        pytest.param("abbreviatedName=DEFAULTINS", ["DEFAULT02"], id="abbreviatedName"),
        pytest.param("accountNumber=4052218811", ["DEFAULT01"], id="accountNumber"),
        pytest.param("instrument=EFTSAMEDAY", ["DEFAULT01"], id="instrument"),
        pytest.param(
            "instruments=DEBICHECK,EFTONEDAY", ["DEFAULT01", "DEFAULT02"], id="instruments"
        ),
        pytest.param("profileCode=NOPE", [], id="no-match"),
        pytest.param("skip=1", ["DEFAULT02"], id="skip"),
        pytest.param("take=1", ["DEFAULT01"], id="take"),
        pytest.param("skip=1&take=1", ["DEFAULT02"], id="skip-and-take"),
    ],
)
async def test_filters_and_paging(http, default_v2, query, codes):
    """Every listed filter narrows the list; skip/take page it."""
    body = (await http.get(f"/v2/merchantprofile?{query}", headers=default_v2)).json()
    assert [p["profileCode"] for p in body] == codes


@pytest.mark.parametrize(
    ("query", "message"),
    [
        pytest.param("skip=abc", "The value 'abc' is not valid for skip.", id="skip-not-int"),
        pytest.param("take=0", "take must be between 1 and 1000.", id="take-zero"),
        pytest.param("take=5000", "take must be between 1 and 1000.", id="take-too-big"),
        pytest.param(
            "creditorProfileId=x",
            "The value 'x' is not valid for creditorProfileId.",
            id="id-not-int",
        ),
        pytest.param(
            "instrument=CHEQUE",
            "instrument: 'CHEQUE' is not one of EFTONEDAY, EFTTWODAY, EFTSAMEDAY, DEBICHECK.",
            id="unknown-instrument",
        ),
    ],
)
async def test_bad_query_values_are_400_naming_the_parameter(http, default_v2, query, message):
    """A bad query value is the v2 400 body whose Message names the parameter."""
    response = await http.get(f"/v2/merchantprofile?{query}", headers=default_v2)
    assert response.status_code == 400
    assert response.json() == {
        "value": {"Message": message},
        "formatters": [],
        "contentTypes": [],
        "declaredType": None,
        "statusCode": 400,
    }
