"""POST /v2/accountverification/validate and validateAccount / verifyAccount on collections."""

from __future__ import annotations

import pytest

from tests.http.bank_helpers import bad_request, debtor, eft_body

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


async def test_validate_a_valid_account(http, v2):
    body = {"accountType": "CURRENT", "bank": "CAPITEC_BANK", "accountNumber": "1234567897"}
    response = await http.post("/v2/accountverification/validate", json=body, headers=v2)
    assert response.status_code == 200
    assert response.json() == {
        "isValid": True,
        "accountNumber": "1234567897",
        "branchCode": "470010",
        "bank": "CAPITEC_BANK",
        "accountType": "CURRENT",
        "message": None,
    }


async def test_validate_an_invalid_account(http, v2):
    body = {"accountType": "SAVINGS", "branchCode": "250655", "accountNumber": "6200000005"}
    response = await http.post("/v2/accountverification/validate", json=body, headers=v2)
    assert response.json()["isValid"] is False
    assert response.json()["message"] == "account number failed the check digit verification"


@pytest.mark.parametrize(
    "body",
    [
        pytest.param({"bank": "FNB"}, id="no-account-type"),
        pytest.param({"accountType": "CHEQUE"}, id="bad-account-type"),
        pytest.param({"accountType": "CURRENT", "bank": "MONOPOLY_BANK"}, id="bad-bank"),
    ],
)
async def test_validate_bad_bodies_are_400(http, v2, body):
    response = await http.post("/v2/accountverification/validate", json=body, headers=v2)
    assert response.status_code == 400


async def test_validate_account_on_a_collection(http, v2, merchant):
    """validateAccount: a CDV failure is a 400 and nothing is created; a pass is a 201."""
    profile = merchant["profiles"][0]["profileCode"]
    bad = eft_body(profile, debtor=debtor("100000001"), validateAccount=True)
    response = await http.post("/v2/collection/eft", json=bad, headers=v2)
    assert response.json() == bad_request(
        "debtor: account number failed the check digit verification"
    )
    good = eft_body(profile, debtor=debtor("100000002"), validateAccount=True)
    assert (await http.post("/v2/collection/eft", json=good, headers=v2)).status_code == 201


async def test_verify_account_failure_is_the_avs_r_body(http, v2, merchant):
    """verifyAccount: AVS-R failure answers 400 with the details keys in Message."""
    profile = merchant["profiles"][0]["profileCode"]
    bad = eft_body(profile, debtor=debtor("100000001"), verifyAccount=True)
    response = await http.post("/v2/collection/eft", json=bad, headers=v2)
    assert response.json() == bad_request(dict.fromkeys(AVS_KEYS, "N"))
    good = eft_body(profile, debtor=debtor("100000002"), verifyAccount=True)
    assert (await http.post("/v2/collection/eft", json=good, headers=v2)).status_code == 201
