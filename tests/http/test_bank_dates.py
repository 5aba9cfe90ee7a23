"""v2 date-times at the edges of the clock's range: a 400 naming the field, never a 500."""

from __future__ import annotations

import pytest

from tests.http.bank_helpers import bad_request, debicheck_body, debtor, eft_body

RANGE = "from 1970-01-01T00:00:00Z to 9000-01-01T00:00:00Z"

OUT_OF_RANGE = [
    # Year 9000 locally, 9001 in UTC: the year was checked before the offset was applied.
    pytest.param("9000-12-31T23:00:00-02:00", id="after-9000-in-utc"),
    pytest.param("9000-06-01", id="year-9000"),
    pytest.param("9999-12-31T23:00:00-02:00", id="overflows-in-utc"),
    # 1970 locally, 1969 in UTC.
    pytest.param("1970-01-01T01:00:00+02:00", id="before-1970-in-utc"),
    pytest.param("0001-01-01T00:00:00+01:00", id="year-1"),
]


@pytest.fixture
def profile(merchant):
    return merchant["profiles"][0]["profileCode"]


def payment(profile, when):
    return {
        "debtor": debtor("4052218811", "051001"),
        "creditor": {"accountNumber": "62000000001", "branchCode": "250655"},
        "amountCents": 1000,
        "paymentDate": when,
        "profileCode": profile,
        "abbreviatedName": "PAYROLL",
        "contractReference": "INV-1",
    }


@pytest.mark.parametrize("when", OUT_OF_RANGE)
async def test_out_of_range_dates_are_400(http, v2, profile, when):
    message = f"'{when}' is out of range ({RANGE})"
    requests = [
        ("/v2/mandate/eft", {**eft_body(profile), "releaseDate": when}, "releaseDate"),
        ("/v2/collection/eft", eft_body(profile, releaseDate=when), "releaseDate"),
        ("/v2/collection/eft", eft_body(profile, collectionDate=when), "collectionDate"),
        ("/v2/mandate/debicheck", debicheck_body(profile, releaseDate=when), "releaseDate"),
        (
            "/v2/mandate/debicheck",
            debicheck_body(profile, firstCollectionDate=when),
            "firstCollectionDate",
        ),
        ("/v2/payment/eft", payment(profile, when), "paymentDate"),
    ]
    for path, body, field in requests:
        response = await http.post(path, json=body, headers=v2)
        assert response.json() == bad_request(f"{field}: {message}"), path
    events = await http.get("/v2/event/collection", params={"fromTimestamp": when}, headers=v2)
    assert events.json() == bad_request(f"The value '{when}' is not valid for fromTimestamp.")


async def test_the_last_instant_before_9000_is_accepted(http, v2, profile):
    body = eft_body(profile, releaseDate="9000-01-01T01:59:59+02:00")
    response = await http.post("/v2/collection/eft", json=body, headers=v2)
    assert response.status_code == 201, response.text
    assert response.json()["mandateId"]
    mandate = await http.get(f"/v2/mandate/eft/{response.json()['mandateId']}/status", headers=v2)
    assert mandate.json()["releaseDate"] == "8999-12-31T23:59:59Z"
