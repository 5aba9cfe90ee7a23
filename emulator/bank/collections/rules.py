"""v2 collections (EFT and DebiCheck): the object, its requests and how its outcome is planned."""

from __future__ import annotations

from typing import Annotated, Literal, Protocol

import msgspec

from emulator.bank.common.model import (
    Cents,
    Creditor,
    DebitSequence,
    Debtor,
    Frequency,
    ServiceType,
    Text,
)
from emulator.domain.errors import BankBadRequest
from emulator.domain.unpaids import Schedule, test_account_code

Status = Literal["PENDING", "COMPLETED", "UNPAID", "REJECTED", "DISPUTED"]


class Attempt(msgspec.Struct, kw_only=True):
    """One presentation of a tracked DebiCheck collection to the debtor's bank."""

    attempt: int
    date: str
    status: str
    reasonCode: str | None = None


class Collection(msgspec.Struct, kw_only=True):
    """A collection as the v2 interface returns it (and its events carry)."""

    id: str
    type: Literal["EFT", "DEBICHECK"]
    status: str
    mandateId: str
    externalReference: str | None
    contractReference: str | None
    abbreviatedName: str | None
    amountCents: int
    currency: str = "ZAR"
    collectionDate: str | None
    actionDate: str
    serviceType: str | None
    profileCode: str
    debtor: Debtor
    creditor: Creditor
    ultimateCreditor: Creditor | None = None
    debitSequence: str | None = None
    trackingPeriod: int | None = None
    mandateReferenceNumber: str | None = None
    sequenceNumber: int = 1
    statementId: str | None = None
    reason: str | None = None
    reasonCode: str | None = None
    requestedActionDate: str | None = None
    actionDateReason: str | None = None
    disputeWindowClosesOn: str | None = None
    attempts: list[Attempt] = []
    recreatedFromId: str | None = None
    representedFromId: str | None = None
    bulkId: str | None = None
    submissionDate: str
    createdAt: str
    updatedAt: str


class EftCollectionInput(msgspec.Struct, kw_only=True):
    """POST /v2/collection/eft (every field optional in the schema; the service says which
    it needs)."""

    debtor: Debtor | None = None
    creditor: Creditor | None = None
    ultimateCreditor: Creditor | None = None
    amountCents: Cents | None = None
    currency: Text | None = None
    collectionDate: Text | None = None
    serviceType: ServiceType = "ONEDAY"
    profileCode: Text | None = None
    externalReference: Text | None = None
    abbreviatedName: Annotated[str, msgspec.Meta(max_length=30)] | None = None
    contractReference: Text | None = None
    releaseDate: Text | None = None
    frequency: Frequency = "ADHOC"
    entryClass: Text | None = None
    verifyAccount: bool = False
    validateAccount: bool = False


class EftFromMandateInput(msgspec.Struct, kw_only=True):
    """POST /v2/collection/eft/from_mandate: a further collection on an EFT mandate."""

    mandateId: Text | None = None
    amountCents: Cents | None = None
    collectionDate: Text | None = None
    serviceType: ServiceType = "ONEDAY"
    externalReference: Text | None = None


class DebiCheckCollectionInput(msgspec.Struct, kw_only=True):
    mandateId: Text | None = None
    mandateReferenceNumber: Text | None = None
    amountCents: Cents | None = None
    collectionDate: Text | None = None
    debitSequence: DebitSequence | None = None
    trackingPeriod: int | None = None
    externalReference: Text | None = None
    overrideCreditorName: Annotated[str, msgspec.Meta(max_length=64)] | None = None


class RecreateAsEftInput(msgspec.Struct, kw_only=True):
    merchantProfileId: Annotated[int, msgspec.Meta(ge=0, le=2**31 - 1)] | None = None
    collectionDate: Text | None = None
    amountCents: Cents | None = None
    externalReference: Text | None = None
    serviceType: ServiceType = "ONEDAY"


def debit_sequence(mandate_sequence: str | None, given: str | None, count: int) -> str:
    """A DebiCheck collection's sequence, the mandate having ``count`` collections already:
    FRST only for the first one, otherwise the mandate's own sequence (the default). A FRST
    mandate describes its first collection: the ones after it are recurring (RCUR). RPRE
    (a re-presentment) is checked against the collection it re-presents (``representable``)."""
    if given == "RPRE":
        return "RPRE"
    own = mandate_sequence or "RCUR"
    if own == "OOFF" and count > 0:
        raise BankBadRequest("debitSequence: a once-off (OOFF) mandate allows one collection")
    if own == "FRST" and count > 0:
        own = "RCUR"
    sequence = given or own
    if sequence == "FRST" and count > 0:
        raise BankBadRequest("debitSequence: FRST is only for the first collection of a mandate")
    if sequence not in ("FRST", own):
        raise BankBadRequest(f"debitSequence must be FRST or the mandate's sequence ({own})")
    return sequence


REPRESENTABLE = ("02", "22")


def representable(last: Collection | None) -> Collection:
    """RPRE re-presents the mandate's latest collection, when it is UNPAID with 02 or 22."""
    if last is None or last.status != "UNPAID" or last.reasonCode not in REPRESENTABLE:
        found = "none" if last is None else f"{last.status} {last.reasonCode or ''}".strip()
        raise BankBadRequest(
            "debitSequence: RPRE re-presents the mandate's latest collection when it is UNPAID"
            f" with code 02 or 22 (the latest is {found})"
        )
    return last


# -- outcomes ------------------------------------------------------------------------------


class Step(msgspec.Struct, frozen=True):
    """One planned state change: ``status`` at ``due_us`` (if the state still allows it);
    ``code`` the unpaid code of an UNPAID or DISPUTED one; ``funds_on_day``: the re-try day a
    tracked DebiCheck collection unpaid with 02 is paid on."""

    status: str
    due_us: int
    reason: str | None = None
    code: str | None = None
    funds_on_day: int | None = None


TEST_DELAY_US = 40 * 1_000_000


DAY_US = 86_400 * 1_000_000


class BankAnswer(Protocol):
    """A scenario's answer for a collection or payment (``scenarios.points.BankOutcome``),
    as the plan reads it."""

    @property
    def status(self) -> str: ...
    @property
    def reason(self) -> str | None: ...
    @property
    def after_seconds(self) -> int | None: ...
    @property
    def reasonCode(self) -> str | None: ...
    @property
    def dispute_after_days(self) -> int | None: ...
    @property
    def funds_on_day(self) -> int | None: ...


def decided(answer: BankAnswer, due_us: int) -> list[Step]:
    """A scenario's outcome at ``due_us``: a DISPUTED one completes first (the money moves,
    then is disputed, ``dispute_after_days`` later), as the table allows no other way to
    DISPUTED."""
    status = answer.status
    if status == "DISPUTED":
        later = due_us + (answer.dispute_after_days or 0) * DAY_US
        return [Step("COMPLETED", due_us), Step(status, later, answer.reason, answer.reasonCode)]
    return [Step(status, due_us, answer.reason, answer.reasonCode, answer.funds_on_day)]


def plan(schedule: Schedule, account_number: str, now_us: int, processing_us: int) -> list[Step]:
    """The debtor test accounts of DESIGN.md; any other account completes on its action date
    (``processing_us``). A step due at ``now_us`` is applied by the request itself."""
    if account_number == "110000001":
        return [Step("COMPLETED", now_us + TEST_DELAY_US)]
    if account_number == "110000002":
        return [Step("UNPAID", now_us + TEST_DELAY_US, code="02")]
    code = test_account_code(schedule, account_number)
    if code is not None:
        return [Step("UNPAID", now_us + TEST_DELAY_US, code=code)]
    if account_number == "210000001":
        return [
            Step("COMPLETED", now_us + TEST_DELAY_US),
            Step("DISPUTED", now_us + 2 * TEST_DELAY_US, code="30"),
        ]
    if account_number == "910000001":
        return [Step("REJECTED", now_us, "instruction rejected by the bank")]
    if account_number == "910000002":
        return [Step("REJECTED", processing_us, "rejected in the batch")]
    return [Step("COMPLETED", processing_us)]


def outcome_steps(
    schedule: Schedule,
    answer: BankAnswer | None,
    account_number: str,
    now_us: int,
    processing_us: int,
) -> list[Step]:
    """A collection's or payment's steps: a scenario's answer (at ``after_seconds``, else on
    the action date), or the test accounts' plan."""
    if answer is None:
        return plan(schedule, account_number, now_us, processing_us)
    after = answer.after_seconds
    return decided(answer, processing_us if after is None else now_us + after * 10**6)
