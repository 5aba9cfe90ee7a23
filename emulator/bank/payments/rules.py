"""v2 EFT payments: money from the merchant's profile account to a creditor."""

from __future__ import annotations

from typing import Annotated

import msgspec

from emulator.bank.common.model import Cents, Creditor, Debtor, ServiceType, Text


class AlertOverride(msgspec.Struct, kw_only=True):
    """AlertOverrideDTO (inner structure not shown): who is told about the payment."""

    email: Text | None = None
    cellphone: Text | None = None
    message: Text | None = None


class Payment(msgspec.Struct, kw_only=True):
    id: str
    status: str
    externalReference: str | None
    contractReference: str
    abbreviatedName: str
    amountCents: int
    currency: str = "ZAR"
    paymentDate: str
    actionDate: str
    serviceType: str
    realTimeClearing: bool
    profileCode: str
    debtor: Debtor
    creditor: Creditor
    alertOverride: AlertOverride | None = None
    reason: str | None = None
    reasonCode: str | None = None
    bulkUploadId: str | None = None
    createdAt: str
    updatedAt: str


class EftPaymentInput(msgspec.Struct, kw_only=True):
    """POST /v2/payment/eft; the spec's required fields are checked by the service (so the
    message names the field the provider's way)."""

    debtor: Debtor | None = None
    creditor: Creditor | None = None
    amountCents: Cents | None = None
    paymentDate: Text | None = None
    profileCode: Text | None = None
    abbreviatedName: Annotated[str, msgspec.Meta(max_length=30)] | None = None
    contractReference: Text | None = None
    serviceType: ServiceType = "ONEDAY"
    alertOverride: AlertOverride | None = None
    realTimeClearing: bool = False
    externalReference: Text | None = None


REQUIRED = ("debtor", "creditor", "amountCents", "paymentDate", "profileCode")
REQUIRED_TEXT = ("abbreviatedName", "contractReference")
REAL_TIME_US = 10 * 1_000_000  # a real-time clearing payment lands 10 s after submission
