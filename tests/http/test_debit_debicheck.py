"""DebiCheck on the emulator clock: trackingPeriod re-tries on business days, RPRE
re-presentment, authentication windows per merchant; the moved action date on a collection."""

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
from tests.http.scenario_helpers import activate


@pytest.fixture
def profile(merchant):
    return merchant["profiles"][0]["profileCode"]


async def authorised(http, v2, profile, reference="DC-1", **changes):
    body = debicheck_body(profile, reference, **changes)
    mandate = await http.post("/v2/mandate/debicheck", json=body, headers=v2)
    assert mandate.status_code == 201, mandate.text
    response = await http.post(f"/_emulator/mandates/{mandate.json()['id']}/authorise")
    assert response.status_code == 200
    return response.json()


async def debicheck(http, v2, mandate, reference, **changes):
    body = {"mandateId": mandate["id"], "amountCents": 10_000, "externalReference": reference}
    return await http.post(
        "/v2/collection/debicheck/from_mandate", json={**body, **changes}, headers=v2
    )


async def tracked(http, v2, merchant, profile, period, **then):
    await activate(
        http, merchant, "collection.outcome", {"status": "UNPAID", "reasonCode": "02", **then}
    )
    mandate = await authorised(http, v2, profile)
    created = await debicheck(http, v2, mandate, "T-1", trackingPeriod=period)
    assert created.status_code == 201, created.text
    return created.json()


async def at(http, merchant, instant, collection):
    """The collection as the clock reaches ``instant``."""
    await advance_to(http, instant)
    v2 = await fresh_headers(http, merchant)
    url = f"/v2/collection/debicheck/{collection['id']}/status"
    return (await http.get(url, headers=v2)).json()


def attempts(found):
    return [(a["attempt"], a["date"], a["status"], a["reasonCode"]) for a in found["attempts"]]


async def test_tracking_retries_daily_and_completes_the_day_money_arrives(
    http, v2, merchant, profile
):
    """Unpaid (02) on its action date (Tuesday 6 January); money arrives on the second re-try."""
    created = await tracked(http, v2, merchant, profile, 3, funds_on_day=2)
    found = await at(http, merchant, "2026-01-06T16:00:00Z", created)
    assert (found["status"], attempts(found)) == ("PENDING", [(1, "2026-01-06", "UNPAID", "02")])
    found = await at(http, merchant, "2026-01-07T16:00:00Z", created)
    assert (found["status"], len(found["attempts"])) == ("PENDING", 2)
    found = await at(http, merchant, "2026-01-08T16:00:00Z", created)
    assert found["status"] == "COMPLETED"
    assert found["statementId"] is not None
    assert attempts(found) == [
        (1, "2026-01-06", "UNPAID", "02"),
        (2, "2026-01-07", "UNPAID", "02"),
        (3, "2026-01-08", "COMPLETED", None),
    ]
    v2 = await fresh_headers(http, merchant)
    feed = await http.get(f"/v2/event/collection?collectionId={created['id']}", headers=v2)
    assert [e["state"] for e in feed.json()] == ["PENDING", "COMPLETED"]  # attempts are silent


async def test_the_schedule_names_the_next_re_try(http, v2, merchant, profile):
    created = await tracked(http, v2, merchant, profile, 2, funds_on_day=1)
    await at(http, merchant, "2026-01-06T16:00:00Z", created)
    url = f"/_emulator/merchants/{merchant['company_id']}/schedule?object_id={created['id']}"
    [job] = (await http.get(url)).json()["jobs"]
    assert job["due"].startswith("2026-01-07T16:00:00")
    assert job["description"] == (
        f"collection {created['id'][:8]}… is presented again (re-try 1) and completes (COMPLETED)"
    )


async def test_tracking_skips_the_weekend_and_ends_unpaid_after_the_period(
    http, v2, merchant, profile
):
    created = await tracked(http, v2, merchant, profile, 4)
    found = await at(http, merchant, "2026-01-12T15:59:59Z", created)  # Monday, before 18:00
    assert found["status"] == "PENDING"
    assert [a["date"] for a in found["attempts"]] == [
        "2026-01-06",
        "2026-01-07",
        "2026-01-08",
        "2026-01-09",  # Friday; then Monday, not Saturday
    ]
    found = await at(http, merchant, "2026-01-12T16:00:00Z", created)
    assert (found["status"], found["reasonCode"], found["reason"]) == (
        "UNPAID",
        "02",
        "not provided for",
    )
    assert [a["date"] for a in found["attempts"]][-1] == "2026-01-12"
    assert len(found["attempts"]) == 5  # the presentation and four re-tries


async def test_without_a_tracking_period_an_unpaid_is_final(http, v2, merchant, profile):
    await activate(http, merchant, "collection.outcome", {"status": "UNPAID"})
    mandate = await authorised(http, v2, profile)
    created = (await debicheck(http, v2, mandate, "T-2")).json()
    found = await at(http, merchant, "2026-01-06T16:00:00Z", created)
    assert (found["status"], found["reasonCode"], found["attempts"]) == ("UNPAID", "02", [])


async def test_rpre_re_presents_an_unpaid_02(http, v2, profile):
    mandate = await authorised(http, v2, profile)
    first = (await debicheck(http, v2, mandate, "R-1")).json()
    settled = await http.post(
        f"/_emulator/collections/{first['id']}/settle", json={"status": "UNPAID"}
    )
    assert settled.json()["reasonCode"] == "02"
    again = await debicheck(http, v2, mandate, "R-2", debitSequence="RPRE", amountCents=None)
    assert again.status_code == 201, again.text
    body = again.json()
    assert (body["debitSequence"], body["representedFromId"], body["amountCents"]) == (
        "RPRE",
        first["id"],
        10_000,
    )
    twice = await debicheck(http, v2, mandate, "R-3", debitSequence="RPRE")
    assert twice.json() == bad_request(
        "debitSequence: RPRE re-presents the mandate's latest collection when it is UNPAID"
        " with code 02 or 22 (the latest is PENDING)"
    )


async def test_rpre_is_refused_for_a_completed_collection_or_another_code(http, v2, profile):
    mandate = await authorised(http, v2, profile)
    first = (await debicheck(http, v2, mandate, "R-4")).json()
    await http.post(f"/_emulator/collections/{first['id']}/settle")
    refused = await debicheck(http, v2, mandate, "R-5", debitSequence="RPRE")
    assert refused.json() == bad_request(
        "debitSequence: RPRE re-presents the mandate's latest collection when it is UNPAID"
        " with code 02 or 22 (the latest is COMPLETED)"
    )
    second = (await debicheck(http, v2, mandate, "R-6")).json()
    body = {"status": "UNPAID", "reasonCode": "04"}
    await http.post(f"/_emulator/collections/{second['id']}/settle", json=body)
    refused = await debicheck(http, v2, mandate, "R-7", debitSequence="RPRE")
    message = refused.json()["value"]["Message"]
    assert message.startswith("mandate is not authenticated (state INACTIVE: unpaid 04")


# -- authentication windows per merchant ----------------------------------------------------


async def windows(http, merchant, **body):
    url = f"/_emulator/merchants/{merchant['company_id']}/debicheck-windows"
    return await http.put(url, json=body) if body else await http.get(url)


async def test_windows_are_the_defaults_until_set(http, merchant):
    found = (await windows(http, merchant)).json()
    assert found == {
        "company_id": merchant["company_id"],
        "realtime_seconds": 120,
        "delayed_until": "20:00",
        "batch_until": "19:00",
        "default": True,
    }


@pytest.mark.parametrize(
    ("kind", "expires"),
    [
        pytest.param("REALTIME", "2026-01-05T09:05:00Z", id="realtime-300s"),
        pytest.param("DELAYED", "2026-01-05T15:30:00Z", id="delayed-17h30-sast"),
        pytest.param("BATCH", "2026-01-06T10:00:00Z", id="batch-12h00-next-business-day"),
    ],
)
async def test_a_merchants_windows_apply_to_its_new_mandates(
    http, v2, merchant, profile, kind, expires
):
    set_to = await windows(
        http, merchant, realtime_seconds=300, delayed_until="17:30", batch_until="12:00"
    )
    assert set_to.status_code == 200, set_to.text
    assert set_to.json()["default"] is False
    body = debicheck_body(profile, authenticationType=kind)
    mandate = (await http.post("/v2/mandate/debicheck", json=body, headers=v2)).json()
    assert mandate["authenticationExpiresAt"] == expires
    await advance_to(http, expires)
    v2 = await fresh_headers(http, merchant)
    url = f"/v2/mandate/debicheck/{mandate['id']}/status"
    assert (await http.get(url, headers=v2)).json()["status"] == "EXPIRED"


async def test_batch_runs_to_the_next_business_day(http, merchant, profile):
    await advance_to(http, "2026-01-09T09:00:00Z")  # a Friday
    v2 = await fresh_headers(http, merchant)
    body = debicheck_body(profile, authenticationType="BATCH")
    mandate = (await http.post("/v2/mandate/debicheck", json=body, headers=v2)).json()
    assert mandate["authenticationExpiresAt"] == "2026-01-12T17:00:00Z"  # Monday 19:00 SAST


@pytest.mark.parametrize(
    "body",
    [{"delayed_until": "25:00"}, {"realtime_seconds": 0}, {"batch_until": 19}, {"other": 1}],
)
async def test_bad_windows_are_400(http, merchant, body):
    url = f"/_emulator/merchants/{merchant['company_id']}/debicheck-windows"
    refused = await http.put(url, json=body)
    assert refused.status_code == 400
    assert refused.json()["error"]["code"] == "invalid"


async def test_windows_of_an_unknown_merchant_are_404(http):
    found = await http.get("/_emulator/merchants/nobody/debicheck-windows")
    assert found.status_code == 404
    assert found.json()["error"]["code"] == "merchant_not_found"


# -- the moved action date ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("now", "service", "requested", "action", "why"),
    [
        pytest.param(None, "ONEDAY", "2026-01-17", "2026-01-19",
                     "2026-01-17 is not a business day", id="saturday"),
        pytest.param("2026-01-05T12:30:00Z", "SAMEDAY", "2026-01-05", "2026-01-06",
                     "submitted after the 14:00 SAST cut-off; SAMEDAY is actioned on the"
                     " effective submission day: the earliest action date is 2026-01-06",
                     id="after-the-cut-off"),
        pytest.param("2026-01-10T08:00:00Z", "TWODAY", "2026-01-10", "2026-01-14",
                     "submitted on a weekend or public holiday; TWODAY is actioned 2 business"
                     " days after the effective submission day: the earliest action date is"
                     " 2026-01-14", id="saturday-submission"),
        pytest.param(None, "ONEDAY", "2026-01-20", "2026-01-20", None, id="not-moved"),
    ],
)  # fmt: skip
async def test_a_moved_action_date_says_why(
    http, merchant, profile, now, service, requested, action, why
):
    if now is not None:
        await advance_to(http, now)
    v2 = await fresh_headers(http, merchant)
    body = eft_body(
        profile, debtor=debtor("62000000001"), serviceType=service, collectionDate=requested
    )
    created = await http.post("/v2/collection/eft", json=body, headers=v2)
    assert created.status_code == 201, created.text
    found = created.json()
    assert (found["requestedActionDate"], found["actionDate"], found["actionDateReason"]) == (
        requested,
        action,
        why,
    )


async def test_no_requested_date_no_reason(http, v2, profile):
    created = await http.post("/v2/collection/eft", json=eft_body(profile), headers=v2)
    found = created.json()
    assert (found["requestedActionDate"], found["actionDateReason"]) == (None, None)
