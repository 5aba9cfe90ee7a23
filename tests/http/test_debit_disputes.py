"""Disputes within 40 days of the action date, on the emulator clock: by hand and by scenario;
a dispute reverses the statement line, emits the callback and ends the mandate."""

from __future__ import annotations

import pytest

from tests.http.bank_helpers import advance_to, debtor, eft_body, fresh_headers
from tests.http.scenario_helpers import activate

SINK = "http://127.0.0.1:8400/_emulator/sink/{name}"


@pytest.fixture
def profile(merchant):
    return merchant["profiles"][0]["profileCode"]


async def completed(http, v2, profile, reference):
    """A collection with action date 2026-01-06, COMPLETED by the bank now."""
    body = eft_body(profile, reference=reference, debtor=debtor("62000000001"))
    created = await http.post("/v2/collection/eft", json=body, headers=v2)
    assert created.status_code == 201, created.text
    done = await http.post(f"/_emulator/collections/{created.json()['id']}/settle")
    assert done.status_code == 200, done.text
    return done.json()


async def dispute(http, collection, **body):
    return await http.post(
        f"/_emulator/collections/{collection['id']}/settle", json={"status": "DISPUTED", **body}
    )


async def test_a_dispute_in_the_window_reverses_the_line_and_ends_the_mandate(
    http, v2, merchant, profile
):
    client = merchant["profiles"][0]["createdByClient"]
    body = {"clientId": client, "url": SINK.format(name="disputes"),
            "callbackType": "EFT_COLLECTION", "callbackVersion": "V2"}  # fmt: skip
    assert (await http.post("/v2/clientcallbackurl/", json=body, headers=v2)).status_code == 200
    collection = await completed(http, v2, profile, "D-1")
    assert (collection["actionDate"], collection["disputeWindowClosesOn"]) == (
        "2026-01-06",
        "2026-02-15",
    )
    await advance_to(http, "2026-02-15T21:59:59Z")  # 23:59:59 SAST on the 40th day
    v2 = await fresh_headers(http, merchant)
    disputed = await dispute(http, collection, reasonCode="36")
    assert disputed.status_code == 200, disputed.text
    found = disputed.json()
    assert (found["status"], found["reasonCode"], found["reason"]) == (
        "DISPUTED",
        "36",
        "previously stopped via stop-payment advice",
    )
    account = collection["creditor"]["accountNumber"]
    statement = await http.get(
        f"/v2/bankaccountstatement/{account}/{collection['statementId']}", headers=v2
    )
    assert statement.json()["totalCents"] == 0
    [line] = statement.json()["lines"]
    assert (line["status"], line["reasonCode"]) == ("DISPUTED", "36")
    mandate = await http.get(f"/v2/mandate/eft/{collection['mandateId']}/status", headers=v2)
    assert (mandate.json()["status"], mandate.json()["reasonCode"]) == ("INACTIVE", "36")
    assert mandate.json()["reason"].startswith("disputed 36 (previously stopped")
    sent = (await http.get("/_emulator/sink/disputes")).json()["messages"][-1]["json"]
    assert (sent["status"], sent["reasonCode"]) == ("DISPUTED", "36")


async def test_after_the_window_a_dispute_is_409(http, v2, profile):
    collection = await completed(http, v2, profile, "D-2")
    await advance_to(http, "2026-02-15T22:00:00Z")  # 00:00 SAST on the 41st day
    refused = await dispute(http, collection)
    assert refused.status_code == 409
    assert refused.json() == {
        "error": {
            "code": "dispute_window_closed",
            "message": "the dispute window closed: a collection can be disputed for 40 days"
            " after its action date (2026-01-06), until 2026-02-15 (SAST)",
        }
    }


async def test_a_dispute_is_of_authority(http, v2, profile):
    collection = await completed(http, v2, profile, "D-3")
    refused = await dispute(http, collection, reasonCode="02")
    assert refused.status_code == 400
    assert refused.json()["error"]["message"] == (
        "a dispute's reasonCode is one of authority: 30, 32, 34, 36"
    )
    default = await dispute(http, collection)
    assert (default.json()["reasonCode"], default.json()["reason"]) == (
        "30",
        "no authority to debit",
    )


async def test_a_scenario_disputes_days_after_the_completion(http, v2, merchant, profile):
    then = {"status": "DISPUTED", "reasonCode": "34", "dispute_after_days": 10}
    await activate(http, merchant, "collection.outcome", then)
    body = eft_body(profile, reference="D-4", debtor=debtor("62000000001"))
    created = (await http.post("/v2/collection/eft", json=body, headers=v2)).json()
    await advance_to(http, "2026-01-06T16:00:00Z")  # the action date, processed at 18:00 SAST
    v2 = await fresh_headers(http, merchant)
    url = f"/v2/collection/eft/{created['id']}/status"
    assert (await http.get(url, headers=v2)).json()["status"] == "COMPLETED"
    await advance_to(http, "2026-01-16T15:59:59Z")
    v2 = await fresh_headers(http, merchant)
    assert (await http.get(url, headers=v2)).json()["status"] == "COMPLETED"
    await advance_to(http, "2026-01-16T16:00:00Z")
    found = (await http.get(url, headers=v2)).json()
    assert (found["status"], found["reasonCode"], found["reason"]) == (
        "DISPUTED",
        "34",
        "authorisation cancelled",
    )
