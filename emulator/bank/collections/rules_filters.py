"""The filters of GET /v2/collection/debicheck, over collection objects (pure).

Filters arrive parsed (dates as South African dates, booleans as bools). Fields the emulator
never sets (settlementId, reconReference, disputeReconReference, recourseSettlementId) are
null, so filtering on a value of theirs matches nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date
from typing import Any

from emulator.bank.calendar.rules import parse_instant, sast_date
from emulator.bank.collections.rules import Collection

Getter = Callable[[Collection], Any]

TEXT: dict[str, Getter] = {
    "mandateReferenceNumber": lambda c: c.mandateReferenceNumber,
    "profileCode": lambda c: c.profileCode,
    "externalReference": lambda c: c.externalReference,
    "bank": lambda c: c.debtor.bank,
    "collectionReference": lambda c: c.id,
    "creditorAccountNumber": lambda c: c.creditor.accountNumber,
    "ultimateCreditorAccountNumber": lambda c: (
        c.ultimateCreditor.accountNumber if c.ultimateCreditor else None
    ),
    "settlementId": lambda c: None,
    "reconReference": lambda c: None,
    "disputeReconReference": lambda c: None,
    "creditorAbbreviatedName": lambda c: c.creditor.abbreviatedName,
    "state": lambda c: c.status,
    "debitSequence": lambda c: c.debitSequence,
    "sequenceNumber": lambda c: c.sequenceNumber,
    "bulkId": lambda c: c.bulkId,
    "recourseSettlementId": lambda c: None,
}

FLAGS: dict[str, Getter] = {
    "isStatementIdNull": lambda c: c.statementId is None,
    "isSettlementIdNull": lambda c: True,
    "markedAsSettled": lambda c: c.status == "COMPLETED",
    "isUltimateCreditorAccountNumberNull": lambda c: (
        c.ultimateCreditor is None or c.ultimateCreditor.accountNumber is None
    ),
}


def _day(value: str | None) -> date | None:
    if value is None:
        return None
    parsed = parse_instant(value)
    return sast_date(parsed) if parsed is not None else date.fromisoformat(value[:10])


def _settlement_day(c: Collection) -> date | None:
    return date.fromisoformat(c.actionDate) if c.status in ("COMPLETED", "DISPUTED") else None


DATES: dict[str, Getter] = {
    "collectionDate": lambda c: _day(c.collectionDate),
    "submissionDate": lambda c: _day(c.submissionDate),
    "bankservSettlementDate": _settlement_day,
}


def matches(c: Collection, filters: dict[str, Any]) -> bool:
    for name, wanted in filters.items():
        if name in TEXT:
            if TEXT[name](c) != wanted:
                return False
        elif name in FLAGS:
            if FLAGS[name](c) != wanted:
                return False
        else:
            base, bound = _date_filter(name)
            day = DATES[base](c)
            if day is None:
                return False
            if bound == "" and day != wanted:
                return False
            if bound == "From" and day < wanted:
                return False
            if bound == "To" and day > wanted:
                return False
    return True


def _date_filter(name: str) -> tuple[str, str]:
    for bound in ("From", "To"):
        if name.endswith(bound):
            return name.removesuffix(bound), bound
    return name, ""


DATE_FILTERS = (
    "collectionDate",
    "collectionDateFrom",
    "collectionDateTo",
    "submissionDate",
    "submissionDateFrom",
    "submissionDateTo",
    "bankservSettlementDate",
)
