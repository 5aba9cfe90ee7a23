"""v2 mandates: EFT (made by an EFT collection or POST /v2/mandate/eft) and DebiCheck (made by
POST /v2/mandate/debicheck, authenticated by the debtor within a window)."""

from __future__ import annotations

from datetime import date, datetime, time, timedelta
from typing import Annotated, Literal

import msgspec

from emulator.bank.calendar.rules import SAST, iso_to_us, local, next_business_day, processing_us
from emulator.bank.common.model import (
    AdjustmentCategory,
    AuthenticationType,
    Cents,
    Creditor,
    DebitSequence,
    Debtor,
    Frequency,
    Text,
    require_account,
    require_text,
)
from emulator.domain.errors import BankBadRequest


class Mandate(msgspec.Struct, kw_only=True):
    """A mandate as the v2 interface returns it. DebiCheck-only fields are null on EFT ones."""

    id: str
    type: Literal["EFT", "DEBICHECK"]
    status: str
    externalReference: str | None
    contractReference: str | None
    abbreviatedName: str | None
    profileCode: str
    debtor: Debtor
    creditor: Creditor
    frequency: str
    entryClass: str
    releaseDate: str | None = None
    authenticationType: str | None = None
    authenticationExpiresAt: str | None = None
    mandateReferenceNumber: str | None = None
    maxAmountCents: int | None = None
    installmentAmountCents: int | None = None
    debitSequence: str | None = None
    adjustmentCategory: str | None = None
    trackingEnabled: bool | None = None
    firstCollectionDate: str | None = None
    reason: str | None = None
    reasonCode: str | None = None
    bulkId: str | None = None
    createdAt: str
    updatedAt: str


class MandateInput(msgspec.Struct, kw_only=True):
    """The fields a request for either kind of mandate begins with."""

    debtor: Debtor | None = None
    creditor: Creditor | None = None
    profileCode: Text | None = None
    externalReference: Text | None = None
    abbreviatedName: Annotated[str, msgspec.Meta(max_length=30)] | None = None
    contractReference: Text | None = None


class EftMandateInput(MandateInput, kw_only=True):
    releaseDate: Text | None = None
    frequency: Frequency = "ADHOC"
    entryClass: Text | None = None


class DebiCheckMandateInput(MandateInput, kw_only=True):
    authenticationType: AuthenticationType = "REALTIME"
    maxAmountCents: Cents | None = None
    installmentAmountCents: Cents | None = None
    debitSequence: DebitSequence = "RCUR"
    frequency: Frequency = "MONTHLY"
    adjustmentCategory: AdjustmentCategory = "NEVER"
    trackingEnabled: bool = False
    firstCollectionDate: Text | None = None
    entryClass: Text | None = None
    releaseDate: Text | None = None


ClockTime = Annotated[str, msgspec.Meta(pattern=r"^([01][0-9]|2[0-3]):[0-5][0-9]$")]


class AuthenticationWindows(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """A merchant's DebiCheck authentication windows (providers' documents disagree, so the
    control plane sets them per merchant): REALTIME ``realtime_seconds`` after the request,
    DELAYED until ``delayed_until`` SAST the same day (the next day's when asked later), BATCH
    until ``batch_until`` SAST on the next business day."""

    realtime_seconds: Annotated[int, msgspec.Meta(ge=1, le=86_400)] = 120
    delayed_until: ClockTime = "20:00"
    batch_until: ClockTime = "19:00"


DEFAULT_WINDOWS = AuthenticationWindows()


def _at(day: date, clock_time: str) -> int:
    hours, minutes = (int(part) for part in clock_time.split(":"))
    return int(datetime.combine(day, time(hours, minutes), SAST).timestamp()) * 1_000_000


def authentication_deadline_us(
    kind: str, now_us: int, windows: AuthenticationWindows = DEFAULT_WINDOWS
) -> int:
    """End of the debtor's window to answer (FIDELITY.md, docs/bank.md "Debit-order outcomes")."""
    if kind == "REALTIME":
        return now_us + windows.realtime_seconds * 1_000_000
    today = local(now_us).date()
    if kind == "DELAYED":
        end = _at(today, windows.delayed_until)
        return end if end > now_us else _at(today + timedelta(days=1), windows.delayed_until)
    return _at(next_business_day(today + timedelta(days=1)), windows.batch_until)


def reference_number(seq_hint: str) -> str:
    """The bank's mandate reference number (MRN), from the mandate id: 22 characters."""
    digits = "".join(c for c in seq_hint if c.isalnum()).upper()
    return ("MRN" + digits)[:22]


def check_parties(data: MandateInput) -> Debtor:
    """What a request for either kind of mandate gives first: the debtor's account and an
    externalReference."""
    debtor = require_account(data.debtor)
    require_text(data.externalReference, "externalReference")
    return debtor


def check_release(release: str | None, now_us: int, first_collection: str | None = None) -> None:
    """A new mandate's ``releaseDate`` (when it expires) is in the future, and after its
    ``firstCollectionDate``."""
    if release is None:
        return
    if iso_to_us(release) <= now_us:
        raise BankBadRequest("releaseDate must be in the future")
    if first_collection is not None and iso_to_us(first_collection) > iso_to_us(release):
        raise BankBadRequest("firstCollectionDate must not be after the releaseDate")


def check_collectable(mandate: Mandate, action: date) -> None:
    """A collection is actioned (18:00 SAST on its action date) no later than its mandate's
    ``releaseDate``, when the mandate expires."""
    if mandate.releaseDate is not None and processing_us(action) > iso_to_us(mandate.releaseDate):
        raise BankBadRequest(
            f"collectionDate: the collection would be actioned on {action.isoformat()},"
            f" after the mandate's releaseDate ({mandate.releaseDate})"
        )
