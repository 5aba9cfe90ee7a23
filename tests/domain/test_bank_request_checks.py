"""The v2 request checks mandates, collections and payments share, each with the provider's
400 message (pure)."""

from __future__ import annotations

import pytest

from emulator.bank.common import model as bank
from emulator.bank.common.model import Debtor
from emulator.bank.mandates.rules import DebiCheckMandateInput, EftMandateInput, check_parties
from emulator.core.merchants.model import MerchantProfile
from emulator.domain.errors import BankBadRequest

ACCOUNT = Debtor(accountNumber="1234567890", branchCode="051001")
EFT_ONLY = MerchantProfile(
    id=1,
    profileCode="P1",
    abbreviatedName="SHOP",
    name="Shop",
    accountNumber="1",
    branchCode="051001",
    instruments=["EFTONEDAY"],
    createdByClient=1,
)


def refusal(check, *args) -> str:
    with pytest.raises(BankBadRequest) as caught:
        check(*args)
    return caught.value.detail


@pytest.mark.parametrize(
    ("value", "given"),
    [pytest.param(100, True, id="int"), pytest.param("", True, id="empty-text-is-given"),
     pytest.param(None, False, id="none")],
)  # fmt: skip
def test_require_refuses_only_a_missing_value(value, given):
    if given:
        assert bank.require(value, "amountCents") == value
    else:
        assert refusal(bank.require, value, "amountCents") == "amountCents is required"


@pytest.mark.parametrize("value", [None, ""])
def test_require_text_refuses_missing_or_empty_text(value):
    assert refusal(bank.require_text, value, "externalReference") == (
        "externalReference is required"
    )


def test_require_text_returns_the_text():
    assert bank.require_text("REF-1", "externalReference") == "REF-1"


def test_check_offered_names_the_field_and_instrument():
    """Collections and payments name serviceType; a DebiCheck mandate names profileCode."""
    bank.check_offered(EFT_ONLY, "EFTONEDAY")
    assert refusal(bank.check_offered, EFT_ONLY, "EFTSAMEDAY") == (
        "serviceType: the profile does not offer EFTSAMEDAY"
    )
    assert refusal(bank.check_offered, EFT_ONLY, "DEBICHECK", "profileCode") == (
        "profileCode: the profile does not offer DEBICHECK"
    )


@pytest.mark.parametrize("kind", [EftMandateInput, DebiCheckMandateInput])
def test_both_kinds_of_mandate_check_the_debtor_then_the_reference(kind):
    assert refusal(check_parties, kind(externalReference="REF-1")) == "debtor is required"
    assert refusal(check_parties, kind(debtor=ACCOUNT)) == "externalReference is required"
    assert check_parties(kind(debtor=ACCOUNT, externalReference="REF-1")) == ACCOUNT
