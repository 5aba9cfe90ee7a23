"""collection.outcome, payment.outcome, mandate.authorisation and account.verification
answered by scenarios, through HTTP: every outcome of README's table, ``after_seconds`` on the
clock, the match fields, ``times`` and a merchant's scope."""

from __future__ import annotations

import pytest

from tests.conftest import token_for
from tests.http.bank_helpers import (
    advance,
    advance_to,
    bad_request,
    debicheck_body,
    debtor,
    eft_body,
    fresh_headers,
)
from tests.http.scenario_helpers import activate, new_merchant

STATUSES = ["COMPLETED", "UNPAID", "REJECTED", "DISPUTED"]
# An UNPAID or DISPUTED outcome names its code (the reason is its text); the others free text.
SAID = {
    "COMPLETED": ({"reason": "said the scenario"}, None, "said the scenario"),
    "REJECTED": ({"reason": "said the scenario"}, None, "said the scenario"),
    "UNPAID": ({"reasonCode": "26"}, "26", "no such account"),
    "DISPUTED": ({"reasonCode": "32"}, "32", "debit in contravention of the payer's authority"),
}
AVS_KEYS = (
    "AccountExists",
    "AccountIsOpen",
    "AccountTypeMatches",
    "IdNumberMatches",
    "InitialsMatches",
    "FullNameMatches",
    "AccountAcceptsDebits",
    "AccountAcceptsCredits",
)
_refs = iter(range(1, 10_000))


def code_of(merchant):
    return merchant["profiles"][0]["profileCode"]


async def second_merchant(http):
    """Another merchant and its v2 headers."""
    other = await new_merchant(http)
    token = await token_for(http, other["client_id"], other["client_secret"])
    return other, {"Authorization": f"Bearer {token}"}


# -- collection.outcome -------------------------------------------------------------------


async def collect(http, v2, merchant, account="62000000001", **changes):
    """A new EFT collection (62000000001 completes on its action date by default)."""
    body = eft_body(code_of(merchant), f"C-{next(_refs)}", debtor=debtor(account), **changes)
    response = await http.post("/v2/collection/eft", json=body, headers=v2)
    assert response.status_code == 201, response.text
    return response.json()


async def collection_now(http, v2, collection, kind="eft"):
    response = await http.get(f"/v2/collection/{kind}/{collection['id']}/status", headers=v2)
    assert response.status_code == 200, response.text
    return response.json()


@pytest.mark.parametrize("status", STATUSES)
async def test_collection_outcome_after_seconds(http, v2, merchant, status):
    said, code, reason = SAID[status]
    then = {"status": status, **said, "after_seconds": 100}
    await activate(http, merchant, "collection.outcome", then)
    created = await collect(http, v2, merchant)
    assert created["status"] == "PENDING"
    await advance(http, 99)
    assert (await collection_now(http, v2, created))["status"] == "PENDING"
    await advance(http, 1)
    final = await collection_now(http, v2, created)
    assert (final["status"], final["reasonCode"], final["reason"]) == (status, code, reason)
    if status in ("COMPLETED", "DISPUTED"):
        assert final["statementId"] is not None  # it completed first


async def test_collection_outcome_now_is_the_answer(http, v2, merchant):
    await activate(http, merchant, "collection.outcome", {"status": "REJECTED", "after_seconds": 0})
    created = await collect(http, v2, merchant)
    assert (created["status"], created["reason"]) == ("REJECTED", None)


async def test_collection_outcome_without_after_seconds_on_the_action_date(http, v2, merchant):
    """110000001 would complete in 40 s; the scenario's UNPAID comes when the action date is
    processed (18:00 SAST)."""
    await activate(http, merchant, "collection.outcome", {"status": "UNPAID", "reasonCode": "12"})
    created = await collect(http, v2, merchant, "110000001")
    await advance(http, 41)
    assert (await collection_now(http, v2, created))["status"] == "PENDING"
    await advance_to(http, "2026-01-06T16:00:00Z")
    final = await collection_now(http, await fresh_headers(http, merchant), created)
    assert (final["status"], final["reasonCode"], final["reason"]) == (
        "UNPAID",
        "12",
        "account closed",
    )


@pytest.mark.parametrize(
    ("match", "hit", "miss"),
    [
        pytest.param(
            {"amountCents": {"gt": 50_000}}, {"amountCents": 50_001}, {"amountCents": 50_000},
            id="amountCents",
        ),
        pytest.param(
            {"accountNumber": {"in": ["62000000001", "100000002"]}},
            {"account": "100000002"}, {"account": "100000010"},
            id="accountNumber",
        ),
        pytest.param(
            {"collectionType": "EFT", "serviceType": "TWODAY"},
            {"serviceType": "TWODAY"}, {"serviceType": "ONEDAY"},
            id="collectionType-and-serviceType",
        ),
    ],
)  # fmt: skip
async def test_collection_outcome_match(http, v2, merchant, match, hit, miss):
    then = {"status": "UNPAID", "after_seconds": 10}
    await activate(http, merchant, "collection.outcome", then, match)
    matched = await collect(http, v2, merchant, **hit)
    other = await collect(http, v2, merchant, **miss)
    await advance(http, 10)
    assert (await collection_now(http, v2, matched))["status"] == "UNPAID"
    assert (await collection_now(http, v2, other))["status"] == "PENDING"


async def test_collection_outcome_match_on_a_debicheck_collection(http, v2, merchant):
    then = {"status": "UNPAID", "reasonCode": "04", "after_seconds": 10}
    await activate(http, merchant, "collection.outcome", then, {"collectionType": "DEBICHECK"})
    mandate = await new_mandate(http, v2, merchant)
    assert (await http.post(f"/_emulator/mandates/{mandate['id']}/authorise")).status_code == 200
    body = {"mandateId": mandate["id"], "amountCents": 10_000, "externalReference": "DCC-1"}
    response = await http.post("/v2/collection/debicheck/from_mandate", json=body, headers=v2)
    assert response.status_code == 201, response.text
    eft = await collect(http, v2, merchant)
    await advance(http, 10)
    assert (await collection_now(http, v2, response.json(), "debicheck"))["status"] == "UNPAID"
    assert (await collection_now(http, v2, eft))["status"] == "PENDING"


async def test_collection_outcome_times_then_the_test_accounts(http, v2, merchant):
    then = {"status": "UNPAID", "after_seconds": 10}
    await activate(http, merchant, "collection.outcome", then, times=1)
    first = await collect(http, v2, merchant, "110000001")
    second = await collect(http, v2, merchant, "110000001")
    await advance(http, 10)
    assert (await collection_now(http, v2, first))["status"] == "UNPAID"
    assert (await collection_now(http, v2, second))["status"] == "PENDING"
    await advance(http, 30)  # the test account's 40 seconds
    assert (await collection_now(http, v2, second))["status"] == "COMPLETED"


async def test_collection_outcome_scope_is_one_merchant(http, v2, merchant):
    other, other_v2 = await second_merchant(http)
    await activate(http, merchant, "collection.outcome", {"status": "UNPAID", "after_seconds": 5})
    mine = await collect(http, v2, merchant, "110000001")
    theirs = await collect(http, other_v2, other, "110000001")
    await advance(http, 40)
    assert (await collection_now(http, v2, mine))["status"] == "UNPAID"
    assert (await collection_now(http, other_v2, theirs))["status"] == "COMPLETED"


# -- payment.outcome ----------------------------------------------------------------------


def payment_body(merchant, account="62000000001", **changes):
    body = {
        "debtor": debtor("4052218811", "051001"),
        "creditor": {"accountNumber": account, "branchCode": "250655", "name": "Supplier"},
        "amountCents": 250_000,
        "paymentDate": "2026-01-05T00:00:00Z",
        "profileCode": code_of(merchant),
        "abbreviatedName": "PAYROLL",
        "contractReference": "INV-1",
        "serviceType": "ONEDAY",
        "externalReference": f"P-{next(_refs)}",
    }
    body.update(changes)
    return body


async def pay_out(http, v2, merchant, **changes):
    response = await http.post(
        "/v2/payment/eft", json=payment_body(merchant, **changes), headers=v2
    )
    assert response.status_code == 201, response.text
    return response.json()


async def payment_now(http, v2, payment):
    response = await http.get(f"/v2/payment/eft/{payment['id']}/status", headers=v2)
    assert response.status_code == 200, response.text
    return response.json()


@pytest.mark.parametrize("status", STATUSES)
async def test_payment_outcome_after_seconds(http, v2, merchant, status):
    said, code, reason = SAID[status]
    then = {"status": status, **said, "after_seconds": 100}
    await activate(http, merchant, "payment.outcome", then)
    created = await pay_out(http, v2, merchant)
    await advance(http, 99)
    assert (await payment_now(http, v2, created))["status"] == "PENDING"
    await advance(http, 1)
    final = await payment_now(http, v2, created)
    assert (final["status"], final["reasonCode"], final["reason"]) == (status, code, reason)


@pytest.mark.parametrize("status", STATUSES)
async def test_payment_outcome_now_is_the_answer(http, v2, merchant, status):
    await activate(http, merchant, "payment.outcome", {"status": status, "after_seconds": 0})
    assert (await pay_out(http, v2, merchant))["status"] == status


async def test_payment_outcome_match_and_times(http, v2, merchant):
    """Only real-time payments above R1,000 match, once; then real-time clearing's 10 s."""
    then = {"status": "REJECTED", "reason": "limit", "after_seconds": 5}
    match = {"realTimeClearing": True, "amountCents": {"gt": 100_000}}
    await activate(http, merchant, "payment.outcome", then, match, times=1)
    small = await pay_out(http, v2, merchant, realTimeClearing=True, amountCents=100_000)
    batch = await pay_out(http, v2, merchant)
    rejected = await pay_out(http, v2, merchant, realTimeClearing=True)
    cleared = await pay_out(http, v2, merchant, realTimeClearing=True)
    await advance(http, 5)
    assert (await payment_now(http, v2, rejected))["status"] == "REJECTED"
    assert (await payment_now(http, v2, cleared))["status"] == "PENDING"
    await advance(http, 5)
    assert (await payment_now(http, v2, cleared))["status"] == "COMPLETED"
    assert (await payment_now(http, v2, small))["status"] == "COMPLETED"
    assert (await payment_now(http, v2, batch))["status"] == "PENDING"


async def test_payment_outcome_scope_is_one_merchant(http, v2, merchant):
    other, other_v2 = await second_merchant(http)
    await activate(http, merchant, "payment.outcome", {"status": "UNPAID", "after_seconds": 0})
    assert (await pay_out(http, v2, merchant))["status"] == "UNPAID"
    assert (await pay_out(http, other_v2, other))["status"] == "PENDING"


# -- mandate.authorisation ----------------------------------------------------------------


async def new_mandate(http, v2, merchant, **changes):
    body = debicheck_body(code_of(merchant), f"M-{next(_refs)}", **changes)
    response = await http.post("/v2/mandate/debicheck", json=body, headers=v2)
    assert response.status_code == 201, response.text
    return response.json()


async def mandate_now(http, v2, mandate):
    response = await http.get(f"/v2/mandate/debicheck/{mandate['id']}/status", headers=v2)
    assert response.status_code == 200, response.text
    return response.json()


@pytest.mark.parametrize("status", ["AUTHENTICATED", "REJECTED", "EXPIRED"])
async def test_mandate_authorisation_after_seconds(http, v2, merchant, status):
    then = {"status": status, "reason": "said the scenario", "after_seconds": 60}
    await activate(http, merchant, "mandate.authorisation", then)
    mandate = await new_mandate(http, v2, merchant)  # REALTIME: a 120-second window
    await advance(http, 59)
    assert (await mandate_now(http, v2, mandate))["status"] == "PENDING_AUTHENTICATION"
    await advance(http, 1)
    final = await mandate_now(http, v2, mandate)
    assert (final["status"], final["reason"]) == (status, "said the scenario")
    assert (final["mandateReferenceNumber"] is not None) == (status == "AUTHENTICATED")


async def test_mandate_authorisation_without_after_seconds_at_once(http, v2, merchant):
    await activate(http, merchant, "mandate.authorisation", {"status": "REJECTED"})
    mandate = await new_mandate(http, v2, merchant)
    assert (await mandate_now(http, v2, mandate))["status"] == "REJECTED"


async def test_mandate_authorisation_match_and_times(http, v2, merchant):
    then = {"status": "AUTHENTICATED", "after_seconds": 1}
    match = {"authenticationType": "BATCH", "maxAmountCents": {"lte": 50_000}}
    await activate(http, merchant, "mandate.authorisation", then, match, times=1)
    realtime = await new_mandate(http, v2, merchant)
    too_much = await new_mandate(
        http, v2, merchant, authenticationType="BATCH", maxAmountCents=50_001
    )
    first = await new_mandate(http, v2, merchant, authenticationType="BATCH")
    second = await new_mandate(http, v2, merchant, authenticationType="BATCH")
    await advance(http, 1)
    assert (await mandate_now(http, v2, first))["status"] == "AUTHENTICATED"
    for waiting in (realtime, too_much, second):
        assert (await mandate_now(http, v2, waiting))["status"] == "PENDING_AUTHENTICATION"
    await advance(http, 119)  # the REALTIME window ends; BATCH waits for the debtor
    assert (await mandate_now(http, v2, realtime))["status"] == "EXPIRED"
    assert (await mandate_now(http, v2, second))["status"] == "PENDING_AUTHENTICATION"


async def test_mandate_authorisation_scope_is_one_merchant(http, v2, merchant):
    other, other_v2 = await second_merchant(http)
    await activate(http, merchant, "mandate.authorisation", {"status": "AUTHENTICATED"})
    mine = await new_mandate(http, v2, merchant)
    theirs = await new_mandate(http, other_v2, other)
    assert (await mandate_now(http, v2, mine))["status"] == "AUTHENTICATED"
    assert (await mandate_now(http, other_v2, theirs))["status"] == "PENDING_AUTHENTICATION"


# -- account.verification -----------------------------------------------------------------


async def verified_collection(http, v2, merchant, account):
    body = eft_body(
        code_of(merchant), f"V-{next(_refs)}", debtor=debtor(account), verifyAccount=True
    )
    return await http.post("/v2/collection/eft", json=body, headers=v2)


async def validate(http, v2, account):
    body = {"accountType": "CURRENT", "branchCode": "051001", "accountNumber": account}
    response = await http.post("/v2/accountverification/validate", json=body, headers=v2)
    assert response.status_code == 200, response.text
    return response.json()


async def test_account_verification_invalid_with_details_is_the_avs_r_body(http, v2, merchant):
    """100000002 passes CDV; the scenario's details are the AVS-R answer, the keys it does
    not give are N."""
    details = {"AccountExists": "Y", "AccountIsOpen": "Y", "FullNameMatches": "N"}
    await activate(http, merchant, "account.verification", {"valid": False, "details": details})
    response = await verified_collection(http, v2, merchant, "100000002")
    assert response.status_code == 400
    assert response.json() == bad_request({**dict.fromkeys(AVS_KEYS, "N"), **details})
    assert (await validate(http, v2, "100000002"))["isValid"] is False


async def test_account_verification_valid_passes_a_failing_account(http, v2, merchant):
    assert (await verified_collection(http, v2, merchant, "100000001")).status_code == 400
    assert (await validate(http, v2, "100000001"))["isValid"] is False
    await activate(http, merchant, "account.verification", {"valid": True})
    assert (await verified_collection(http, v2, merchant, "100000001")).status_code == 201
    answer = await validate(http, v2, "100000001")
    assert (answer["isValid"], answer["message"]) == (True, None)


async def test_account_verification_match_and_times(http, v2, merchant):
    """A refused verification spends its use too: the next one is CDV's answer again."""
    await activate(
        http, merchant, "account.verification", {"valid": False},
        {"accountNumber": "100000002", "accountType": "CURRENT"}, times=1,
    )  # fmt: skip
    assert (await verified_collection(http, v2, merchant, "100000010")).status_code == 201
    assert (await verified_collection(http, v2, merchant, "100000002")).status_code == 400
    assert (await verified_collection(http, v2, merchant, "100000002")).status_code == 201


async def test_account_verification_scope_is_one_merchant(http, v2, merchant):
    _, other_v2 = await second_merchant(http)
    await activate(http, merchant, "account.verification", {"valid": False})
    assert (await validate(http, v2, "100000002"))["isValid"] is False
    assert (await validate(http, other_v2, "100000002"))["isValid"] is True
