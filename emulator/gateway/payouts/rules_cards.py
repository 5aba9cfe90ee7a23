"""The card payload of a payout's execution: validation, and what each test card does."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Literal

import msgspec
from msgspec import UNSET, UnsetType

from emulator.domain import validation
from emulator.domain.card_rules import CARDHOLDER_NAME, brand_of, luhn_valid
from emulator.domain.errors import FieldError, ValidationFailed

DAY = 86_400

_DIGITS = re.compile(r"^[0-9]+\Z")
_SHORT_NUMBER = re.compile(r"^[0-9]{1,2}\Z")


class CardInput(msgspec.Struct, forbid_unknown_fields=False):
    """The execution request (spec: Card payout execution payload)."""

    card_number: str | UnsetType = UNSET
    cardholder_name: str | UnsetType = UNSET
    expiry_month: str | UnsetType = UNSET
    expiry_year: str | UnsetType = UNSET


class Card(msgspec.Struct, frozen=True):
    number: str
    holder: str
    month: int
    year: int  # four digits


class CardPlan(msgspec.Struct, frozen=True, kw_only=True):
    """How an execution ends: at once (success, error) or pending, then settled."""

    result: Literal["success", "pending", "error"]
    code: str | None = None
    message: str | None = None
    settles: Literal["success", "failed"] = "success"
    after_seconds: int = 3 * DAY


# The payout column of DESIGN.md's test cards.
TEST_CARDS: dict[str, CardPlan] = {
    "4444333322221111": CardPlan(result="success"),
    "5555555555554444": CardPlan(result="pending", settles="success", after_seconds=3 * DAY),
    "4000000000000002": CardPlan(
        result="error",
        code="card_declined",
        message="The card issuer declined the payout (do_not_honour).",
    ),
    "4000000000009995": CardPlan(result="pending", settles="failed", after_seconds=5 * DAY),
}
# Any other Luhn-valid number, as for purchases: the issuer does not know the card.
OTHER_CARD = CardPlan(
    result="error",
    code="card_declined",
    message="The card issuer declined the payout (invalid_card_number).",
)


def default_plan(number: str) -> CardPlan:
    return TEST_CARDS.get(number, OTHER_CARD)


def card_brand(number: str) -> str:
    """The payout's ``recipient_card_brand``: a purchase's brands, American Express as amex."""
    brand = brand_of(number)
    return "amex" if brand == "american_express" else brand


def _bad(field: str, message: str) -> FieldError:
    return FieldError(field, "invalid_card_data", message)


def validate(data: CardInput, now: int) -> Card:
    """The card, or ValidationFailed (``required`` / ``invalid_card_data``) naming each field."""
    errors: list[FieldError] = []
    values: dict[str, str] = {}
    for field in CardInput.__struct_fields__:
        value = getattr(data, field)
        if isinstance(value, UnsetType):
            errors.append(validation.required(field))
        else:
            values[field] = value
    number = values.get("card_number")
    if number is not None:
        if not 16 <= len(number) <= 19 or not _DIGITS.fullmatch(number):
            errors.append(_bad("card_number", "Card number must be 16 to 19 digits."))
        elif not luhn_valid(number):
            errors.append(_bad("card_number", "Card number is not valid."))
    holder = values.get("cardholder_name")
    if holder is not None and (not 1 <= len(holder) <= 30 or not CARDHOLDER_NAME.fullmatch(holder)):
        errors.append(
            _bad(
                "cardholder_name",
                "Cardholder name must be 1 to 30 Latin letters, spaces, apostrophes, dots "
                "or dashes.",
            )
        )
    month, year = values.get("expiry_month"), values.get("expiry_year")
    if month is not None and (not _SHORT_NUMBER.fullmatch(month) or not 1 <= int(month) <= 12):
        errors.append(_bad("expiry_month", "Expiry month must be 1 to 2 digits, 1 to 12."))
    if year is not None and not _SHORT_NUMBER.fullmatch(year):
        errors.append(_bad("expiry_year", "Expiry year must be 1 to 2 digits."))
    if errors:
        raise ValidationFailed(errors)
    assert number is not None and holder is not None and month is not None and year is not None
    card = Card(number=number, holder=holder, month=int(month), year=2000 + int(year))
    today = datetime.fromtimestamp(now, UTC)
    if (card.year, card.month) < (today.year, today.month):
        raise ValidationFailed([_bad("expiry_year", "The card has expired.")])
    return card
