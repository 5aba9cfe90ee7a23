"""Card validation and the test cards' outcomes (pure)."""

from __future__ import annotations

import pytest

from emulator.domain import card_rules, cards
from emulator.domain.errors import InvalidCardData
from tests.conftest import EPOCH_S


def test_every_card_of_the_fixtures_has_its_outcome():
    """fixtures/test_values.yaml and TEST_CARDS list the same cards."""
    from emulator import resources

    numbers = [c["number"] for c in resources.test_values()["cards"]]  # type: ignore[index, union-attr]
    assert numbers == list(cards.TEST_CARDS)
    assert all(card_rules.luhn_valid(n) for n in numbers)


def test_validate_accepts_spaces_and_this_month():
    card = cards.validate("4444 3333 2222 1111", "01/26", "123", "Mary-Jane O'Neil Jr.", EPOCH_S)
    assert card.number == "4444333322221111"
    assert card.masked == "444433******1111"
    assert card.brand == "visa"


def test_validate_names_the_field():
    with pytest.raises(InvalidCardData) as caught:
        cards.validate("4444333322221111", "12/25", "123", "Jane", EPOCH_S)
    assert caught.value.field == "expires"


def test_outcomes():
    def of(number: str, cvc: str = "123") -> cards.Outcome:
        return cards.outcome(cards.validate(number, "12/30", cvc, "Jane", EPOCH_S))

    assert of("4444333322221111") == cards.Outcome("approve")
    assert of("4444333322221111", "321") == cards.Outcome("decline", "do_not_honour")
    assert of("4000000000000259") == cards.Outcome("approve", slow=True)
    assert of("5555555555554444").result == "3ds_pass"
    assert of("4000008400001629").result == "3ds_fail"
    assert of("4242424242424242") == cards.Outcome("decline", "invalid_card_number")


@pytest.mark.parametrize(
    ("expires", "cvc"), [("١٢/٣٠", "123"), ("12/30", "١٢٣"), ("\uff11\uff12/\uff13\uff10", "123")]
)
def test_expiry_and_cvc_take_ascii_digits_only(expires, cvc):
    with pytest.raises(InvalidCardData):
        cards.validate("4444333322221111", expires, cvc, "Test Payer", 1_767_600_000)
