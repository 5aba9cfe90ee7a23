"""Field rules shared by the gateway's resources; each returns a FieldError or None."""

from __future__ import annotations

import re
from typing import Annotated

import msgspec

from emulator.domain.errors import FieldError
from emulator.domain.iso import COUNTRIES, CURRENCIES

# A pragmatic address check in the spirit of Django's EmailValidator: one @, a dotted domain,
# no spaces; the local part allows the usual atext characters.
_EMAIL = re.compile(
    r"^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*"
    r"@([A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z]{2,63}$"
)
# Provider quirk: the platform documents phones as "<country_code> <number>" (e.g.
# "+44 45643564564"), so single spaces between digit groups are accepted; the digits
# themselves must still form an E.164 number (a leading +, 2 to 15 digits, no leading 0).
_PHONE = re.compile(r"^\+[1-9]\d{0,3}( ?\d+)*$")

# Provider quirk: an official e-commerce plugin sends its order id as a JSON number in
# ``reference``; the platform stores and returns it as its decimal string. A string field of a
# gateway body typed ``Reference`` takes an integer so (emulator/gateway/body.py).
NUMBER_AS_TEXT = "number_as_text"
Reference = Annotated[str, msgspec.Meta(extra={NUMBER_AS_TEXT: True})]


def required(field: str) -> FieldError:
    return FieldError(field, "required", "This field is required.")


def invalid(field: str, message: str) -> FieldError:
    return FieldError(field, "invalid", message)


def max_length(field: str, value: str, limit: int) -> FieldError | None:
    if len(value) > limit:
        return FieldError(
            field, "max_length", f"Ensure this field has no more than {limit} characters."
        )
    return None


def bounds(
    field: str, value: int | float, low: int | float, high: int | float
) -> FieldError | None:
    if value < low:
        return FieldError(
            field, "min_value", f"Ensure this value is greater than or equal to {low}."
        )
    if value > high:
        return FieldError(
            field, "max_value", f"Ensure this value is less than or equal to {high:,}."
        )
    return None


def email(field: str, value: str) -> FieldError | None:
    if len(value) > 254:
        return max_length(field, value, 254)
    if not _EMAIL.fullmatch(value):
        return invalid(field, "Enter a valid email address.")
    return None


def phone(field: str, value: str) -> FieldError | None:
    if value == "":
        return None
    digits = value.replace(" ", "")[1:]
    if not _PHONE.fullmatch(value) or not 2 <= len(digits) <= 15:
        return invalid(field, "Enter a valid phone number in E.164 format, e.g. +27821234567.")
    return max_length(field, value, 32)


def country(field: str, value: str) -> FieldError | None:
    if value == "" or value in COUNTRIES:
        return None
    return invalid(field, f"'{value}' is not a valid ISO 3166-1 alpha-2 country code.")


def currency(field: str, value: str) -> FieldError | None:
    if value in CURRENCIES:
        return None
    return invalid(field, f"'{value}' is not a valid ISO 4217 currency code.")


# A UUID as the platform writes it (8-4-4-4-12 hex digits, either case): the text uuid.UUID
# parses and prints back the same, without building the object (a tenth of a read's time).
_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")


def is_uuid(value: str) -> bool:
    return _UUID.fullmatch(value) is not None


def uuid_field(field: str, value: str) -> FieldError | None:
    if is_uuid(value):
        return None
    return FieldError(field, "invalid_uuid", f"'{value}' is not a valid UUID.")


_LOCATED = re.compile(r" - at `(?P<key>key` in `)?\$(?P<path>[^`]*)`$")


def split_located(message: str) -> tuple[str, str | None, bool]:
    """msgspec's validation message ``text - at `$.a[1].b``` as (``text``, ``".a[1].b"``
    (``""`` for the root; None when the message names no place), whether it is about a key
    (``- at `key` in `$...```))."""
    found = _LOCATED.search(message)
    if found is None:
        return message, None, False
    return message[: found.start()], found["path"], bool(found["key"])
