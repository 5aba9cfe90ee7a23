"""What a v2 request is checked against: its profile code (rule 1: only the token's
merchant's), its date-time fields, a settle's outcome code."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date
from typing import TypeVar

from emulator import resources
from emulator.bank.calendar.rules import instant_problem, iso_us, parse_instant, sast_date
from emulator.bank.common import repo
from emulator.bank.common.model import InvalidTransition, require_text
from emulator.core.merchants.model import MerchantProfile
from emulator.domain import unpaids
from emulator.domain.errors import BankBadRequest, ControlError
from emulator.kernel.storage import Tx

T = TypeVar("T")


def profile(tx: Tx, merchant_id: str, code: str | None) -> MerchantProfile:
    """Rule 1: a profile code the token's merchant does not own does not exist for it."""
    found = repo.profile_by_code(tx, merchant_id, require_text(code, "profileCode"))
    if found is None:
        raise BankBadRequest("profile code does not exist")
    return found


def instant(value: str | None, field: str) -> tuple[str | None, date | None]:
    """A date-time field: (normalised ISO 8601 UTC, its South African date), or a 400."""
    if value is None:
        return None, None
    parsed = parse_instant(value)
    if parsed is None:
        raise BankBadRequest(f"{field}: {instant_problem(value)}")
    return iso_us(int(parsed.timestamp()) * 1_000_000), sast_date(parsed)


def check_outcome_code(status: str, code: str | None) -> None:
    """The control plane's settle of a collection or payment: a code of the unpaids schedule
    that fits the status (none for COMPLETED)."""
    problem = unpaids.code_problem(resources.unpaid_codes(), status, code)
    if problem is not None:
        raise ControlError(400, "invalid", problem)


def settle_unit(found: tuple[str, T] | None, change: Callable[[str, T], T], what: str) -> T:
    """The control plane's settle of a collection or payment ``found`` (its merchant and
    itself) in a unit of work: 404 when there is none, ``change`` made, or 409 when its status
    does not allow it."""
    if found is None:
        raise ControlError(404, "not_found", f"no {what} with this id")
    try:
        return change(*found)
    except InvalidTransition as exc:
        raise ControlError(409, "invalid_state", exc.detail) from exc
