"""Unpaid reason codes (the clearing house's schedule of unpaids) and what they do to a
mandate; the dispute window. The schedule itself is data (``fixtures/unpaid_codes.yaml``,
read by ``emulator.resources``); these rules take it as an argument."""

from __future__ import annotations

from datetime import date, datetime, time, timedelta
from typing import Literal

import msgspec

from emulator.bank.calendar.rules import SAST

Consequence = Literal["temporary", "inactive", "authority"]


class UnpaidCode(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    code: str
    text: str
    consequence: Consequence


class Schedule(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    codes: list[UnpaidCode]

    def __post_init__(self) -> None:
        for entry in self.codes:
            if len(entry.code) != 2 or not entry.code.isdigit():
                raise ValueError(f"unpaid code {entry.code!r} is not two digits")

    def get(self, code: str) -> UnpaidCode | None:
        for entry in self.codes:
            if entry.code == code:
                return entry
        return None

    def numbers(self) -> list[str]:
        return [entry.code for entry in self.codes]


DEFAULT_UNPAID = "02"  # an UNPAID with no code: not provided for
DEFAULT_DISPUTE = "30"  # a DISPUTED with no code: no authority to debit
CODED_STATUSES = ("UNPAID", "DISPUTED")
CONSECUTIVE_LIMIT = 3  # consecutive unpaids that suspend a mandate
DISPUTE_DAYS = 40


def code_problem(schedule: Schedule, status: str, code: str | None) -> str | None:
    """Why ``code`` cannot go with ``status`` (None when it can): a code only with UNPAID or
    DISPUTED, one of the schedule, and a dispute's one of authority (30, 32, 34, 36)."""
    if code is None:
        return None
    if status not in CODED_STATUSES:
        return f"reasonCode goes with UNPAID or DISPUTED, not {status}"
    entry = schedule.get(code)
    if entry is None:
        known = ", ".join(schedule.numbers())
        return f"reasonCode '{code[:8]}' is not one of the schedule: {known}"
    if status == "DISPUTED" and entry.consequence != "authority":
        authority = [e.code for e in schedule.codes if e.consequence == "authority"]
        return f"a dispute's reasonCode is one of authority: {', '.join(authority)}"
    return None


def resolve(
    schedule: Schedule, status: str, code: str | None, reason: str | None
) -> tuple[str | None, str | None]:
    """(reasonCode, reason) of a new status: UNPAID and DISPUTED always carry a code (02 and 30
    by default) and its text, unless a text was given (a scenario file's older form keeps
    its own); the other statuses keep the free text they were given."""
    if status not in CODED_STATUSES:
        return None, reason
    chosen = code or (DEFAULT_UNPAID if status == "UNPAID" else DEFAULT_DISPUTE)
    entry = schedule.get(chosen)
    return chosen, reason if reason is not None or entry is None else entry.text


def is_temporary(schedule: Schedule, code: str) -> bool:
    entry = schedule.get(code)
    return entry is not None and entry.consequence == "temporary"


def mandate_consequence(
    schedule: Schedule, code: str, consecutive: int
) -> Literal["INACTIVE", "SUSPENDED"] | None:
    """What an unpaid (or a dispute) with ``code`` does to its mandate, ``consecutive`` being
    the mandate's unpaids in a row including this one: anything but a temporary code makes it
    INACTIVE; the third temporary one in a row SUSPENDS it."""
    if not is_temporary(schedule, code):
        return "INACTIVE"
    return "SUSPENDED" if consecutive >= CONSECUTIVE_LIMIT else None


def test_account_code(schedule: Schedule, account_number: str) -> str | None:
    """Debtor account ``1200000NN``: UNPAID with code NN (any code of the schedule)."""
    if len(account_number) == 9 and account_number.startswith("1200000"):
        code = account_number[7:]
        if schedule.get(code) is not None:
            return code
    return None


def dispute_deadline_us(action: date) -> int:
    """The end of the dispute window: midnight SAST at the end of the 40th day after the action
    date."""
    end = datetime.combine(action + timedelta(days=DISPUTE_DAYS + 1), time(0, 0), SAST)
    return int(end.timestamp()) * 1_000_000


def dispute_closes_on(action: date) -> str:
    return (action + timedelta(days=DISPUTE_DAYS)).isoformat()
