"""v2 mandates: EFT and DebiCheck; the debtor's authentication window; reset; reads."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import msgspec

from emulator.bank.calendar.rules import iso_to_us, iso_us
from emulator.bank.common import model as rules
from emulator.bank.common.model import MANDATE_TRANSITIONS, Creditor, InvalidTransition
from emulator.bank.common.service_checks import instant, profile
from emulator.bank.common.service_events import emit, now_iso
from emulator.bank.mandates import repo as mandates_repo
from emulator.bank.mandates import repo_lists
from emulator.bank.mandates.rules import (
    DEFAULT_WINDOWS,
    DebiCheckMandateInput,
    EftMandateInput,
    Mandate,
    authentication_deadline_us,
    check_parties,
    check_release,
    reference_number,
)
from emulator.core.merchants.model import MerchantProfile
from emulator.delivery import holds
from emulator.domain.errors import BankBadRequest, ControlError, NotFound
from emulator.kernel.jobs import Job
from emulator.kernel.storage import Tx
from emulator.scenarios import points

if TYPE_CHECKING:
    from emulator.kernel.context import Context, JobHandler

EXPIRY_JOB = "bank.mandate_window"
DECISION_JOB = "bank.mandate_decision"
RELEASE_JOB = "bank.mandate_release"


def creditor_of(p: MerchantProfile, given: Creditor | None) -> Creditor:
    """The creditor is the profile's account unless the request names one."""
    if given is not None and given.accountNumber:
        return rules.require_account(given, "creditor")
    return Creditor(
        accountNumber=p.accountNumber,
        branchCode=p.branchCode,
        name=p.name,
        abbreviatedName=p.abbreviatedName,
        bank=p.bank,
    )


def new_eft_mandate(
    rt: Context, tx: Tx, merchant_id: str, data: EftMandateInput, p: MerchantProfile
) -> Mandate:
    """Make and save an ACTIVE EFT mandate (also the first step of an EFT collection)."""
    debtor = check_parties(data)
    rules.check_entry_class(data.entryClass)
    release, _ = instant(data.releaseDate, "releaseDate")
    now = now_iso(rt)
    mandate = Mandate(
        id=rt.ids.uuid(),
        type="EFT",
        status="ACTIVE",
        externalReference=data.externalReference,
        contractReference=data.contractReference,
        abbreviatedName=data.abbreviatedName or p.abbreviatedName,
        profileCode=p.profileCode,
        debtor=debtor,
        creditor=creditor_of(p, data.creditor),
        frequency=data.frequency,
        entryClass=data.entryClass or p.entryClass,
        releaseDate=release,
        createdAt=now,
        updatedAt=now,
    )
    check_release(release, rt.clock.now_us())
    mandates_repo.insert_mandate(tx, merchant_id, mandate)
    emit(rt, tx, merchant_id, "bank_mandate", mandate)
    _schedule_release(rt, tx, merchant_id, mandate)
    return mandate


def _schedule_release(rt: Context, tx: Tx, merchant_id: str, mandate: Mandate) -> None:
    """EFT and DebiCheck mandates alike are EXPIRED at their releaseDate."""
    if mandate.releaseDate is not None:
        due = iso_to_us(mandate.releaseDate)
        rt.scheduler.schedule(tx, RELEASE_JOB, due, {"id": mandate.id}, merchant_id)


async def create_eft(rt: Context, merchant_id: str, data: EftMandateInput) -> Mandate:
    def unit(tx: Tx) -> Mandate:
        return new_eft_mandate(
            rt, tx, merchant_id, data, profile(tx, merchant_id, data.profileCode)
        )

    return await rt.db.write(unit)


def _open_window(rt: Context, tx: Tx, merchant_id: str, mandate: Mandate) -> Mandate:
    """Start the debtor's window: a scenario answer, else wait (expiry at the window's end)."""
    now_us = rt.clock.now_us()
    windows = mandates_repo.windows(tx, merchant_id) or DEFAULT_WINDOWS
    deadline = authentication_deadline_us(mandate.authenticationType or "REALTIME", now_us, windows)
    mandate = msgspec.structs.replace(mandate, authenticationExpiresAt=iso_us(deadline))
    answer = rt.scenarios.decide(tx, points.MANDATE_AUTHORISATION, merchant_id, _subject(mandate))
    window = {"id": mandate.id, "deadline": mandate.authenticationExpiresAt}
    rt.scheduler.schedule(tx, EXPIRY_JOB, deadline, window, merchant_id)
    if answer is not None:
        due = now_us + (answer.after_seconds or 0) * 1_000_000
        decision = {**window, "status": answer.status, "reason": answer.reason}
        rt.scheduler.schedule(tx, DECISION_JOB, due, decision, merchant_id)
    return mandate


async def create_debicheck(rt: Context, merchant_id: str, data: DebiCheckMandateInput) -> Mandate:
    debtor = check_parties(data)
    max_amount = rules.require(data.maxAmountCents, "maxAmountCents")
    if (data.installmentAmountCents or 0) > max_amount:
        raise BankBadRequest("installmentAmountCents must not exceed maxAmountCents")
    rules.check_entry_class(data.entryClass)
    first, _ = instant(data.firstCollectionDate, "firstCollectionDate")
    release, _ = instant(data.releaseDate, "releaseDate")
    check_release(release, rt.clock.now_us(), first)

    def unit(tx: Tx) -> Mandate:
        p = profile(tx, merchant_id, data.profileCode)
        rules.check_offered(p, "DEBICHECK", "profileCode")
        now = now_iso(rt)
        mandate = Mandate(
            id=rt.ids.uuid(),
            type="DEBICHECK",
            status="PENDING_AUTHENTICATION",
            externalReference=data.externalReference,
            contractReference=data.contractReference,
            abbreviatedName=data.abbreviatedName or p.abbreviatedName,
            profileCode=p.profileCode,
            debtor=debtor,
            creditor=creditor_of(p, data.creditor),
            frequency=data.frequency,
            entryClass=data.entryClass or p.entryClass,
            releaseDate=release,
            authenticationType=data.authenticationType,
            maxAmountCents=data.maxAmountCents,
            installmentAmountCents=data.installmentAmountCents,
            debitSequence=data.debitSequence,
            adjustmentCategory=data.adjustmentCategory,
            trackingEnabled=data.trackingEnabled,
            firstCollectionDate=first,
            createdAt=now,
            updatedAt=now,
        )
        mandate = _open_window(rt, tx, merchant_id, mandate)
        mandates_repo.insert_mandate(tx, merchant_id, mandate)
        emit(rt, tx, merchant_id, "bank_mandate", mandate)
        _schedule_release(rt, tx, merchant_id, mandate)
        return mandate

    return await rt.db.write(unit)


def change_status(
    rt: Context, tx: Tx, merchant_id: str, mandate: Mandate, status: str, reason: str | None
) -> Mandate:
    rules.check_transition(MANDATE_TRANSITIONS, "mandate", mandate.status, status)
    changes: dict[str, Any] = {"status": status, "reason": reason, "updatedAt": now_iso(rt)}
    if status == "AUTHENTICATED":
        changes["mandateReferenceNumber"] = reference_number(mandate.id)
    updated = msgspec.structs.replace(mandate, **changes)
    mandates_repo.update_mandate(tx, updated)
    emit(rt, tx, merchant_id, "bank_mandate", updated)
    return updated


async def reset(rt: Context, merchant_id: str, mandate_id: str) -> Mandate:
    """A REJECTED or EXPIRED DebiCheck mandate goes back to PENDING_AUTHENTICATION, with a new
    window."""

    def unit(tx: Tx) -> Mandate:
        found = mandates_repo.mandate(tx, mandate_id, merchant_id)
        if found is None or found[1].type != "DEBICHECK":
            raise BankBadRequest("mandate does not exist")
        mandate = found[1]
        if mandate.status not in ("REJECTED", "EXPIRED"):
            raise BankBadRequest(f"mandate in state {mandate.status} cannot be reset")
        if mandate.releaseDate is not None and iso_to_us(mandate.releaseDate) <= rt.clock.now_us():
            raise BankBadRequest("mandate cannot be reset: its releaseDate has passed")
        mandate = msgspec.structs.replace(mandate, reason=None)
        mandate = _open_window(rt, tx, merchant_id, mandate)
        return change_status(rt, tx, merchant_id, mandate, "PENDING_AUTHENTICATION", None)

    return await rt.db.write(unit)


async def decide_now(rt: Context, mandate_id: str, status: str) -> Mandate:
    """Control plane: the debtor's bank answers now (AUTHENTICATED or REJECTED)."""

    def unit(tx: Tx) -> Mandate:
        found = mandates_repo.mandate(tx, mandate_id)
        if found is None or found[1].type != "DEBICHECK":
            raise ControlError(404, "not_found", "no DebiCheck mandate with this id")
        reason = "rejected by the debtor" if status == "REJECTED" else None
        mandate = found[1]
        answer = {"status": status, "reason": reason}
        window = {"id": mandate.id, "deadline": mandate.authenticationExpiresAt, **answer}
        point = points.MANDATE_AUTHORISATION
        if mandate.status == "PENDING_AUTHENTICATION" and holds.capture_decision(
            rt, tx, point, found[0], _subject(mandate), answer, (DECISION_JOB, window)
        ):
            return mandate  # a hold took the debtor's answer: carried out once released
        try:
            return change_status(rt, tx, found[0], found[1], status, reason)
        except InvalidTransition as exc:
            raise ControlError(409, "invalid_state", exc.detail) from exc

    return await rt.db.write(unit)


def _pending_in_window(tx: Tx, job: Job) -> tuple[str, Mandate] | None:
    found = mandates_repo.mandate(tx, str(job.payload["id"]))
    if found is None or found[1].status != "PENDING_AUTHENTICATION":
        return None
    if found[1].authenticationExpiresAt != job.payload["deadline"]:
        return None  # a window that a reset has replaced
    return found


def window_ends(rt: Context, tx: Tx, job: Job) -> None:
    found = _pending_in_window(tx, job)
    if found is not None:
        change_status(rt, tx, found[0], found[1], "EXPIRED", "not authenticated in time")


def _subject(mandate: Mandate) -> dict[str, Any]:
    """A mandate as ``mandate.authorisation`` matches it (scenarios and holds)."""
    return {
        "authenticationType": mandate.authenticationType,
        "accountNumber": mandate.debtor.accountNumber,
        "branchCode": mandate.debtor.branchCode,
        "externalReference": mandate.externalReference,
        "maxAmountCents": mandate.maxAmountCents,
        "profileCode": mandate.profileCode,
    }


def scenario_decision(rt: Context, tx: Tx, job: Job) -> None:
    found = _pending_in_window(tx, job)
    if found is not None:
        default = {"status": job.payload["status"], "reason": job.payload.get("reason")}
        resume = (DECISION_JOB, dict(job.payload))
        point = points.MANDATE_AUTHORISATION
        if holds.capture_decision(rt, tx, point, found[0], _subject(found[1]), default, resume):
            return  # a hold took the debtor's answer: carried out once released
        status = str(job.payload["status"])
        reason = job.payload.get("reason")
        change_status(rt, tx, found[0], found[1], status, None if reason is None else str(reason))


def released(rt: Context, tx: Tx, job: Job) -> None:
    """The release date: a mandate still in force (or waiting for the debtor) is EXPIRED."""
    found = mandates_repo.mandate(tx, str(job.payload["id"]))
    if found is not None and "EXPIRED" in MANDATE_TRANSITIONS[found[1].status]:
        change_status(rt, tx, found[0], found[1], "EXPIRED", "release date reached")


JOBS: dict[str, JobHandler] = {
    EXPIRY_JOB: window_ends,
    DECISION_JOB: scenario_decision,
    RELEASE_JOB: released,
}


# -- reads ---------------------------------------------------------------------------------


async def get(rt: Context, merchant_id: str, kind: str, mandate_id: str) -> Mandate:
    found = await rt.db.read(lambda tx: mandates_repo.mandate(tx, mandate_id, merchant_id))
    if found is None or found[1].type != kind:
        raise NotFound()
    return found[1]


async def list_eft(
    rt: Context, merchant_id: str, filters: dict[str, Any], skip: int, take: int
) -> list[Mandate]:
    return await rt.db.read(
        lambda tx: repo_lists.mandates(tx, merchant_id, "EFT", filters, skip, take)
    )
