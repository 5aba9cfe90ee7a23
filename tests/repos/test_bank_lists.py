"""The v2 lists in SQL give the answers the in-memory filters gave: every filter, paging edges,
other kinds and other merchants left out, status kept in step with updates."""

from __future__ import annotations

from datetime import date
from typing import Any

import msgspec
import pytest

from emulator.bank.collections import repo as collections_repo
from emulator.bank.collections import repo_lists as collections_repo_lists
from emulator.bank.collections.rules import Collection
from emulator.bank.collections.rules_filters import matches
from emulator.bank.common.model import Creditor, Debtor
from emulator.bank.mandates import repo as mandates_repo
from emulator.bank.mandates import repo_lists as mandates_repo_lists
from emulator.bank.mandates.rules import Mandate
from emulator.core.merchants import service as merchants
from emulator.runtime.runtime import Runtime

STATES = ("PENDING", "COMPLETED", "UNPAID", "REJECTED", "DISPUTED")
SEQUENCES = ("FRST", "RCUR", None)
BULK = "00000000-0000-4000-8000-00000000b001"
# Instants either side of midnight in South Africa (UTC+2), and a bare date.
DATES = ("2026-01-19T21:59:59Z", "2026-01-19T22:00:00Z", "2026-01-20", None)


def _uuid(n: int) -> str:
    return f"00000000-0000-4000-8000-{n:012d}"


def _collection(n: int, kind: str) -> Collection:
    ultimate = (None, Creditor(accountNumber=None), Creditor(accountNumber=f"77{n % 2}"))[n % 3]
    return Collection(
        id=_uuid(n),
        type=kind,  # type: ignore[arg-type]
        status="PENDING",
        mandateId=_uuid(10_000 + n % 4),
        externalReference=f"C-{n}" if n % 5 else None,
        contractReference=None,
        abbreviatedName=None,
        amountCents=100 + n,
        collectionDate=DATES[n % 4],
        actionDate=f"2026-01-{10 + n % 7:02d}",
        serviceType=None,
        profileCode=f"P{n % 2}",
        debtor=Debtor(accountNumber="110000001", bank=("ABSA", "FNB", None)[n % 3]),
        creditor=Creditor(accountNumber=f"9{n % 3}", abbreviatedName=f"AB{n % 2}"),
        ultimateCreditor=ultimate,
        debitSequence=SEQUENCES[n % 3],
        mandateReferenceNumber=f"MRN{n % 3}" if n % 4 else None,
        sequenceNumber=1 + n % 3,
        bulkId=BULK if n % 6 == 0 else None,
        submissionDate=DATES[(n + 1) % 3] or "2026-01-21T10:00:00Z",
        createdAt="2026-01-05T00:00:00Z",
        updatedAt="2026-01-05T00:00:00Z",
    )


def _final(c: Collection, n: int) -> Collection:
    statement = f"S{n % 2}" if n % 7 == 0 else None
    return msgspec.structs.replace(c, status=STATES[n % 5], statementId=statement)


def _mandate(n: int, kind: str) -> Mandate:
    return Mandate(
        id=_uuid(20_000 + n),
        type=kind,  # type: ignore[arg-type]
        status="PENDING",
        externalReference=f"M-{n}" if n % 5 else None,
        contractReference=None,
        abbreviatedName=None,
        profileCode=f"P{n % 2}",
        debtor=Debtor(bank=("ABSA", "FNB", None)[n % 3]),
        creditor=Creditor(),
        frequency="ADHOC",
        entryClass="0021",
        bulkId=BULK if n % 6 == 0 else None,
        createdAt="2026-01-05T00:00:00Z",
        updatedAt="2026-01-05T00:00:00Z",
    )


def _mandate_matches(m: Mandate, filters: dict[str, Any]) -> bool:
    """The in-memory filter of GET /v2/mandate/eft before it moved into SQL."""
    values = {"bank": m.debtor.bank, "state": m.status}
    return all(values.get(k, getattr(m, k, None)) == v for k, v in filters.items())


@pytest.fixture
async def stored(runtime: Runtime) -> tuple[list[Collection], list[Mandate], str]:
    merchant = runtime.default_merchant.company_id
    other = (await merchants.create(runtime, "Other"))["company_id"]
    collections, mandates = [], []

    def fill(tx: Any) -> None:
        for n in range(60):
            kind = "DEBICHECK" if n % 10 else "EFT"
            owner = other if n == 33 else merchant
            c = _collection(n, kind)
            collections_repo.insert_collection(tx, owner, c)
            c = _final(c, n)
            collections_repo.update_collection(tx, c)
            if kind == "DEBICHECK" and owner == merchant:
                collections.append(c)
            m = _mandate(n, "EFT" if n % 10 else "DEBICHECK")
            mandates_repo.insert_mandate(tx, owner, m)
            m = msgspec.structs.replace(m, status=STATES[n % 5])
            mandates_repo.update_mandate(tx, m)
            if m.type == "EFT" and owner == merchant:
                mandates.append(m)

    await runtime.db.write(fill)
    return collections, mandates, merchant


COLLECTION_FILTERS: list[dict[str, Any]] = [
    {},
    {"state": "COMPLETED"},
    {"state": "DISPUTED", "profileCode": "P1"},
    {"mandateReferenceNumber": "MRN1"},
    {"profileCode": "P0"},
    {"externalReference": "C-12"},
    {"bank": "FNB"},
    {"collectionReference": _uuid(21)},
    {"creditorAccountNumber": "92"},
    {"ultimateCreditorAccountNumber": "771"},
    {"settlementId": "x"},
    {"reconReference": "x"},
    {"disputeReconReference": "x"},
    {"recourseSettlementId": BULK},
    {"creditorAbbreviatedName": "AB1"},
    {"debitSequence": "RCUR"},
    {"sequenceNumber": 2},
    {"bulkId": BULK},
    {"isStatementIdNull": True},
    {"isStatementIdNull": False},
    {"isSettlementIdNull": True},
    {"isSettlementIdNull": False},
    {"markedAsSettled": True},
    {"markedAsSettled": False, "debitSequence": "FRST"},
    {"isUltimateCreditorAccountNumberNull": True},
    {"isUltimateCreditorAccountNumberNull": False},
    {"collectionDate": date(2026, 1, 20)},
    {"collectionDateFrom": date(2026, 1, 20), "state": "PENDING"},
    {"collectionDateTo": date(2026, 1, 19)},
    {"submissionDate": date(2026, 1, 19)},
    {"submissionDateFrom": date(2026, 1, 20), "submissionDateTo": date(2026, 1, 20)},
    {"bankservSettlementDate": date(2026, 1, 12)},
    {"bankservSettlementDate": date(2026, 1, 13), "bank": "ABSA"},
]
PAGES = [(0, 100), (0, 1), (1, 1), (5, 7), (20, 1000), (49, 3), (50, 3), (1000, 10)]


@pytest.mark.parametrize("filters", COLLECTION_FILTERS, ids=lambda f: "&".join(map(str, f)))
async def test_collections_in_sql_match_the_in_memory_filters(runtime, stored, filters):
    collections, _, merchant = stored
    wanted = [c for c in collections if matches(c, filters)]
    for skip, take in PAGES:
        found = await runtime.db.read(
            lambda tx, s=skip, t=take: collections_repo_lists.collections(
                tx, merchant, "DEBICHECK", filters, s, t
            )
        )
        assert found == wanted[skip : skip + take], (skip, take)


async def test_the_fixture_covers_each_filter_with_some_matches(stored):
    """Guards the test above against comparing empty lists."""
    collections, mandates, _ = stored
    assert len(collections) == 53 and len(mandates) == 53
    trivial = ({}, {"isSettlementIdNull": True}, {"isSettlementIdNull": False})
    never = ("settlementId", "reconReference", "disputeReconReference", "recourseSettlementId")
    for filters in COLLECTION_FILTERS:
        if filters in trivial or set(filters) & set(never):
            continue
        count = sum(matches(c, filters) for c in collections)
        assert 0 < count < len(collections), filters


MANDATE_FILTERS: list[dict[str, Any]] = [
    {},
    {"state": "UNPAID"},
    {"externalReference": "M-7"},
    {"bank": "ABSA"},
    {"profileCode": "P1", "state": "PENDING"},
    {"bulkId": BULK},
]


@pytest.mark.parametrize("filters", MANDATE_FILTERS, ids=lambda f: "&".join(map(str, f)))
async def test_mandates_in_sql_match_the_in_memory_filters(runtime, stored, filters):
    _, mandates, merchant = stored
    wanted = [m for m in mandates if _mandate_matches(m, filters)]
    assert filters == {} or 0 < len(wanted) < len(mandates)
    for skip, take in PAGES:
        found = await runtime.db.read(
            lambda tx, s=skip, t=take: mandates_repo_lists.mandates(
                tx, merchant, "EFT", filters, s, t
            )
        )
        assert found == wanted[skip : skip + take], (skip, take)
