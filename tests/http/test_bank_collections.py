"""v2 EFT collections: creation with its mandate, rules 1 to 3, reads and lists."""

from __future__ import annotations

import asyncio

import pytest

from tests.conftest import DEFAULT_CLIENT, token_for
from tests.http.bank_helpers import bad_request, debtor, eft_body


@pytest.fixture
def profile(merchant):
    return merchant["profiles"][0]["profileCode"]


async def test_eft_collection_is_pending_with_its_mandate(http, v2, profile, merchant):
    """201: a PENDING collection on a new ACTIVE EFT mandate findable by externalReference."""
    response = await http.post("/v2/collection/eft", json=eft_body(profile), headers=v2)
    assert response.status_code == 201
    body = response.json()
    [own] = (await http.get("/v2/merchantprofile", headers=v2)).json()
    creditor = {
        "accountNumber": own["accountNumber"],
        "branchCode": own["branchCode"],
        "name": own["name"],
        "abbreviatedName": own["abbreviatedName"],
        "bank": own["bank"],
    }
    assert body == {
        "id": body["id"],
        "type": "EFT",
        "status": "PENDING",
        "mandateId": body["mandateId"],
        "externalReference": "REF-1",
        "contractReference": "C-1",
        "abbreviatedName": "GYM",
        "amountCents": 12_345,
        "currency": "ZAR",
        "collectionDate": None,
        "actionDate": "2026-01-06",
        "serviceType": "ONEDAY",
        "profileCode": profile,
        "debtor": {
            "accountNumber": "110000001",
            "branchCode": "051001",
            "accountType": "CURRENT",
            "name": "J Doe",
            "bank": None,
            "idNumber": None,
            "initials": None,
            "email": None,
            "cellphone": None,
        },
        "creditor": creditor,
        "ultimateCreditor": None,
        "debitSequence": None,
        "trackingPeriod": None,
        "mandateReferenceNumber": None,
        "sequenceNumber": 1,
        "statementId": None,
        "reason": None,
        "reasonCode": None,
        "requestedActionDate": None,
        "actionDateReason": None,
        "disputeWindowClosesOn": None,
        "attempts": [],
        "recreatedFromId": None,
        "representedFromId": None,
        "bulkId": None,
        "submissionDate": "2026-01-05T09:00:00Z",
        "createdAt": "2026-01-05T09:00:00Z",
        "updatedAt": "2026-01-05T09:00:00Z",
    }
    mandates = (await http.get("/v2/mandate/eft?externalReference=REF-1", headers=v2)).json()
    assert [(m["id"], m["status"], m["type"]) for m in mandates] == [
        (body["mandateId"], "ACTIVE", "EFT")
    ]
    status = await http.get(f"/v2/collection/eft/{body['id']}/status", headers=v2)
    assert status.status_code == 200
    assert status.json() == body
    mandate = await http.get(f"/v2/mandate/eft/{body['mandateId']}/status", headers=v2)
    assert mandate.json() == mandates[0]


async def test_rule_1_another_merchants_profile_does_not_exist(http, v2):
    """A profile code of another merchant (or none at all) is 400 'profile code does not exist'."""
    response = await http.post("/v2/collection/eft", json=eft_body("DEFAULT01"), headers=v2)
    assert response.status_code == 400
    assert response.json() == bad_request("profile code does not exist")


async def test_rule_2_duplicate_reference_is_400(http, v2, profile):
    """A second EFT collection with the same externalReference: 400, nothing stored."""
    first = await http.post("/v2/collection/eft", json=eft_body(profile), headers=v2)
    assert first.status_code == 201
    second = await http.post("/v2/collection/eft", json=eft_body(profile), headers=v2)
    assert second.status_code == 400
    assert second.json() == bad_request("mandate with this external reference already exists")
    mandates = (await http.get("/v2/mandate/eft", headers=v2)).json()
    assert len(mandates) == 1


async def test_rule_2_holds_under_concurrent_requests(http, v2, profile):
    """Ten concurrent duplicates: exactly one 201, nine 400."""
    responses = await asyncio.gather(
        *(http.post("/v2/collection/eft", json=eft_body(profile), headers=v2) for _ in range(10))
    )
    assert sorted(r.status_code for r in responses) == [201] + [400] * 9


async def test_the_same_reference_in_two_merchants_is_fine(http, v2, profile):
    """References are unique per merchant."""
    token = await token_for(http, *DEFAULT_CLIENT)
    other = {"Authorization": f"Bearer {token}"}
    assert (
        await http.post("/v2/collection/eft", json=eft_body(profile), headers=v2)
    ).status_code == 201
    response = await http.post("/v2/collection/eft", json=eft_body("DEFAULT01"), headers=other)
    assert response.status_code == 201


async def test_another_merchants_collection_is_404(http, v2, profile):
    """Objects of another merchant do not exist for the token."""
    created = (await http.post("/v2/collection/eft", json=eft_body(profile), headers=v2)).json()
    token = await token_for(http, *DEFAULT_CLIENT)
    other = {"Authorization": f"Bearer {token}"}
    response = await http.get(f"/v2/collection/eft/{created['id']}/status", headers=other)
    assert response.status_code == 404
    assert response.json() == {"statusCode": 404, "message": "Resource not found"}


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        pytest.param({"debtor": None}, "debtor is required", id="no-debtor"),
        pytest.param(
            {"debtor": debtor("12ab")},
            "debtor.accountNumber is required and must be digits",
            id="bad-account",
        ),
        pytest.param({"amountCents": None}, "amountCents is required", id="no-amount"),
        pytest.param(
            {"externalReference": None}, "externalReference is required", id="no-reference"
        ),
        pytest.param({"currency": "USD"}, "currency: only ZAR is supported", id="currency"),
        pytest.param(
            {"releaseDate": "2026-01-05T08:00:00Z"},
            "releaseDate must be in the future",
            id="release-in-the-past",
        ),
        pytest.param(
            {"entryClass": "99"}, "entryClass: '99' is not a known entry class", id="entry-class"
        ),
        pytest.param(
            {"collectionDate": "soon"},
            "collectionDate: 'soon' is not an ISO 8601 date-time",
            id="date",
        ),
        pytest.param(
            {"amountCents": "12"}, "amountCents: Expected `int | null`, got `str`", id="amount-type"
        ),
        pytest.param({"amountCents": 0}, "amountCents: Expected `int` >= 1", id="amount-zero"),
        pytest.param(
            {"serviceType": "NEXTWEEK"},
            "serviceType: Invalid enum value 'NEXTWEEK'",
            id="service-type",
        ),
    ],
)
async def test_invalid_bodies_are_400_naming_the_field(http, v2, profile, changes, message):
    """Each invalid field is the v2 400 body whose Message names it."""
    response = await http.post("/v2/collection/eft", json=eft_body(profile, **changes), headers=v2)
    assert response.status_code == 400
    assert response.json()["value"]["Message"].rstrip(".") == message


async def test_malformed_json_is_400(http, v2):
    response = await http.post("/v2/collection/eft", content=b"{nope", headers=v2)
    assert response.status_code == 400
    assert response.json()["statusCode"] == 400


async def test_a_service_type_the_profile_lacks_is_400(http, merchant):
    """The default merchant's insurance profile does not offer EFTSAMEDAY."""
    token = await token_for(http, *DEFAULT_CLIENT)
    headers = {"Authorization": f"Bearer {token}"}
    body = eft_body("DEFAULT02", serviceType="SAMEDAY")
    response = await http.post("/v2/collection/eft", json=body, headers=headers)
    assert response.json() == bad_request("serviceType: the profile does not offer EFTSAMEDAY")


async def test_a_further_collection_from_an_eft_mandate(http, v2, profile):
    """POST /v2/collection/eft/from_mandate: a second collection, its own reference (rule 3)."""
    first = (await http.post("/v2/collection/eft", json=eft_body(profile), headers=v2)).json()
    body = {"mandateId": first["mandateId"], "amountCents": 500, "externalReference": "REF-2"}
    response = await http.post("/v2/collection/eft/from_mandate", json=body, headers=v2)
    assert response.status_code == 201
    assert response.json()["sequenceNumber"] == 2
    assert response.json()["mandateId"] == first["mandateId"]
    again = await http.post("/v2/collection/eft/from_mandate", json=body, headers=v2)
    assert again.json() == bad_request("collection with this external reference already exists")
    unknown = {**body, "mandateId": "nope", "externalReference": "REF-3"}
    missing = await http.post("/v2/collection/eft/from_mandate", json=unknown, headers=v2)
    assert missing.json() == bad_request("mandate does not exist")


async def test_eft_mandate_endpoint_and_list_filters(http, v2, profile):
    """POST /v2/mandate/eft creates an ACTIVE mandate; the list filters and pages."""
    for ref in ("M-1", "M-2", "M-3"):
        body = {"debtor": debtor(), "profileCode": profile, "externalReference": ref}
        response = await http.post("/v2/mandate/eft", json=body, headers=v2)
        assert response.status_code == 201
        assert response.json()["status"] == "ACTIVE"
    refs = lambda r: [m["externalReference"] for m in r.json()]  # noqa: E731
    assert refs(await http.get("/v2/mandate/eft?skip=1&take=1", headers=v2)) == ["M-2"]
    assert refs(await http.get(f"/v2/mandate/eft?profileCode={profile}", headers=v2)) == [
        "M-1",
        "M-2",
        "M-3",
    ]
    assert refs(await http.get("/v2/mandate/eft?state=EXPIRED", headers=v2)) == []
    assert refs(await http.get("/v2/mandate/eft?externalReference=M-3", headers=v2)) == ["M-3"]
    bad = await http.get("/v2/mandate/eft?state=NOPE", headers=v2)
    assert bad.status_code == 400
    bad_bulk = await http.get("/v2/mandate/eft?bulkId=12", headers=v2)
    assert bad_bulk.json() == bad_request("The value '12' is not valid for bulkId.")


async def test_an_eft_mandate_expires_at_its_release_date(http, v2, profile):
    """releaseDate passes: the EFT mandate becomes EXPIRED."""
    body = {
        "debtor": debtor(),
        "profileCode": profile,
        "externalReference": "M-9",
        "releaseDate": "2026-01-05T12:00:00Z",
    }
    mandate = (await http.post("/v2/mandate/eft", json=body, headers=v2)).json()
    await http.post("/_emulator/clock/advance", json={"to": "2026-01-05T12:00:01Z"})
    status = (await http.get(f"/v2/mandate/eft/{mandate['id']}/status", headers=v2)).json()
    assert status["status"] == "EXPIRED"


async def test_unknown_status_type_is_404(http, v2):
    response = await http.get("/v2/collection/cheque/x/status", headers=v2)
    assert response.status_code == 404
