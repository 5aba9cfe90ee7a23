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


SUPERSCRIPTS = "\u00b2" * 9  # str.isdigit() says yes, int() says no
ARABIC_INDIC_BRANCH = "\u0660\u0665\u0661\u0660\u0660\u0661"  # 051001 in Arabic-Indic digits


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        pytest.param(
            {"accountNumber": SUPERSCRIPTS}, "accountNumber: must be digits (0-9)", id="account"
        ),
        pytest.param(
            {"branchCode": ARABIC_INDIC_BRANCH}, "branchCode: must be digits (0-9)", id="branch"
        ),
    ],
)
async def test_validate_refuses_digits_other_than_0_to_9(http, v2, changes, message):
    body = {"accountType": "CURRENT", "branchCode": "051001", "accountNumber": "100000002"}
    response = await http.post(
        "/v2/accountverification/validate", json={**body, **changes}, headers=v2
    )
    assert response.json() == bad_request(message)


@pytest.mark.parametrize(
    ("account", "message"),
    [
        pytest.param(
            debtor(SUPERSCRIPTS),
            "debtor.accountNumber is required and must be digits",
            id="superscript-account",
        ),
        pytest.param(
            debtor("100000002", ARABIC_INDIC_BRANCH),
            "debtor.branchCode is required and must be 6 digits",
            id="arabic-indic-branch",
        ),
        pytest.param(
            debtor("100000002", "51001"),
            "debtor.branchCode is required and must be 6 digits",
            id="short-branch",
        ),
    ],
)
@pytest.mark.parametrize("flag", [None, "validateAccount", "verifyAccount"])
async def test_collections_refuse_digits_other_than_0_to_9(
    http, v2, merchant, account, message, flag
):
    """With or without the verification flags: a 400, nothing stored."""
    profile = merchant["profiles"][0]["profileCode"]
    body = eft_body(profile, debtor=account, **({flag: True} if flag else {}))
    response = await http.post("/v2/collection/eft", json=body, headers=v2)
    assert response.json() == bad_request(message)
    assert (await http.get("/v2/mandate/eft", headers=v2)).json() == []


async def test_a_given_creditor_or_ultimate_creditor_is_checked(http, v2, merchant):
    profile = merchant["profiles"][0]["profileCode"]
    creditor = {"accountNumber": "62000000001", "branchCode": "2506"}
    body = {
        "debtor": debtor(),
        "profileCode": profile,
        "externalReference": "M-C",
        "creditor": creditor,
    }
    response = await http.post("/v2/mandate/eft", json=body, headers=v2)
    assert response.json() == bad_request("creditor.branchCode is required and must be 6 digits")
    ultimate = {"accountNumber": SUPERSCRIPTS}
    response = await http.post(
        "/v2/collection/eft", json=eft_body(profile, ultimateCreditor=ultimate), headers=v2
    )
    assert response.json() == bad_request("ultimateCreditor.accountNumber must be digits")


@pytest.mark.parametrize("flag", ["validateAccount", "verifyAccount"])
async def test_a_length_only_debtor_bank_is_checked_for_length(http, v2, merchant, flag):
    """The debtor's bank decides the rule, as on /v2/accountverification/validate: Bidvest has
    no parameter set here, so a 7-digit account at its branch passes; a Bidvest debtor at
    FNB's universal code does not, nor an all-zero account."""
    profile = merchant["profiles"][0]["profileCode"]
    bidvest = {**debtor("1234567", "462005"), "bank": "BIDVEST_BANK"}
    response = await http.post(
        "/v2/collection/eft", json=eft_body(profile, debtor=bidvest, **{flag: True}), headers=v2
    )
    assert response.status_code == 201, response.text
    for ref, account in (
        ("R-2", {**bidvest, "branchCode": "250655"}),
        ("R-3", {**bidvest, "accountNumber": "0000000"}),
    ):
        body = eft_body(profile, ref, debtor=account, **{flag: True})
        response = await http.post("/v2/collection/eft", json=body, headers=v2)
        assert response.status_code == 400
    valid = {"accountType": "CURRENT", "bank": "BIDVEST_BANK", "branchCode": "462005"}
    answer = await http.post(
        "/v2/accountverification/validate", json={**valid, "accountNumber": "1234567"}, headers=v2
    )
    assert answer.json()["isValid"] is True


async def test_an_all_zero_account_is_invalid(http, v2):
    body = {"accountType": "CURRENT", "branchCode": "250655", "accountNumber": "0000000000"}
    response = await http.post("/v2/accountverification/validate", json=body, headers=v2)
    assert response.json()["isValid"] is False
    assert response.json()["message"] == "account number must not be all zeros"
