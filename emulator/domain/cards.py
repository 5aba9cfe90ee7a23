"""Cards: the payer's card fields, their validation (spec: card field validation) and what the
sandbox's test cards do (DESIGN.md "Test values"). Pure: ``now`` is an argument."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Literal

import msgspec

from emulator.domain.card_rules import CARDHOLDER_NAME, brand_of, luhn_valid
from emulator.domain.errors import InvalidCardData

DEFAULT_CARD = "4444333322221111"
TEST_CVC = "123"

_EXPIRES = re.compile(r"^(\d{2})/(\d{2})\Z", re.ASCII)  # \d is ASCII only: int() takes "١٢"
_CVC = re.compile(r"^\d{3,4}\Z", re.ASCII)

Result = Literal["approve", "decline", "3ds_pass", "3ds_fail"]

# The decline codes a test card or a scenario can give: each one of the platform's own codes
# (fixtures/platform_error_codes.txt, from its official Go SDK; a test keeps them so).
DeclineCode = Literal[
    "do_not_honour",
    "insufficient_funds",
    "expired_card",
    "invalid_card_number",
    "lost_card",
    "stolen_card",
    "suspected_fraud",
    "validation_cvc_invalid",
    "exceeds_withdrawal_limit",
    "issuer_not_available",
]
UNKNOWN_CARD: DeclineCode = "invalid_card_number"  # any other Luhn-valid number
WRONG_CVC: DeclineCode = "do_not_honour"  # a CVC other than 123 on a test card

# Decline codes of earlier releases, not the platform's: scenario files that name them still
# load, with the platform's code in their place.
OLDER_DECLINE_CODES: dict[str, DeclineCode] = {
    "invalid_card": "invalid_card_number",
    "lost_stolen": "lost_card",
}


class Card(msgspec.Struct, frozen=True, kw_only=True):
    """A validated card. ``number`` is kept only while the emulator needs it (a pending 3-D
    Secure challenge); what a purchase shows is ``masked``."""

    number: str
    cardholder_name: str
    expiry_month: int
    expiry_year: int  # two digits, as entered
    cvc: str

    @property
    def brand(self) -> str:
        return brand_of(self.number)

    @property
    def masked(self) -> str:
        return mask(self.number)

    def expired_at(self, now_s: int) -> bool:
        """True once the month after the expiry month has begun (cards run to month end)."""
        today = datetime.fromtimestamp(now_s, UTC)
        return (2000 + self.expiry_year, self.expiry_month) < (today.year, today.month)


class Outcome(msgspec.Struct, frozen=True):
    """What a test card does: ``result`` of the payment, the decline ``reason``, and
    whether a capture (or charge) with it is slow."""

    result: Result
    reason: DeclineCode | None = None
    slow: bool = False


# DESIGN.md "Test values" (fixtures/test_values.yaml says the same in words).
TEST_CARDS: dict[str, Outcome] = {
    "4444333322221111": Outcome("approve"),
    "5555555555554444": Outcome("3ds_pass"),
    "4000000000000002": Outcome("decline", "do_not_honour"),
    "4000000000009995": Outcome("decline", "insufficient_funds"),
    "4000000000000069": Outcome("decline", "expired_card"),
    "4000000000000127": Outcome("decline", "invalid_card_number"),
    "4000000000009987": Outcome("decline", "lost_card"),
    "4000000000009979": Outcome("decline", "stolen_card"),
    "4100000000000019": Outcome("decline", "suspected_fraud"),
    "4000000000000101": Outcome("decline", "validation_cvc_invalid"),
    "4000000000006975": Outcome("decline", "exceeds_withdrawal_limit"),
    "4000000000000119": Outcome("decline", "issuer_not_available"),
    "4000008400001629": Outcome("3ds_fail"),
    "4000000000000259": Outcome("approve", slow=True),
}

DECLINE_MESSAGES: dict[str, str] = {
    "do_not_honour": "Card declined: do not honour.",
    "insufficient_funds": "Card declined: insufficient funds.",
    "expired_card": "Card declined: the card has expired.",
    "invalid_card_number": "Card declined: invalid card number.",
    "lost_card": "Card declined: the card is reported lost.",
    "stolen_card": "Card declined: the card is reported stolen.",
    "suspected_fraud": "Card declined: suspected fraud.",
    "validation_cvc_invalid": "Card declined: the CVC is not the card's.",
    "exceeds_withdrawal_limit": "Card declined: the card's withdrawal limit is exceeded.",
    "issuer_not_available": "Card declined: the card's issuer is not available.",
}


def decline_error(reason: str) -> tuple[str, str]:
    """The (code, message) of a declined attempt's ``error``; an HTTP answer to the decline
    still says the spec's ``card_declined`` (``answer_code``), the reason in its message."""
    # Provider quirk: the code is the reason itself (do_not_honour, insufficient_funds...), as
    # the official SDKs' error-code lists expect.
    return reason, f"{DECLINE_MESSAGES.get(reason, 'Card declined.')} (reason: {reason})"


def answer_code(code: str) -> str:
    """The code an HTTP answer gives for a failed attempt's ``code``: a decline reason is
    ``card_declined``."""
    return "card_declined" if code in DECLINE_MESSAGES else code


def outcome(card: Card) -> Outcome:
    """The card's documented outcome. A CVC other than 123 declines (do_not_honour); any
    other Luhn-valid number declines as invalid_card_number."""
    if card.cvc != TEST_CVC:
        return Outcome("decline", WRONG_CVC)
    return TEST_CARDS.get(card.number, Outcome("decline", UNKNOWN_CARD))


def mask(number: str) -> str:
    return number[:6] + "*" * (len(number) - 10) + number[-4:]


def _bad(field: str, message: str) -> InvalidCardData:
    return InvalidCardData(message, field)


def validate(card_number: str, expires: str, cvc: str, cardholder_name: str, now_s: int) -> Card:
    """The spec's card field validation, first problem first: ``invalid_card_data`` naming
    the field."""
    name = cardholder_name.strip()
    if not name or len(name) > 30 or not CARDHOLDER_NAME.fullmatch(name):
        raise _bad(
            "cardholder_name",
            "Cardholder name must be 1 to 30 Latin letters, spaces, apostrophes, dots or dashes.",
        )
    number = card_number.replace(" ", "")
    if not number.isascii() or not number.isdigit() or not 12 <= len(number) <= 19:
        raise _bad("card_number", "Card number must be 12 to 19 digits.")
    if not luhn_valid(number):
        raise _bad("card_number", "Card number is not valid (Luhn check failed).")
    match = _EXPIRES.match(expires.strip())
    if match is None or not 1 <= int(match.group(1)) <= 12:
        raise _bad("expires", "Expiry must be MM/YY.")
    card = Card(
        number=number,
        cardholder_name=name,
        expiry_month=int(match.group(1)),
        expiry_year=int(match.group(2)),
        cvc=cvc.strip(),
    )
    if card.expired_at(now_s):
        raise _bad("expires", "The card has expired.")
    if not _CVC.fullmatch(card.cvc):
        raise _bad("cvc", "CVC must be 3 or 4 digits.")
    return card
