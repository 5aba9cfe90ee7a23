"""Field rules: email, E.164 phone, ISO 3166-1 country, ISO 4217 currency, UUID, length."""

from __future__ import annotations

import pytest

from emulator.domain import validation as v


@pytest.mark.parametrize(
    ("value", "ok"),
    [
        pytest.param("payer@example.com", True, id="plain"),
        pytest.param("first.last+tag@sub.example.co.za", True, id="dots-plus-subdomain"),
        pytest.param("no-at-sign.example.com", False, id="no-at"),
        pytest.param("two@@example.com", False, id="two-ats"),
        pytest.param("space in@example.com", False, id="space"),
        pytest.param("user@localhost", False, id="no-dot-in-domain"),
        pytest.param("user@example.c", False, id="one-letter-tld"),
        pytest.param(".lead@example.com", False, id="leading-dot"),
        pytest.param("", False, id="empty"),
    ],
)
def test_email(value: str, ok: bool):
    """Email addresses: one @, a dotted domain, no spaces."""
    assert (v.email("email", value) is None) is ok


def test_email_over_254_is_max_length():
    """An address longer than 254 characters is a max_length error."""
    error = v.email("email", "a" * 250 + "@example.com")
    assert error is not None and error.code == "max_length"


@pytest.mark.parametrize(
    ("value", "ok"),
    [
        pytest.param("+27821234567", True, id="e164"),
        pytest.param("+44 45643564564", True, id="provider-documented-space"),
        pytest.param("", True, id="blank-is-allowed"),
        pytest.param("0821234567", False, id="no-plus"),
        pytest.param("+0821234567", False, id="leading-zero-country"),
        pytest.param("+2782123456789012", False, id="sixteen-digits"),
        pytest.param("+1", False, id="one-digit"),
        pytest.param("+27-82-123-4567", False, id="dashes"),
        pytest.param("+27 82  1234567", False, id="double-space"),
    ],
)
def test_phone(value: str, ok: bool):
    """Phones are E.164 (single spaces between groups tolerated, as the provider documents)."""
    assert (v.phone("phone", value) is None) is ok


@pytest.mark.parametrize(
    ("value", "ok"),
    [
        ("ZA", True),
        ("GB", True),
        ("", True),
        ("za", False),
        ("ZAF", False),
        ("XX", False),
        ("UK", False),
    ],
)
def test_country(value: str, ok: bool):
    """Countries are upper-case ISO 3166-1 alpha-2 codes (UK is not one; GB is)."""
    assert (v.country("country", value) is None) is ok


@pytest.mark.parametrize(
    ("value", "ok"),
    [("ZAR", True), ("EUR", True), ("MYR", True), ("zar", False), ("RAND", False), ("XYZ", False)],
)
def test_currency(value: str, ok: bool):
    """Currencies are ISO 4217 codes."""
    assert (v.currency("currency", value) is None) is ok


def test_uuid_field():
    """A UUID in canonical form passes; anything else is invalid_uuid."""
    assert v.uuid_field("id", "9f1c3a52-7d4e-4b8a-9c61-2e5f0a7b3d10") is None
    error = v.uuid_field("id", "not-a-uuid")
    assert error is not None and (error.code, error.field) == ("invalid_uuid", "id")
    assert v.uuid_field("id", "9f1c3a527d4e4b8a9c612e5f0a7b3d10") is not None


def test_max_length():
    """At the limit passes; one more character is max_length."""
    assert v.max_length("f", "x" * 32, 32) is None
    error = v.max_length("f", "x" * 33, 32)
    assert error is not None and error.code == "max_length"


def _uuid_module_says(value: str) -> bool:
    """The definition is_uuid keeps: what uuid.UUID parses and prints back as given."""
    import uuid

    try:
        return str(uuid.UUID(value)) == value.lower()
    except ValueError:
        return False


def test_is_uuid_accepts_exactly_what_uuid_prints_back():
    """Canonical text in either case only: no braces, URN, missing hyphens, underscores,
    whitespace or non-ASCII digits."""
    import random

    canonical = "1b4e28ba-2fa1-11d2-883f-0016d3cca427"
    cases = [
        canonical,
        canonical.upper(),
        "{" + canonical + "}",
        "urn:uuid:" + canonical,
        canonical.replace("-", ""),
        canonical + "\n",
        " " + canonical,
        canonical.replace("1b4e", "1_4e"),
        canonical.replace("1", "\u0661"),  # ARABIC-INDIC DIGIT ONE
        canonical[:-1],
        canonical + "0",
        canonical.replace("-", "", 1) + "-",
        "",
        "not-a-uuid",
    ]
    rng = random.Random(18)
    alphabet = "0123456789abcdefABCDEF-{}_ xg"
    for _ in range(2000):
        text = list(canonical)
        for _ in range(rng.randint(1, 3)):
            text[rng.randrange(len(text))] = rng.choice(alphabet)
        cases.append("".join(text))
    for value in cases:
        assert v.is_uuid(value) is _uuid_module_says(value), value
