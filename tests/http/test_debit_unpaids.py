"""Unpaid reason codes on the emulator clock: the 1200000NN test accounts, the code and its text
on the object, the events and the callbacks, and what each code does to the mandate."""

from __future__ import annotations

import pytest

from emulator import resources
from tests.http.bank_helpers import advance, bad_request, debtor, eft_body

SINK = "http://127.0.0.1:8400/_emulator/sink/{name}"
SCHEDULE = [(c.code, c.text, c.consequence) for c in resources.unpaid_codes().codes]


@pytest.fixture
def profile(merchant):
    return merchant["profiles"][0]["profileCode"]


async def collect(http, v2, profile, account, reference):
    body = eft_body(profile, reference=reference, debtor=debtor(account))
    response = await http.post("/v2/collection/eft", json=body, headers=v2)
    assert response.status_code == 201, response.text
    return response.json()


async def again(http, v2, mandate_id, reference):
    body = {"mandateId": mandate_id, "amountCents": 500, "externalReference": reference}
    return await http.post("/v2/collection/eft/from_mandate", json=body, headers=v2)


async def status_of(http, v2, kind, object_id):
    response = await http.get(f"/v2/{kind}/eft/{object_id}/status", headers=v2)
    assert response.status_code == 200, response.text
    return response.json()


def test_the_schedule_is_the_clearing_houses():
    assert [code for code, _, _ in SCHEDULE] == (
        "02 03 04 06 08 10 12 14 16 18 22 26 28 30 32 34 36 56".split()
    )
    temporary = [code for code, _, kind in SCHEDULE if kind == "temporary"]
    authority = [code for code, _, kind in SCHEDULE if kind == "authority"]
    assert (temporary, authority) == (["02", "22"], ["30", "32", "34", "36"])


@pytest.mark.parametrize(("code", "text", "consequence"), SCHEDULE)
async def test_each_test_account_is_unpaid_with_its_code_after_40_seconds(
    http, v2, profile, code, text, consequence
):
    """1200000NN: UNPAID with code NN 40 s after submission; the mandate follows the code."""
    created = await collect(http, v2, profile, f"1200000{code}", f"U-{code}")
    await advance(http, 39)
    assert (await status_of(http, v2, "collection", created["id"]))["status"] == "PENDING"
    await advance(http, 1)
    found = await status_of(http, v2, "collection", created["id"])
    assert (found["status"], found["reasonCode"], found["reason"]) == ("UNPAID", code, text)
    mandate = (await http.get(f"/v2/mandate/eft/{created['mandateId']}/status", headers=v2)).json()
    if consequence == "temporary":
        assert mandate["status"] == "ACTIVE"
        assert (await again(http, v2, mandate["id"], f"U2-{code}")).status_code == 201
    else:
        why = f"unpaid {code} ({text}) on collection {created['id']}"
        assert (mandate["status"], mandate["reasonCode"], mandate["reason"]) == (
            "INACTIVE",
            code,
            why,
        )
        refused = await again(http, v2, mandate["id"], f"U2-{code}")
        assert refused.json() == bad_request(
            f"mandate is not active (state INACTIVE: {why}; a new mandate is needed)"
        )


async def test_a_code_outside_the_schedule_is_no_test_account(http, v2, profile):
    created = await collect(http, v2, profile, "120000001", "U-01")
    await advance(http, 41)
    assert (await status_of(http, v2, "collection", created["id"]))["status"] == "PENDING"


async def test_the_code_is_on_the_events_and_the_callback(http, v2, merchant, profile):
    client = merchant["profiles"][0]["createdByClient"]
    body = {"clientId": client, "url": SINK.format(name="unpaids"),
            "callbackType": "EFT_COLLECTION", "callbackVersion": "V2"}  # fmt: skip
    assert (await http.post("/v2/clientcallbackurl/", json=body, headers=v2)).status_code == 200
    created = await collect(http, v2, profile, "120000018", "U-18")
    await advance(http, 40)
    feed = await http.get(f"/v2/event/collection?collectionId={created['id']}", headers=v2)
    last = feed.json()[-1]
    assert (last["state"], last["data"]["reasonCode"], last["data"]["reason"]) == (
        "UNPAID",
        "18",
        "account holder deceased",
    )
    messages = (await http.get("/_emulator/sink/unpaids")).json()["messages"]
    sent = messages[-1]["json"]
    assert (sent["status"], sent["reasonCode"], sent["reason"]) == (
        "UNPAID",
        "18",
        "account holder deceased",
    )


async def test_three_consecutive_unpaids_suspend_the_mandate(http, v2, profile):
    """110000002 is UNPAID with 02 (temporary): the mandate stays usable until the third in a
    row, which suspends it; a completion in between starts the count again."""
    first = await collect(http, v2, profile, "110000002", "S-1")
    mandate_id = first["mandateId"]
    await advance(http, 40)
    second = (await again(http, v2, mandate_id, "S-2")).json()
    await http.post(f"/_emulator/collections/{second['id']}/settle")  # COMPLETED: count restarts
    for n in (3, 4):
        assert (await again(http, v2, mandate_id, f"S-{n}")).status_code == 201
        await advance(http, 40)
    mandate = (await http.get(f"/v2/mandate/eft/{mandate_id}/status", headers=v2)).json()
    assert mandate["status"] == "ACTIVE"  # two in a row since the completion
    assert (await again(http, v2, mandate_id, "S-5")).status_code == 201
    await advance(http, 40)
    mandate = (await http.get(f"/v2/mandate/eft/{mandate_id}/status", headers=v2)).json()
    assert (mandate["status"], mandate["reasonCode"]) == ("SUSPENDED", "02")
    assert mandate["reason"] == "3 consecutive unpaids, the latest 02 (not provided for)"
    refused = await again(http, v2, mandate_id, "S-6")
    assert refused.status_code == 400
    assert "state SUSPENDED: 3 consecutive unpaids" in refused.json()["value"]["Message"]


@pytest.mark.parametrize(
    ("body", "code", "text"),
    [
        pytest.param({"status": "UNPAID"}, "02", "not provided for", id="default-02"),
        pytest.param({"status": "UNPAID", "reasonCode": "22"}, "22", "account effects not cleared",
                     id="22"),
        pytest.param({"status": "UNPAID", "reasonCode": "56"}, "56", "not FICA compliant",
                     id="56"),
    ],
)  # fmt: skip
async def test_settle_takes_a_reason_code(http, v2, profile, body, code, text):
    created = await collect(http, v2, profile, "62000000001", "ST-1")
    settled = await http.post(f"/_emulator/collections/{created['id']}/settle", json=body)
    assert settled.status_code == 200, settled.text
    assert (settled.json()["reasonCode"], settled.json()["reason"]) == (code, text)


@pytest.mark.parametrize(
    ("body", "message"),
    [
        pytest.param({"status": "UNPAID", "reasonCode": "01"},
                     "reasonCode '01' is not one of the schedule: 02, 03, 04, 06, 08, 10, 12, 14,"
                     " 16, 18, 22, 26, 28, 30, 32, 34, 36, 56", id="unknown"),
        pytest.param({"status": "COMPLETED", "reasonCode": "02"},
                     "reasonCode goes with UNPAID or DISPUTED, not COMPLETED", id="completed"),
        pytest.param({"status": "UNPAID", "reasonCode": 2},
                     "'reasonCode' must be a string of two digits", id="number"),
    ],
)  # fmt: skip
async def test_settle_refuses_a_wrong_code(http, v2, profile, body, message):
    created = await collect(http, v2, profile, "62000000001", "ST-2")
    refused = await http.post(f"/_emulator/collections/{created['id']}/settle", json=body)
    assert refused.status_code == 400
    assert refused.json() == {"error": {"code": "invalid", "message": message}}


def payment_body(profile, creditor, reference):
    return {
        "debtor": debtor("62000000001"),
        "creditor": debtor(creditor),
        "amountCents": 1_000,
        "paymentDate": "2026-01-05T09:00:00Z",
        "profileCode": profile,
        "abbreviatedName": "GYM",
        "contractReference": "C-1",
        "externalReference": reference,
    }


async def test_payment_settle_takes_a_reason_code(http, v2, profile):
    created = await http.post(
        "/v2/payment/eft", json=payment_body(profile, "62000000002", "P-S"), headers=v2
    )
    body = {"status": "UNPAID", "reasonCode": "03"}
    settled = await http.post(f"/_emulator/payments/{created.json()['id']}/settle", json=body)
    assert settled.status_code == 200, settled.text
    assert (settled.json()["reasonCode"], settled.json()["reason"]) == (
        "03",
        "debits not allowed to this account",
    )
    refused = await http.post(
        f"/_emulator/payments/{created.json()['id']}/settle",
        json={"status": "UNPAID", "reasonCode": "99"},
    )
    assert refused.status_code == 400


async def test_payments_carry_the_code(http, v2, profile):
    body = {
        "debtor": debtor("62000000001"),
        "creditor": debtor("120000026"),
        "amountCents": 1_000,
        "paymentDate": "2026-01-05T09:00:00Z",
        "profileCode": profile,
        "abbreviatedName": "GYM",
        "contractReference": "C-1",
        "externalReference": "P-26",
    }
    created = await http.post("/v2/payment/eft", json=body, headers=v2)
    assert created.status_code == 201, created.text
    await advance(http, 40)
    found = await status_of(http, v2, "payment", created.json()["id"])
    assert (found["status"], found["reasonCode"], found["reason"]) == (
        "UNPAID",
        "26",
        "no such account",
    )


async def test_test_values_list_the_accounts_and_the_schedule(http):
    values = (await http.get("/_emulator/test-values")).json()
    numbers = [a["number"] for a in values["accounts"]]
    assert "1200000NN" in numbers
    assert [(c["code"], c["text"], c["consequence"]) for c in values["unpaid_codes"]] == SCHEDULE
