"""The rules purchases' cards and payouts' cards share: Luhn, brand, cardholder name (pure)."""

from __future__ import annotations

import pytest

from emulator.domain import card_rules, cards
from emulator.domain.errors import InvalidCardData, ValidationFailed
from emulator.gateway.payouts import rules_cards as payout_cards
from tests.conftest import EPOCH_S


@pytest.mark.parametrize(
    ("number", "valid"),
    [("4444333322221111", True), ("4444333322221112", False), ("79927398713", True),
     ("5555555555554444", True), ("4000008400001629", True), ("0", True), ("1", False)],
)  # fmt: skip
def test_luhn(number, valid):
    assert card_rules.luhn_valid(number) is valid


@pytest.mark.parametrize(
    ("number", "brand"),
    [
        pytest.param("4444333322221111", "visa", id="visa"),
        pytest.param("5555555555554444", "mastercard", id="mastercard-51-55"),
        pytest.param("2221000000000009", "mastercard", id="mastercard-2221-2720"),
        pytest.param("378282246310005", "american_express", id="amex"),
        pytest.param("6011111111111117", "unknown", id="other"),
    ],
)
def test_brand_of_reads_the_prefix(number, brand):
    assert card_rules.brand_of(number) == brand


def test_a_payout_names_american_express_amex():
    """Payouts keep the provider's short brand name."""
    assert payout_cards.card_brand("378282246310005") == "amex"
    assert payout_cards.card_brand("4444333322221111") == "visa"


def test_a_purchase_card_and_a_payout_card_fail_the_same_luhn_check():
    """Both card modules refuse a number whose check digit is wrong, naming card_number."""
    with pytest.raises(InvalidCardData) as purchase:
        cards.validate("4444333322221112", "12/30", "123", "Jane", EPOCH_S)
    payout_input = payout_cards.CardInput(
        card_number="4444333322221112", cardholder_name="Jane", expiry_month="12", expiry_year="30"
    )
    with pytest.raises(ValidationFailed) as payout:
        payout_cards.validate(payout_input, EPOCH_S)
    assert purchase.value.field == "card_number"
    assert [(e.field, e.code) for e in payout.value.errors] == [
        ("card_number", "invalid_card_data")
    ]


@pytest.mark.parametrize("name", ["Mary-Jane O'Neil Jr.", "A"])
def test_cardholder_name_takes_latin_letters_and_punctuation(name):
    assert card_rules.CARDHOLDER_NAME.fullmatch(name)


@pytest.mark.parametrize("name", ["Zoë", "J4ne", ""])
def test_cardholder_name_refuses_other_characters(name):
    assert not card_rules.CARDHOLDER_NAME.fullmatch(name)
