"""The schedule of unpaids' rules, and why an action date moved (pure)."""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest

from emulator import resources
from emulator.bank.calendar.rules import moved_because
from emulator.domain import unpaids

SCHEDULE = resources.unpaid_codes()


@pytest.mark.parametrize(
    ("code", "consecutive", "verdict"),
    [
        ("02", 1, None),
        ("22", 2, None),
        ("02", 3, "SUSPENDED"),
        ("22", 4, "SUSPENDED"),
        ("12", 1, "INACTIVE"),
        ("30", 1, "INACTIVE"),
        ("56", 3, "INACTIVE"),
    ],
)
def test_what_a_code_does_to_the_mandate(code, consecutive, verdict):
    assert unpaids.mandate_consequence(SCHEDULE, code, consecutive) == verdict


@pytest.mark.parametrize(
    ("status", "code", "given", "expected"),
    [
        ("UNPAID", None, None, ("02", "not provided for")),
        ("DISPUTED", None, None, ("30", "no authority to debit")),
        ("UNPAID", "16", None, ("16", "account transferred to another bank")),
        ("UNPAID", None, "insufficient funds", ("02", "insufficient funds")),  # an older file's
        ("DISPUTED", "34", "said no", ("34", "said no")),
        ("REJECTED", None, "said so", (None, "said so")),
        ("COMPLETED", None, None, (None, None)),
    ],
)
def test_resolve_gives_every_unpaid_and_dispute_a_code_and_its_text(status, code, given, expected):
    assert unpaids.resolve(SCHEDULE, status, code, given) == expected


def test_the_dispute_window_ends_at_midnight_sast_after_the_40th_day():
    end = unpaids.dispute_deadline_us(date(2026, 1, 6))
    assert datetime.fromtimestamp(end / 1e6, UTC) == datetime(2026, 2, 15, 22, 0, tzinfo=UTC)
    assert unpaids.dispute_closes_on(date(2026, 1, 6)) == "2026-02-15"


@pytest.mark.parametrize(
    ("account", "code"),
    [("120000002", "02"), ("120000036", "36"), ("120000001", None), ("12000002", None),
     ("220000002", None)],
)  # fmt: skip
def test_test_account_codes(account, code):
    assert unpaids.test_account_code(SCHEDULE, account) == code


def test_a_schedule_code_must_be_two_digits():
    import msgspec

    with pytest.raises(msgspec.ValidationError, match="not two digits"):
        msgspec.convert(
            {"codes": [{"code": "2", "text": "x", "consequence": "temporary"}]}, unpaids.Schedule
        )


def test_an_action_date_that_did_not_move_has_no_reason():
    monday_9am = int(datetime(2026, 1, 5, 7, 0, tzinfo=UTC).timestamp()) * 1_000_000
    assert moved_because(monday_9am, "ONEDAY", date(2026, 1, 8), date(2026, 1, 8)) is None
    assert moved_because(monday_9am, "ONEDAY", date(2026, 1, 5), date(2026, 1, 6)) == (
        "ONEDAY is actioned 1 business day after the effective submission day:"
        " the earliest action date is 2026-01-06"
    )
