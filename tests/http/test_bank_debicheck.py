"""DebiCheck mandates (windows, authorise, reject, expiry, reset) and their collections."""

from __future__ import annotations

import asyncio

import pytest

from tests.http.bank_helpers import (
    advance,
    advance_to,
    bad_request,
    debicheck_body,
    debtor,
    fresh_headers,
)


@pytest.fixture
def profile(merchant):
    return merchant["profiles"][0]["profileCode"]


async def new_mandate(http, v2, profile, **changes):
    response = await http.post(
        "/v2/mandate/debicheck", json=debicheck_body(profile, **changes), headers=v2
    )
    assert response.status_code == 201, response.text
    return response.json()


async def mandate_status(http, v2, mandate):
    return (await http.get(f"/v2/mandate/debicheck/{mandate['id']}/status", headers=v2)).json()


async def authorised(http, v2, profile, **changes):
    mandate = await new_mandate(http, v2, profile, **changes)
    response = await http.post(f"/_emulator/mandates/{mandate['id']}/authorise")
    assert response.status_code == 200
    return response.json()


def collection(mandate, reference="DCC-1", **changes):
    body = {"mandateId": mandate["id"], "amountCents": 10_000, "externalReference": reference}
    body.update(changes)
    return body


@pytest.mark.parametrize(
    ("kind", "expires"),
    [
        pytest.param("REALTIME", "2026-01-05T09:02:00Z", id="realtime-120s"),
        pytest.param("DELAYED", "2026-01-05T18:00:00Z", id="delayed-20h00-sast"),
        pytest.param("BATCH", "2026-01-06T17:00:00Z", id="batch-19h00-next-day"),
    ],
)
async def test_an_unanswered_mandate_expires_at_the_end_of_its_window(
    http, v2, profile, merchant, kind, expires
):
    """PENDING_AUTHENTICATION until the window ends, then EXPIRED."""
    mandate = await new_mandate(http, v2, profile, authenticationType=kind)
    assert mandate["status"] == "PENDING_AUTHENTICATION"
    assert mandate["authenticationExpiresAt"] == expires
    assert mandate["mandateReferenceNumber"] is None
    await advance_to(http, expires)
    v2 = await fresh_headers(http, merchant)  # BATCH outlives the first token
    status = await mandate_status(http, v2, mandate)
    assert (status["status"], status["reason"]) == ("EXPIRED", "not authenticated in time")


async def test_authorise_gives_a_reference_number_and_reject_rejects(http, v2, profile):
    """The control plane acts as the debtor; an answered mandate no longer expires."""
    mandate = await authorised(http, v2, profile)
    assert mandate["status"] == "AUTHENTICATED"
    assert mandate["mandateReferenceNumber"].startswith("MRN")
    await advance(http, 600)
    assert (await mandate_status(http, v2, mandate))["status"] == "AUTHENTICATED"
    other = await new_mandate(http, v2, profile, externalReference="DC-2")
    rejected = await http.post(f"/_emulator/mandates/{other['id']}/reject")
    assert rejected.json()["status"] == "REJECTED"
    again = await http.post(f"/_emulator/mandates/{other['id']}/authorise")
    assert again.status_code == 409
    assert (await http.post("/_emulator/mandates/nope/authorise")).status_code == 404


async def test_reset_reopens_a_rejected_or_expired_mandate(http, v2, profile):
    """reset: REJECTED/EXPIRED back to PENDING_AUTHENTICATION with a new window (201)."""
    mandate = await new_mandate(http, v2, profile)
    refused = await http.post(f"/v2/mandate/debicheck/{mandate['id']}/reset", headers=v2)
    assert refused.json() == bad_request("mandate in state PENDING_AUTHENTICATION cannot be reset")
    await advance(http, 121)
    response = await http.post(f"/v2/mandate/debicheck/{mandate['id']}/reset", headers=v2)
    assert response.status_code == 201
    body = response.json()
    assert body["status"] == "PENDING_AUTHENTICATION"
    assert body["authenticationExpiresAt"] == "2026-01-05T09:04:01Z"
    await advance(http, 119)  # the old window's job does not expire the new one
    assert (await mandate_status(http, v2, mandate))["status"] == "PENDING_AUTHENTICATION"
    await advance(http, 2)
    assert (await mandate_status(http, v2, mandate))["status"] == "EXPIRED"
    unknown = await http.post("/v2/mandate/debicheck/nope/reset", headers=v2)
    assert unknown.json() == bad_request("mandate does not exist")


async def test_a_debicheck_mandate_needs_its_fields(http, v2, profile):
    response = await http.post(
        "/v2/mandate/debicheck", json=debicheck_body(profile, maxAmountCents=None), headers=v2
    )
    assert response.json() == bad_request("maxAmountCents is required")
    bad_kind = await http.post(
        "/v2/mandate/debicheck", json=debicheck_body(profile, authenticationType="SMS"), headers=v2
    )
    assert bad_kind.status_code == 400


async def test_collection_from_an_authorised_mandate(http, v2, profile):
    """201 PENDING DEBICHECK collection carrying the mandate's reference number; listed."""
    mandate = await authorised(http, v2, profile)
    body = collection(
        mandate, mandateReferenceNumber=mandate["mandateReferenceNumber"], trackingPeriod=3
    )
    response = await http.post("/v2/collection/debicheck/from_mandate", json=body, headers=v2)
    assert response.status_code == 201
    created = response.json()
    assert (created["type"], created["status"], created["debitSequence"]) == (
        "DEBICHECK",
        "PENDING",
        "RCUR",
    )
    assert created["mandateReferenceNumber"] == mandate["mandateReferenceNumber"]
    listed = (await http.get("/v2/collection/debicheck", headers=v2)).json()
    assert [c["id"] for c in listed] == [created["id"]]
    status = await http.get(f"/v2/collection/debicheck/{created['id']}/status", headers=v2)
    assert status.json() == created


async def test_no_collection_before_authorisation(http, v2, profile):
    """A pending mandate: no collection, and no mandateReferenceNumber may be given."""
    mandate = await new_mandate(http, v2, profile)
    plain = await http.post(
        "/v2/collection/debicheck/from_mandate", json=collection(mandate), headers=v2
    )
    assert plain.json() == bad_request(
        "mandate is not authenticated (state PENDING_AUTHENTICATION)"
    )
    with_mrn = collection(mandate, mandateReferenceNumber="MRN123")
    response = await http.post("/v2/collection/debicheck/from_mandate", json=with_mrn, headers=v2)
    assert response.json() == bad_request(
        "mandateReferenceNumber can only be given once the mandate is authorised"
    )


@pytest.mark.parametrize(
    ("mandate_changes", "changes", "message"),
    [
        pytest.param(
            {},
            {"trackingPeriod": 11},
            "trackingPeriod must be between 0 and 10 days",
            id="rule-4-over-10",
        ),
        pytest.param(
            {"trackingEnabled": False},
            {"trackingPeriod": 2},
            "trackingPeriod can only be set when the mandate has tracking",
            id="rule-4-no-tracking",
        ),
        pytest.param(
            {},
            {"amountCents": 50_001},
            "amountCents exceeds the mandate's maxAmountCents",
            id="max-amount",
        ),
        pytest.param(
            {},
            {"mandateReferenceNumber": "MRNWRONG"},
            "mandateReferenceNumber does not match the mandate",
            id="wrong-mrn",
        ),
        pytest.param(
            {},
            {"debitSequence": "OOFF"},
            "debitSequence must be FRST or the mandate's sequence (RCUR)",
            id="other-sequence",
        ),
        pytest.param({}, {"mandateId": "nope"}, "mandate does not exist", id="unknown-mandate"),
        pytest.param(
            {}, {"externalReference": None}, "externalReference is required", id="no-reference"
        ),
    ],
)
async def test_collection_rules(http, v2, profile, mandate_changes, changes, message):
    """Rule 4, maxAmountCents, the reference number and debitSequence rules: 400s."""
    mandate = await authorised(http, v2, profile, **mandate_changes)
    response = await http.post(
        "/v2/collection/debicheck/from_mandate", json=collection(mandate, **changes), headers=v2
    )
    assert response.json() == bad_request(message)


async def test_frst_only_first_and_ooff_only_once(http, v2, profile):
    """FRST is allowed for the first collection only; an OOFF mandate takes one collection."""
    mandate = await authorised(http, v2, profile)
    first = collection(mandate, "A", debitSequence="FRST")
    assert (
        await http.post("/v2/collection/debicheck/from_mandate", json=first, headers=v2)
    ).status_code == 201
    second = collection(mandate, "B", debitSequence="FRST")
    response = await http.post("/v2/collection/debicheck/from_mandate", json=second, headers=v2)
    assert response.json() == bad_request(
        "debitSequence: FRST is only for the first collection of a mandate"
    )
    once = await authorised(http, v2, profile, externalReference="DC-O", debitSequence="OOFF")
    assert (
        await http.post(
            "/v2/collection/debicheck/from_mandate", json=collection(once, "C"), headers=v2
        )
    ).status_code == 201
    response = await http.post(
        "/v2/collection/debicheck/from_mandate", json=collection(once, "D"), headers=v2
    )
    assert response.json() == bad_request(
        "debitSequence: a once-off (OOFF) mandate allows one collection"
    )


async def test_a_frst_mandate_collects_recurring_after_its_first(http, v2, profile):
    """debitSequence FRST on the mandate describes its first collection; the later ones are
    RCUR (by default or given), never FRST again."""
    mandate = await authorised(http, v2, profile, debitSequence="FRST")
    sequences = []
    for reference, changes in (("A", {}), ("B", {}), ("C", {"debitSequence": "RCUR"})):
        response = await http.post(
            "/v2/collection/debicheck/from_mandate",
            json=collection(mandate, reference, **changes),
            headers=v2,
        )
        assert response.status_code == 201, response.text
        sequences.append(response.json()["debitSequence"])
    assert sequences == ["FRST", "RCUR", "RCUR"]
    again = collection(mandate, "D", debitSequence="FRST")
    response = await http.post("/v2/collection/debicheck/from_mandate", json=again, headers=v2)
    assert response.json() == bad_request(
        "debitSequence: FRST is only for the first collection of a mandate"
    )


async def test_rule_3_duplicate_debicheck_reference_even_concurrently(http, v2, profile):
    """Concurrent DebiCheck collections with one externalReference: one 201, the rest 400."""
    mandate = await authorised(http, v2, profile)
    responses = await asyncio.gather(
        *(
            http.post("/v2/collection/debicheck/from_mandate", json=collection(mandate), headers=v2)
            for _ in range(6)
        )
    )
    assert sorted(r.status_code for r in responses) == [201] + [400] * 5
    losers = [r.json() for r in responses if r.status_code == 400]
    assert losers[0] == bad_request("collection with this external reference already exists")


async def test_recreate_a_failed_debicheck_collection_as_eft(http, v2, profile, merchant):
    """recreate_as_eft: only a failed DebiCheck collection; rule 3 on its reference."""
    mandate = await authorised(http, v2, profile, debtor=debtor("110000002"))
    failed = (
        await http.post(
            "/v2/collection/debicheck/from_mandate", json=collection(mandate), headers=v2
        )
    ).json()
    path = f"/v2/collection/debicheck/{failed['id']}/recreate_as_eft"
    body = {
        "externalReference": "EFT-AGAIN",
        "serviceType": "TWODAY",
        "merchantProfileId": merchant["profiles"][0]["id"],
    }
    early = await http.post(path, json=body, headers=v2)
    assert early.json() == bad_request(
        "only a failed DebiCheck collection can be recreated (state PENDING)"
    )
    await advance(http, 41)
    response = await http.post(path, json=body, headers=v2)
    assert response.status_code == 201
    created = response.json()
    assert (created["type"], created["status"], created["recreatedFromId"]) == (
        "EFT",
        "PENDING",
        failed["id"],
    )
    assert created["amountCents"] == failed["amountCents"]
    assert created["debtor"] == failed["debtor"]
    assert created["actionDate"] == "2026-01-07"
    duplicate = await http.post(path, json=body, headers=v2)
    assert duplicate.json() == bad_request("collection with this external reference already exists")
    bad_profile = await http.post(
        path, json={**body, "externalReference": "X", "merchantProfileId": 1}, headers=v2
    )
    assert bad_profile.json() == bad_request("merchant profile does not exist")
    not_uuid = await http.post(
        "/v2/collection/debicheck/abc/recreate_as_eft", json=body, headers=v2
    )
    assert not_uuid.json() == bad_request("The value 'abc' is not valid for collectionId.")


@pytest.mark.parametrize(
    ("query", "count"),
    [
        pytest.param("state=PENDING", 2, id="state"),
        pytest.param("state=COMPLETED", 0, id="state-none"),
        pytest.param("externalReference=A", 1, id="reference"),
        pytest.param("debitSequence=FRST", 1, id="sequence"),
        pytest.param("sequenceNumber=2", 1, id="sequence-number"),
        pytest.param("collectionDateFrom=2026-01-20T00:00:00Z", 1, id="date-from"),
        pytest.param("collectionDateTo=2026-01-19T00:00:00Z", 0, id="date-to"),
        pytest.param("submissionDate=2026-01-05T00:00:00Z", 2, id="submission-date"),
        pytest.param("isStatementIdNull=true", 2, id="statement-null"),
        pytest.param("isSettlementIdNull=false", 0, id="settlement-null"),
        pytest.param("settlementId=x", 0, id="settlement-id"),
        pytest.param("skip=1&take=5", 1, id="paging"),
    ],
)
async def test_debicheck_collection_list_filters(http, v2, profile, query, count):
    mandate = await authorised(http, v2, profile)
    for ref, extra in (
        ("A", {"debitSequence": "FRST"}),
        ("B", {"collectionDate": "2026-01-20T00:00:00Z"}),
    ):
        body = collection(mandate, ref, **extra)
        assert (
            await http.post("/v2/collection/debicheck/from_mandate", json=body, headers=v2)
        ).status_code == 201
    response = await http.get(f"/v2/collection/debicheck?{query}", headers=v2)
    assert response.status_code == 200
    assert len(response.json()) == count


@pytest.mark.parametrize(
    "query",
    ["state=NOPE", "sequenceNumber=x", "isStatementIdNull=maybe", "collectionDate=x", "bulkId=1"],
)
async def test_debicheck_list_bad_filters_are_400(http, v2, query):
    response = await http.get(f"/v2/collection/debicheck?{query}", headers=v2)
    assert response.status_code == 400


async def test_rule_3_recreate_as_eft_holds_under_concurrent_requests(http, v2, profile):
    """Concurrent recreations with one externalReference: one 201, the rest 400."""
    mandate = await authorised(http, v2, profile, debtor=debtor("910000001"))
    response = await http.post(
        "/v2/collection/debicheck/from_mandate", json=collection(mandate), headers=v2
    )
    failed = response.json()
    assert failed["status"] == "REJECTED"
    path = f"/v2/collection/debicheck/{failed['id']}/recreate_as_eft"
    body = {"externalReference": "AGAIN"}
    responses = await asyncio.gather(*(http.post(path, json=body, headers=v2) for _ in range(6)))
    assert sorted(r.status_code for r in responses) == [201] + [400] * 5
    assert {r.json()["value"]["Message"] for r in responses if r.status_code == 400} == {
        "collection with this external reference already exists"
    }
