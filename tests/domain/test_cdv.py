"""Check-digit verification: worked examples, computed by hand in the comments."""

from __future__ import annotations

import pytest

from emulator.bank.verification.rules import RULES, verify, weighted_sum


@pytest.mark.parametrize(
    ("bank", "account", "total"),
    [
        # Standard Bank, weights 1..11 right to left, modulus 11, fudge 0.
        # 100000002 -> 00100000002: last digit 2 x 1 = 2; ninth from the right 1 x 9 = 9.
        # 2 + 9 = 11, and 11 % 11 == 0: valid.
        pytest.param("STANDARDBANK_SA", "100000002", 11, id="standard-bank-valid"),
        # 100000001: 1 x 1 + 1 x 9 = 10; 10 % 11 == 10: invalid.
        pytest.param("STANDARDBANK_SA", "100000001", 10, id="standard-bank-invalid"),
        # FNB, weights 1,2,1,2,... modulus 10. 6200000006 -> 06200000006:
        # 6 x 1 = 6; 2 (9th from the right, weight 1) = 2; 6 (10th, weight 2) = 12.
        # 6 + 2 + 12 = 20, 20 % 10 == 0: valid.
        pytest.param("FNB", "6200000006", 20, id="fnb-valid"),
        # Capitec, weights 1,2,1,2,... modulus 10, fudge 3. 1234567897 -> 01234567897,
        # right to left: 7x1 + 9x2 + 8x1 + 7x2 + 6x1 + 5x2 + 4x1 + 3x2 + 2x1 + 1x2 + 0x1
        # = 7 + 18 + 8 + 14 + 6 + 10 + 4 + 6 + 2 + 2 + 0 = 77; + 3 = 80: valid.
        pytest.param("CAPITEC_BANK", "1234567897", 80, id="capitec-valid"),
        # Nedbank, weights 1,3,7,1,3,7,... modulus 10. 1000000009 -> 01000000009:
        # 9 x 1 = 9; 1 (10th from the right, weight 1) = 1. 10 % 10 == 0: valid.
        pytest.param("NEDBANK", "1000000009", 10, id="nedbank-valid"),
        # ABSA, weights 1..11, modulus 11, fudge 1. 4000000003 -> 04000000003:
        # 3 x 1 = 3; 4 x 10 = 40; + 1 = 44 = 4 x 11: valid.
        pytest.param("ABSA_BANK_LIMITED", "4000000003", 44, id="absa-valid"),
    ],
)
def test_weighted_sums(bank, account, total):
    rule = RULES[bank]
    assert rule.weights is not None
    assert weighted_sum(account, rule.weights, rule.fudge) == total
    assert verify(account, rule.universal, bank).valid is (total % rule.modulus == 0)


@pytest.mark.parametrize(
    ("account", "branch", "bank", "valid", "reason"),
    [
        pytest.param("1234567897", "470010", None, True, None, id="bank-from-universal-branch"),
        pytest.param(
            "1234567898",
            "470010",
            None,
            False,
            "account number failed the check digit verification",
            id="wrong-check-digit",
        ),
        pytest.param(
            "6200000006",
            "051001",
            "FNB",
            False,
            "branch code does not belong to the bank",
            id="other-banks-branch",
        ),
        pytest.param(
            "6200000006",
            "999999",
            None,
            False,
            "branch code does not belong to a known bank",
            id="unknown-branch",
        ),
        pytest.param(
            "62000006",
            "250655",
            "FNB",
            False,
            "account number must have 10 or 11 digits",
            id="fnb-length",
        ),
        pytest.param("1234567", "462005", "BIDVEST_BANK", True, None, id="length-only-bank"),
        pytest.param(
            "123456",
            "462005",
            "BIDVEST_BANK",
            False,
            "account number must have 7 or 8 or 9 or 10 or 11 digits",
            id="length-only-too-short",
        ),
        pytest.param("110000001", "198765", None, True, None, id="test-account-passes-everywhere"),
        pytest.param(
            "12a",
            "051001",
            None,
            False,
            "account number must be at most 11 digits",
            id="not-digits",
        ),
        pytest.param(
            "100000002", "51001", None, False, "branch code must be 6 digits", id="short-branch"
        ),
        pytest.param(
            "\u00b2" * 9,
            "051001",
            None,
            False,
            "account number must be at most 11 digits",
            id="superscript-account",
        ),
        pytest.param(
            "100000002",
            "\u0660\u0665\u0661\u0660\u0660\u0661",
            None,
            False,
            "branch code must be 6 digits",
            id="arabic-indic-branch",
        ),
        # 0 x every weight is 0, and 0 divides by every modulus: refused before the sum.
        pytest.param(
            "0000000000",
            "250655",
            None,
            False,
            "account number must not be all zeros",
            id="all-zeros",
        ),
        pytest.param(
            "0000000",
            "462005",
            "BIDVEST_BANK",
            False,
            "account number must not be all zeros",
            id="all-zeros-length-only",
        ),
        pytest.param(
            "1234567",
            "250655",
            "BIDVEST_BANK",
            False,
            "branch code does not belong to the bank",
            id="length-only-bank-with-fnbs-universal-code",
        ),
        pytest.param(
            "1234567",
            "470123",
            "BIDVEST_BANK",
            False,
            "branch code does not belong to the bank",
            id="length-only-bank-in-capitecs-range",
        ),
        pytest.param(
            "1234567",
            "462005",
            "MONOPOLY_BANK",
            False,
            "bank is not one of the CdvBank values",
            id="unknown-bank",
        ),
    ],
)
def test_verify(account, branch, bank, valid, reason):
    result = verify(account, branch, bank)
    assert (result.valid, result.reason) == (valid, reason)
