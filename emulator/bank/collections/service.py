"""v2 collections: EFT (new mandate or from one), DebiCheck from a mandate, recreate as EFT,
outcomes on the clock, the control plane's settle, reads."""

from __future__ import annotations

from datetime import date
from typing import TYPE_CHECKING, Any

import msgspec

from emulator import resources
from emulator.bank.calendar import rules as cal
from emulator.bank.collections import jobs as outcomes
from emulator.bank.collections import repo as collections_repo
from emulator.bank.collections import repo_lists
from emulator.bank.collections.rules import (
    Collection,
    DebiCheckCollectionInput,
    EftCollectionInput,
    EftFromMandateInput,
    RecreateAsEftInput,
    debit_sequence,
    outcome_steps,
    representable,
)
from emulator.bank.common import model as rules
from emulator.bank.common import repo
from emulator.bank.common.service_checks import instant, profile
from emulator.bank.common.service_events import emit
from emulator.bank.mandates import repo as mandates_repo
from emulator.bank.mandates.rules import EftMandateInput, Mandate, check_collectable
from emulator.bank.mandates.service import new_eft_mandate
from emulator.bank.verification import service as verification
from emulator.domain.errors import AccountVerificationFailed, BankBadRequest, NotFound
from emulator.kernel.storage import Tx
from emulator.scenarios import points

if TYPE_CHECKING:
    from emulator.kernel.context import Context

MAX_TRACKING_DAYS = 10


def _build(
    rt: Context,
    mandate: Mandate,
    *,
    amount: int | None,
    when: str | None,
    service_type: str | None,
    reference: str | None,
    **extra: Any,
) -> Collection:
    amount = rules.require(amount, "amountCents")
    reference = rules.require_text(reference, "externalReference")
    collection_date, requested = instant(when, "collectionDate")
    now_us = rt.clock.now_us()
    action = cal.action_date(now_us, service_type or "ONEDAY", requested)
    check_collectable(mandate, action)
    moved = None
    if requested is not None:
        moved = cal.moved_because(now_us, service_type or "ONEDAY", requested, action)
    now = cal.iso_us(now_us)
    return Collection(
        id=rt.ids.uuid(),
        type=mandate.type,
        status="PENDING",
        mandateId=mandate.id,
        externalReference=reference,
        contractReference=mandate.contractReference,
        abbreviatedName=mandate.abbreviatedName,
        amountCents=amount,
        collectionDate=collection_date,
        actionDate=action.isoformat(),
        requestedActionDate=None if requested is None else requested.isoformat(),
        actionDateReason=moved,
        serviceType=service_type,
        profileCode=mandate.profileCode,
        debtor=mandate.debtor,
        creditor=mandate.creditor,
        submissionDate=now,
        createdAt=now,
        updatedAt=now,
        **extra,
    )


def _submit(rt: Context, tx: Tx, merchant_id: str, collection: Collection) -> Collection:
    """Save a new PENDING collection and plan its outcome: a scenario's, else the test
    accounts'. A step due now is applied before the request answers."""
    collections_repo.insert_collection(tx, merchant_id, collection)
    emit(rt, tx, merchant_id, "bank_collection", collection)
    now_us = rt.clock.now_us()
    processing = cal.processing_us(date.fromisoformat(collection.actionDate))
    subject = outcomes.subject_of(collection)
    answer = rt.scenarios.decide(tx, points.COLLECTION_OUTCOME, merchant_id, subject)
    account = collection.debtor.accountNumber or ""
    schedule = resources.unpaid_codes()
    steps = outcome_steps(schedule, answer, account, now_us, processing)
    return outcomes.plan_steps(rt, tx, merchant_id, collection, steps)


# -- creation ------------------------------------------------------------------------------


async def create_eft(rt: Context, merchant_id: str, data: EftCollectionInput) -> Collection:
    """POST /v2/collection/eft: its EFT mandate (rule 2 on the reference) and the collection."""
    rules.check_currency(data.currency)
    debtor = rules.require_account(data.debtor)
    rules.check_account_fields(data.ultimateCreditor, "ultimateCreditor")
    rules.require(data.amountCents, "amountCents")
    if data.validateAccount:
        verification.check_digits(debtor)

    def unit(tx: Tx) -> Collection | AccountVerificationFailed:
        p = profile(tx, merchant_id, data.profileCode)
        rules.check_offered(p, "EFT" + data.serviceType)
        if data.verifyAccount:
            refused = verification.verify(rt, tx, merchant_id, debtor)
            if refused is not None:
                return refused  # raised once committed: nothing made, a scenario use spent
        fields = {f: getattr(data, f) for f in EftMandateInput.__struct_fields__}
        mandate = new_eft_mandate(rt, tx, merchant_id, EftMandateInput(**fields), p)
        collection = _build(
            rt,
            mandate,
            amount=data.amountCents,
            when=data.collectionDate,
            service_type=data.serviceType,
            reference=data.externalReference,
            ultimateCreditor=data.ultimateCreditor,
        )
        return _submit(rt, tx, merchant_id, collection)

    done = await rt.db.write(unit)
    if isinstance(done, AccountVerificationFailed):
        raise done
    return done


async def eft_from_mandate(rt: Context, merchant_id: str, data: EftFromMandateInput) -> Collection:
    def unit(tx: Tx) -> Collection:
        mandate = _mandate(tx, merchant_id, data.mandateId, "EFT")
        if mandate.status != "ACTIVE":
            raise BankBadRequest(f"mandate is not active (state {mandate.status}{_why(mandate)})")
        rules.check_offered(profile(tx, merchant_id, mandate.profileCode), "EFT" + data.serviceType)
        collection = _build(
            rt,
            mandate,
            amount=data.amountCents,
            when=data.collectionDate,
            service_type=data.serviceType,
            reference=data.externalReference,
            sequenceNumber=collections_repo.collections_of_mandate(tx, mandate.id) + 1,
        )
        return _submit(rt, tx, merchant_id, collection)

    return await rt.db.write(unit)


def _why(mandate: Mandate) -> str:
    """A mandate an unpaid put out of force says which (a new mandate is needed)."""
    if mandate.status in ("INACTIVE", "SUSPENDED") and mandate.reason:
        return f": {mandate.reason}; a new mandate is needed"
    return ""


def _mandate(tx: Tx, merchant_id: str, mandate_id: str | None, kind: str) -> Mandate:
    found = mandates_repo.mandate(tx, rules.require_text(mandate_id, "mandateId"), merchant_id)
    if found is None or found[1].type != kind:
        raise BankBadRequest("mandate does not exist")
    return found[1]


async def debicheck_from_mandate(
    rt: Context, merchant_id: str, data: DebiCheckCollectionInput
) -> Collection:
    if data.trackingPeriod is not None and not 0 <= data.trackingPeriod <= MAX_TRACKING_DAYS:
        raise BankBadRequest("trackingPeriod must be between 0 and 10 days")

    def unit(tx: Tx) -> Collection:
        mandate = _mandate(tx, merchant_id, data.mandateId, "DEBICHECK")
        if data.trackingPeriod is not None and not mandate.trackingEnabled:
            raise BankBadRequest("trackingPeriod can only be set when the mandate has tracking")
        authorised = mandate.status == "AUTHENTICATED"
        if data.mandateReferenceNumber is not None:
            if not authorised:
                raise BankBadRequest(
                    "mandateReferenceNumber can only be given once the mandate is authorised"
                )
            if data.mandateReferenceNumber != mandate.mandateReferenceNumber:
                raise BankBadRequest("mandateReferenceNumber does not match the mandate")
        if not authorised:
            raise BankBadRequest(
                f"mandate is not authenticated (state {mandate.status}{_why(mandate)})"
            )
        amount, represented = data.amountCents, None
        if data.debitSequence == "RPRE":
            represented = representable(
                next(iter(collections_repo.latest_collections(tx, mandate.id, 1)), None)
            )
            amount = amount or represented.amountCents
        if amount is not None and amount > (mandate.maxAmountCents or 0):
            raise BankBadRequest("amountCents exceeds the mandate's maxAmountCents")
        count = collections_repo.collections_of_mandate(tx, mandate.id)
        creditor = mandate.creditor
        if data.overrideCreditorName:
            creditor = msgspec.structs.replace(creditor, name=data.overrideCreditorName)
        collection = _build(
            rt,
            msgspec.structs.replace(mandate, creditor=creditor),
            amount=amount,
            when=data.collectionDate,
            service_type=None,
            reference=data.externalReference,
            debitSequence=debit_sequence(mandate.debitSequence, data.debitSequence, count),
            trackingPeriod=data.trackingPeriod,
            mandateReferenceNumber=mandate.mandateReferenceNumber,
            sequenceNumber=count + 1,
            representedFromId=None if represented is None else represented.id,
        )
        return _submit(rt, tx, merchant_id, collection)

    return await rt.db.write(unit)


async def recreate_as_eft(
    rt: Context, merchant_id: str, collection_id: str, data: RecreateAsEftInput
) -> Collection:
    """A failed (UNPAID or REJECTED) DebiCheck collection again, as an EFT collection on the
    same debtor, with its own EFT mandate."""

    def unit(tx: Tx) -> Collection:
        found = collections_repo.collection(tx, collection_id, merchant_id)
        if found is None or found[1].type != "DEBICHECK":
            raise BankBadRequest("collection does not exist")
        failed = found[1]
        if failed.status not in ("UNPAID", "REJECTED"):
            raise BankBadRequest(
                f"only a failed DebiCheck collection can be recreated (state {failed.status})"
            )
        if data.merchantProfileId is None:
            p = profile(tx, merchant_id, failed.profileCode)
        else:
            found_p = repo.profile_by_id(tx, merchant_id, data.merchantProfileId)
            if found_p is None:
                raise BankBadRequest("merchant profile does not exist")
            p = found_p
        rules.check_offered(p, "EFT" + data.serviceType)
        rules.require_text(data.externalReference, "externalReference")
        mandate_input = EftMandateInput(
            debtor=failed.debtor,
            profileCode=p.profileCode,
            externalReference=data.externalReference,
            abbreviatedName=failed.abbreviatedName,
            contractReference=failed.contractReference,
        )
        # Rule 3 names the collection, so it is looked at before the mandate's (the UNIQUE
        # index on collections still decides a race: this unit runs in one transaction).
        probe = tx.one(
            "SELECT 1 FROM bank_collections WHERE merchant_id = ? AND external_reference = ?",
            (merchant_id, data.externalReference),
        )
        if probe is not None:
            raise BankBadRequest("collection with this external reference already exists")
        mandate = new_eft_mandate(rt, tx, merchant_id, mandate_input, p)
        collection = _build(
            rt,
            mandate,
            amount=data.amountCents or failed.amountCents,
            when=data.collectionDate,
            service_type=data.serviceType,
            reference=data.externalReference,
            recreatedFromId=failed.id,
        )
        return _submit(rt, tx, merchant_id, collection)

    return await rt.db.write(unit)


# -- control plane and reads ---------------------------------------------------------------


async def get(rt: Context, merchant_id: str, kind: str, collection_id: str) -> Collection:
    found = await rt.db.read(lambda tx: collections_repo.collection(tx, collection_id, merchant_id))
    if found is None or found[1].type != kind:
        raise NotFound()
    return found[1]


async def list_debicheck(
    rt: Context, merchant_id: str, filters: dict[str, Any], skip: int, take: int
) -> list[Collection]:
    return await rt.db.read(
        lambda tx: repo_lists.collections(tx, merchant_id, "DEBICHECK", filters, skip, take)
    )
