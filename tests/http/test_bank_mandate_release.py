"""A mandate's releaseDate: EFT and DebiCheck mandates alike expire then, and no collection is
actioned after it. The clock starts on Monday 2026-01-05 at 11:00 SAST."""

from __future__ import annotations

import pytest

from tests.http.bank_helpers import (
    advance_to,
    bad_request,
    debicheck_body,
    debtor,
    eft_body,
    fresh_headers,
)


@pytest.fixture
def profile(merchant):
    return merchant["profiles"][0]["profileCode"]


def after_release(action, release):
    return bad_request(
        f"collectionDate: the collection would be actioned on {action},"
        f" after the mandate's releaseDate ({release})"
    )


async def status_of(http, v2, kind, mandate_id):
    response = await http.get(f"/v2/mandate/{kind}/{mandate_id}/status", headers=v2)
    return response.json()


@pytest.mark.parametrize(
    ("changes", "action"),
    [
        # Sunday the 25th: actioned Monday the 26th, after the release on the 20th.
        pytest.param({"collectionDate": "2026-01-25"}, "2026-01-26", id="requested-date"),
        # No date: ONEDAY, Tuesday the 6th at 18:00 SAST, after 12:00 UTC on the 6th.
        pytest.param({"releaseDate": "2026-01-06T12:00:00Z"}, "2026-01-06", id="earliest-date"),
    ],
)
async def test_an_eft_collection_after_its_release_date_is_400(http, v2, profile, changes, action):
    body = eft_body(profile, **{"releaseDate": "2026-01-20T00:00:00Z", **changes})
    response = await http.post("/v2/collection/eft", json=body, headers=v2)
    assert response.json() == after_release(action, body["releaseDate"])
    assert (await http.get("/v2/mandate/eft", headers=v2)).json() == []  # nothing made


async def test_further_collections_stay_within_the_release_date(http, v2, profile, merchant):
    """from_mandate: an action date after the release date is a 400, one on or before it is
    fine; once the mandate is EXPIRED no further collection is taken."""
    release = "2026-01-20T16:00:00Z"  # 18:00 SAST on Tuesday the 20th
    body = eft_body(profile, releaseDate=release, collectionDate="2026-01-12")
    first = await http.post("/v2/collection/eft", json=body, headers=v2)
    assert first.status_code == 201, first.text
    further = {"mandateId": first.json()["mandateId"], "amountCents": 500}
    late = {**further, "externalReference": "F-1", "collectionDate": "2026-01-21"}
    response = await http.post("/v2/collection/eft/from_mandate", json=late, headers=v2)
    assert response.json() == after_release("2026-01-21", release)
    last = {**further, "externalReference": "F-2", "collectionDate": "2026-01-20"}
    response = await http.post("/v2/collection/eft/from_mandate", json=last, headers=v2)
    assert response.status_code == 201, response.text
    await advance_to(http, "2026-01-20T16:00:01Z")
    v2 = await fresh_headers(http, merchant)
    assert (await status_of(http, v2, "eft", further["mandateId"]))["status"] == "EXPIRED"
    collection = await http.get(f"/v2/collection/eft/{response.json()['id']}/status", headers=v2)
    assert collection.json()["status"] == "COMPLETED"  # actioned at the release instant
    again = {**further, "externalReference": "F-3"}
    response = await http.post("/v2/collection/eft/from_mandate", json=again, headers=v2)
    assert response.json() == bad_request("mandate is not active (state EXPIRED)")


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        pytest.param(
            {"releaseDate": "2026-01-05T08:00:00Z"},
            "releaseDate must be in the future",
            id="release-in-the-past",
        ),
        pytest.param(
            {"releaseDate": "2026-03-01", "firstCollectionDate": "2026-03-02"},
            "firstCollectionDate must not be after the releaseDate",
            id="first-collection-after-release",
        ),
        pytest.param(
            {"maxAmountCents": 50_000, "installmentAmountCents": 50_001},
            "installmentAmountCents must not exceed maxAmountCents",
            id="installment-above-maximum",
        ),
    ],
)
async def test_debicheck_mandate_dates_and_amounts(http, v2, profile, changes, message):
    body = debicheck_body(profile, **changes)
    response = await http.post("/v2/mandate/debicheck", json=body, headers=v2)
    assert response.json() == bad_request(message)


async def test_an_authenticated_debicheck_mandate_expires_at_its_release_date(
    http, v2, profile, merchant
):
    release = "2026-02-02T16:00:00Z"  # 18:00 SAST, Monday 2 February
    body = debicheck_body(profile, releaseDate=release, installmentAmountCents=50_000)
    mandate = (await http.post("/v2/mandate/debicheck", json=body, headers=v2)).json()
    assert (await http.post(f"/_emulator/mandates/{mandate['id']}/authorise")).status_code == 200
    late = {"mandateId": mandate["id"], "amountCents": 100, "externalReference": "D-1"}
    response = await http.post(
        "/v2/collection/debicheck/from_mandate",
        json={**late, "collectionDate": "2026-02-03"},
        headers=v2,
    )
    assert response.json() == after_release("2026-02-03", release)
    await advance_to(http, "2026-02-02T16:00:00Z")
    v2 = await fresh_headers(http, merchant)
    expired = await status_of(http, v2, "debicheck", mandate["id"])
    assert (expired["status"], expired["reason"]) == ("EXPIRED", "release date reached")
    response = await http.post("/v2/collection/debicheck/from_mandate", json=late, headers=v2)
    assert response.json() == bad_request("mandate is not authenticated (state EXPIRED)")
    reset = await http.post(f"/v2/mandate/debicheck/{mandate['id']}/reset", headers=v2)
    assert reset.json() == bad_request("mandate cannot be reset: its releaseDate has passed")


async def test_a_debicheck_mandate_waiting_for_the_debtor_expires_at_its_release_date(
    http, v2, profile, merchant
):
    """BATCH: the window runs to 19:00 SAST on the 6th, the release date comes first."""
    release = "2026-01-06T06:00:00Z"
    body = debicheck_body(profile, authenticationType="BATCH", releaseDate=release)
    mandate = (await http.post("/v2/mandate/debicheck", json=body, headers=v2)).json()
    await advance_to(http, release)
    v2 = await fresh_headers(http, merchant)
    expired = await status_of(http, v2, "debicheck", mandate["id"])
    assert (expired["status"], expired["reason"]) == ("EXPIRED", "release date reached")


async def test_an_eft_mandate_without_release_date_takes_late_collections(http, v2, profile):
    body = {"debtor": debtor(), "profileCode": profile, "externalReference": "M-1"}
    mandate = (await http.post("/v2/mandate/eft", json=body, headers=v2)).json()
    late = {
        "mandateId": mandate["id"],
        "amountCents": 100,
        "externalReference": "L-1",
        "collectionDate": "2030-01-07",
    }
    response = await http.post("/v2/collection/eft/from_mandate", json=late, headers=v2)
    assert response.status_code == 201, response.text
