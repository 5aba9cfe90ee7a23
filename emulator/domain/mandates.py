"""v2 mandates: EFT (made by an EFT collection or POST /v2/mandate/eft) and DebiCheck (made by
POST /v2/mandate/debicheck, authenticated by the debtor within a window)."""

from __future__ import annotations

from datetime import date, datetime, time, timedelta
from typing import Annotated, Literal

import msgspec

from emulator.domain.bank import (
    AdjustmentCategory,
    AuthenticationType,
    Cents,
    Creditor,
    DebitSequence,
    Debtor,
    Frequency,
    Text,
)
from emulator.domain.bank_calendar import SAST, iso_to_us, local, processing_us
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


class EftMandateInput(msgspec.Struct, kw_only=True):
    debtor: Debtor | None = None
    creditor: Creditor | None = None
    profileCode: Text | None = None
    externalReference: Text | None = None
    abbreviatedName: Annotated[str, msgspec.Meta(max_length=30)] | None = None
    contractReference: Text | None = None
    releaseDate: Text | None = None
    frequency: Frequency = "ADHOC"
    entryClass: Text | None = None


class DebiCheckMandateInput(msgspec.Struct, kw_only=True):
    debtor: Debtor | None = None
    creditor: Creditor | None = None
    profileCode: Text | None = None
    externalReference: Text | None = None
    abbreviatedName: Annotated[str, msgspec.Meta(max_length=30)] | None = None
    contractReference: Text | None = None
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


REALTIME_SECONDS = 120
DELAYED_UNTIL = time(20, 0)  # the same day
BATCH_UNTIL = time(19, 0)  # the next day


def authentication_deadline_us(kind: str, now_us: int) -> int:
    """End of the debtor's window to answer (FIDELITY.md): REALTIME 120 s, DELAYED until 20:00
    the same day (the next day's 20:00 when asked later), BATCH until 19:00 the next day."""
    if kind == "REALTIME":
        return now_us + REALTIME_SECONDS * 1_000_000
    today = local(now_us).date()
    if kind == "DELAYED":
        end = datetime.combine(today, DELAYED_UNTIL, SAST)
        if int(end.timestamp()) * 1_000_000 <= now_us:
            end += timedelta(days=1)
    else:
        end = datetime.combine(today + timedelta(days=1), BATCH_UNTIL, SAST)
    return int(end.timestamp()) * 1_000_000


def reference_number(seq_hint: str) -> str:
    """The bank's mandate reference number (MRN), from the mandate id: 22 characters."""
    digits = "".join(c for c in seq_hint if c.isalnum()).upper()
    return ("MRN" + digits)[:22]


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
