"""The v2 domain: transition tables, outcome plans, calendars, windows, bulk rows (pure)."""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest

from emulator import resources
from emulator.bank.calendar.rules import (
    action_date,
    is_business_day,
    iso_to_us,
    iso_us,
    parse_instant,
    processing_us,
)
from emulator.bank.collections.rules import TEST_DELAY_US, Step, debit_sequence, plan
from emulator.bank.common.model import (
    MANDATE_TRANSITIONS,
    MONEY_TRANSITIONS,
    InvalidTransition,
    check_transition,
)
from emulator.bank.mandates.rules import authentication_deadline_us
from emulator.bank.payments import rules_bulk as bulk
from emulator.domain.errors import BankBadRequest

MONDAY_11H_SAST = int(datetime(2026, 1, 5, 9, 0, tzinfo=UTC).timestamp()) * 1_000_000


def us(text: str) -> int:
    return int(datetime.fromisoformat(text).timestamp()) * 1_000_000


@pytest.mark.parametrize(
    ("table", "current", "target", "allowed"),
    [
        (MONEY_TRANSITIONS, "PENDING", "COMPLETED", True),
        (MONEY_TRANSITIONS, "COMPLETED", "DISPUTED", True),
        (MONEY_TRANSITIONS, "PENDING", "DISPUTED", False),
        (MONEY_TRANSITIONS, "UNPAID", "COMPLETED", False),
        (MANDATE_TRANSITIONS, "PENDING_AUTHENTICATION", "AUTHENTICATED", True),
        (MANDATE_TRANSITIONS, "EXPIRED", "PENDING_AUTHENTICATION", True),
        (MANDATE_TRANSITIONS, "AUTHENTICATED", "PENDING_AUTHENTICATION", False),
        (MANDATE_TRANSITIONS, "ACTIVE", "AUTHENTICATED", False),
        (MANDATE_TRANSITIONS, "AUTHENTICATED", "EXPIRED", True),
        (MANDATE_TRANSITIONS, "REJECTED", "EXPIRED", False),
    ],
)
def test_transition_tables(table, current, target, allowed):
    if allowed:
        check_transition(table, "thing", current, target)
    else:
        with pytest.raises(InvalidTransition, match=f"in state {current} cannot become {target}"):
            check_transition(table, "thing", current, target)


@pytest.mark.parametrize(
    ("account", "steps"),
    [
        ("110000001", [Step("COMPLETED", 100 + TEST_DELAY_US)]),
        ("110000002", [Step("UNPAID", 100 + TEST_DELAY_US, code="02")]),
        (
            "210000001",
            [
                Step("COMPLETED", 100 + TEST_DELAY_US),
                Step("DISPUTED", 100 + 2 * TEST_DELAY_US, code="30"),
            ],
        ),
        ("910000001", [Step("REJECTED", 100, "instruction rejected by the bank")]),
        ("910000002", [Step("REJECTED", 999, "rejected in the batch")]),
        ("1234567", [Step("COMPLETED", 999)]),
        ("120000012", [Step("UNPAID", 100 + TEST_DELAY_US, code="12")]),
        ("120000056", [Step("UNPAID", 100 + TEST_DELAY_US, code="56")]),
        ("120000001", [Step("COMPLETED", 999)]),  # 01 is not a code of the schedule
        ("1200000123", [Step("COMPLETED", 999)]),
    ],
)
def test_outcome_plans_of_the_test_accounts(account, steps):
    assert plan(resources.unpaid_codes(), account, 100, 999) == steps


def test_south_african_holidays_are_not_business_days():
    assert not is_business_day(date(2026, 4, 3))  # Good Friday
    assert not is_business_day(date(2026, 4, 6))  # Family Day
    assert not is_business_day(date(2026, 4, 4))  # a Saturday
    assert is_business_day(date(2026, 4, 7))
    # 2027-12-26 (Day of Goodwill) is a Sunday: the Monday after is the public holiday.
    assert not is_business_day(date(2027, 12, 27))


@pytest.mark.parametrize(
    ("now", "service", "requested", "expected"),
    [
        (MONDAY_11H_SAST, "SAMEDAY", None, date(2026, 1, 5)),
        (us("2026-01-05T11:59:59+00:00"), "SAMEDAY", None, date(2026, 1, 5)),
        (us("2026-01-05T12:00:00+00:00"), "SAMEDAY", None, date(2026, 1, 6)),  # 14:00 SAST
        (us("2026-04-02T08:00:00+00:00"), "ONEDAY", None, date(2026, 4, 7)),  # over Easter
        (us("2026-04-02T08:00:00+00:00"), "TWODAY", None, date(2026, 4, 8)),
        (MONDAY_11H_SAST, "ONEDAY", date(2026, 6, 16), date(2026, 6, 17)),  # Youth Day
    ],
)
def test_action_dates(now, service, requested, expected):
    assert action_date(now, service, requested) == expected


def test_processing_is_at_18h00_sast():
    assert processing_us(date(2026, 1, 6)) == us("2026-01-06T16:00:00+00:00")


@pytest.mark.parametrize(
    ("kind", "now", "deadline"),
    [
        ("REALTIME", MONDAY_11H_SAST, MONDAY_11H_SAST + 120_000_000),
        ("DELAYED", MONDAY_11H_SAST, us("2026-01-05T18:00:00+00:00")),
        ("DELAYED", us("2026-01-05T18:30:00+00:00"), us("2026-01-06T18:00:00+00:00")),
        ("BATCH", MONDAY_11H_SAST, us("2026-01-06T17:00:00+00:00")),
    ],
)
def test_authentication_windows(kind, now, deadline):
    assert authentication_deadline_us(kind, now) == deadline


@pytest.mark.parametrize(
    ("row", "message"),
    [
        ({"amountCents": "²"}, "amountCents: '²' is not a whole number of cents"),
        ({"amountCents": "-5"}, "amountCents: '-5' is not a whole number of cents"),
        ({"realTimeClearing": "yes"}, "realTimeClearing: must be true or false"),
        ({"serviceType": "NEVER"}, "serviceType: Invalid enum value 'NEVER'"),
        # int() refuses strings of 4,300 digits and more (ValueError): checked before.
        ({"amountCents": "9" * 5000}, "amountCents: Expected `int` <= 1000000000000000"),
        # 17 digits: msgspec's own bound, with the same words.
        ({"amountCents": "1" + "0" * 16}, "amountCents: Expected `int` <= 1000000000000000"),
    ],
)
def test_bulk_rows_in_error(row, message):
    with pytest.raises(BankBadRequest) as caught:
        bulk.to_input(row)
    assert caught.value.detail == message


def test_a_bulk_row_becomes_a_payment_request():
    request = bulk.to_input(
        {"amountCents": "100", "realTimeClearing": "TRUE", "creditor.accountNumber": "12", "x": ""}
    )
    assert (request.amountCents, request.realTimeClearing) == (100, True)
    assert bulk.to_input({"amountCents": "0" * 5000 + "100"}).amountCents == 100
    assert request.creditor is not None and request.creditor.accountNumber == "12"


@pytest.mark.parametrize(
    ("text", "utc"),
    [
        ("2026-01-05", datetime(2026, 1, 5, tzinfo=UTC)),
        ("2026-01-05T11:00:00+02:00", datetime(2026, 1, 5, 9, tzinfo=UTC)),
        ("1970-01-01T02:00:00+02:00", datetime(1970, 1, 1, tzinfo=UTC)),
        ("9000-01-01T01:59:59+02:00", datetime(8999, 12, 31, 23, 59, 59, tzinfo=UTC)),
        ("9000-12-31T23:00:00-02:00", None),  # 9001 in UTC
        ("9000-01-01T00:00:00Z", None),
        ("1970-01-01T01:00:00+02:00", None),  # 1969 in UTC
        ("9999-12-31T23:00:00-02:00", None),  # past datetime.max in UTC
        ("0001-01-01T00:00:00+01:00", None),  # before datetime.min in UTC
        ("soon", None),
    ],
)
def test_instants_are_checked_in_utc(text, utc):
    assert parse_instant(text) == utc
    if utc is not None:
        assert iso_to_us(iso_us(int(utc.timestamp()) * 1_000_000)) == int(utc.timestamp()) * 10**6


@pytest.mark.parametrize(
    ("mandate", "given", "count", "expected"),
    [
        (None, None, 0, "RCUR"),
        ("RCUR", "FRST", 0, "FRST"),
        ("RCUR", None, 3, "RCUR"),
        ("FRST", None, 0, "FRST"),
        ("FRST", None, 1, "RCUR"),  # a FRST mandate: recurring after its first collection
        ("FRST", "RCUR", 2, "RCUR"),
        ("FRST", "FRST", 1, "debitSequence: FRST is only for the first collection of a mandate"),
        ("FRST", "RCUR", 0, "debitSequence must be FRST or the mandate's sequence (FRST)"),
        ("OOFF", None, 0, "OOFF"),
        ("OOFF", None, 1, "debitSequence: a once-off (OOFF) mandate allows one collection"),
        ("RPRE", "RCUR", 1, "debitSequence must be FRST or the mandate's sequence (RPRE)"),
        ("RCUR", "RPRE", 1, "RPRE"),  # a re-presentment: checked against the unpaid one
        ("OOFF", "RPRE", 1, "RPRE"),
    ],
)
def test_debit_sequences(mandate, given, count, expected):
    if expected.startswith("debitSequence"):
        with pytest.raises(BankBadRequest) as caught:
            debit_sequence(mandate, given, count)
        assert caught.value.detail == expected
    else:
        assert debit_sequence(mandate, given, count) == expected
