"""What every card obeys, whether it pays a purchase or receives a payout: the Luhn check
digit, the brand its number's prefix names and the cardholder name's characters."""

from __future__ import annotations

import re

# Spec (card field validation, card payout execution): Latin letters, space, apostrophe, dot,
# dash.
CARDHOLDER_NAME = re.compile(r"^[A-Za-z .'\-]+\Z")


def luhn_valid(number: str) -> bool:
    """Whether a string of ASCII digits ends in its Luhn check digit (ISO/IEC 7812-1)."""
    total = 0
    for i, ch in enumerate(reversed(number)):
        digit = int(ch)
        if i % 2 == 1:
            digit = digit * 2 - 9 if digit > 4 else digit * 2
        total += digit
    return total % 10 == 0


def brand_of(number: str) -> str:
    """visa, mastercard, american_express or unknown, by the number's prefix."""
    if number.startswith("4"):
        return "visa"
    if number[:2] in {"51", "52", "53", "54", "55"} or "2221" <= number[:4] <= "2720":
        return "mastercard"
    if number[:2] in {"34", "37"}:
        return "american_express"
    return "unknown"
