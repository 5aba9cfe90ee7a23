"""Creating merchants: the seeded default one and fresh isolated ones."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import msgspec

from emulator.core.merchants import repo
from emulator.core.merchants import repo_deletion as merchant_deletion
from emulator.core.merchants.model import (
    STANDARD_BANK_BIC,
    BankAccount,
    Brand,
    MerchantProfile,
    MerchantSeed,
    ProfileSeed,
)
from emulator.domain.errors import ControlError
from emulator.kernel.clock import Clock, iso
from emulator.kernel.storage import Tx

if TYPE_CHECKING:
    from emulator.kernel.context import Context


async def seed_default(rt: Context) -> None:
    """Insert the fixtures' default merchant unless it is already there (one stored by an
    older version gets the fixtures' bank accounts)."""
    seed = rt.default_merchant

    def unit(tx: Tx) -> None:
        found = repo.get(tx, seed.company_id)
        if found is None:
            repo.insert(tx, seed, rt.clock.now_us() // 1_000_000)
        elif not found.bank_accounts and seed.bank_accounts:
            updated = msgspec.structs.replace(found, bank_accounts=seed.bank_accounts)
            repo.set_bank_accounts(tx, seed.company_id, updated)

    await rt.db.write(unit)


def fresh_seed(rt: Context, name: str | None, client_number: int) -> MerchantSeed:
    ids = rt.ids
    company_id = ids.uuid()
    short = company_id[:8].upper()
    brands = [Brand(id=ids.uuid(), name=f"Brand {short}")]
    api_key, production_api_key = "sk_test_" + ids.token(32), "sk_live_" + ids.token(32)
    client_id, client_secret = "client_" + ids.token(16), ids.token(40)
    profile = ProfileSeed(
        profileCode=ids.code("P", 9),
        abbreviatedName=f"TM{short}"[:10],
        name=name or f"Test Merchant {short} (Pty) Ltd",
        accountNumber="40" + ids.digits(8),
        branchCode="051001",
    )
    return MerchantSeed(
        company_id=company_id,
        name=name or f"Test Merchant {short}",
        brands=brands,
        api_key=api_key,
        production_api_key=production_api_key,
        client_id=client_id,
        client_secret=client_secret,
        client_number=client_number,
        profiles=[profile],
        # The gateway's issuer details list it: the account its profile collects into.
        bank_accounts=[
            BankAccount(bank_account=profile.accountNumber, bank_code=STANDARD_BANK_BIC)
        ],
    )


async def create(
    rt: Context, name: str | None = None, clock: Clock | None = None, strict: bool = False
) -> dict[str, Any]:
    """A new isolated merchant with its credentials, in one unit of work; with ``clock``, a
    merchant that owns that clock (else it follows the server clock); with ``strict``, one
    whose request bodies with unknown keys are refused."""

    def unit(tx: Tx) -> tuple[MerchantSeed, list[MerchantProfile]]:
        seed = fresh_seed(rt, name, repo.next_client_number(tx))
        created_us = (clock or rt.clock.server).now_us()
        _, profiles = repo.insert(tx, seed, created_us // 1_000_000)
        if strict:
            repo.set_strict_requests(tx, seed.company_id, True)
        if clock is not None:
            repo.save_own_clock(tx, seed.company_id, clock.state())
            rt.scheduler.timelines.adopt(seed.company_id, clock)  # a new merchant has no jobs
        return seed, profiles

    seed, profiles = await rt.db.write(unit)
    view = describe(seed, profiles)
    return {**view, "strict_requests": strict, "clock": clock_view(rt, seed.company_id)}


async def gone_under(rt: Context, company_id: str, exc: Exception) -> bool:
    """``exc`` is a write refused by a foreign key because the merchant is gone: deleted
    between its request's authentication and its commit."""
    if not isinstance(exc, sqlite3.IntegrityError):
        return False
    return await rt.db.read(lambda tx: repo.get(tx, company_id) is None)


async def strict_requests(rt: Context, company_id: str) -> bool:
    """Whether the merchant refuses request bodies with keys the platform ignores."""
    found = await rt.db.read(lambda tx: repo.get(tx, company_id))
    return found is not None and found.strict_requests


async def set_strict_requests(rt: Context, company_id: str, strict: bool) -> bool:
    """Set the merchant's ``strict_requests``; False when there is no such merchant."""
    found = await rt.db.write(lambda tx: repo.set_strict_requests(tx, company_id, strict))
    return found is not None


def _profile_summary(profiles: list[MerchantProfile]) -> list[dict[str, Any]]:
    return [
        {"profileCode": p.profileCode, "id": p.id, "createdByClient": p.createdByClient}
        for p in profiles
    ]


def describe(seed: MerchantSeed, profiles: list[MerchantProfile]) -> dict[str, Any]:
    return {
        "company_id": seed.company_id,
        "name": seed.name,
        "brand_id": seed.brands[0].id,
        "brand_ids": [brand.id for brand in seed.brands],
        "api_key": seed.api_key,
        "production_api_key": seed.production_api_key,
        "client_id": seed.client_id,
        "client_secret": seed.client_secret,
        "profiles": _profile_summary(profiles),
    }


async def list_all(rt: Context) -> list[dict[str, Any]]:
    """Every merchant with its credentials (the control plane's GET /merchants)."""

    def unit(tx: Tx) -> list[dict[str, Any]]:
        out = []
        for m in repo.all_merchants(tx):
            keys = repo.api_keys(tx, m.company_id)
            clients = repo.oauth_clients(tx, m.company_id)
            profiles = repo.profiles(tx, m.company_id, {}, 0, 1_000_000)
            brand_ids = repo.brand_ids(tx, m.company_id)
            out.append(  # the same fields as describe() (POST /_emulator/merchants)
                {
                    "company_id": m.company_id,
                    "name": m.name,
                    "brand_id": brand_ids[0] if brand_ids else None,
                    "brand_ids": brand_ids,
                    "api_key": keys.get("sandbox"),
                    "production_api_key": keys.get("production"),
                    "client_id": clients[0][0] if clients else None,
                    "client_secret": clients[0][1] if clients else None,
                    "profiles": _profile_summary(profiles),
                    "strict_requests": m.strict_requests,
                }
            )
        return out

    found = await rt.db.read(unit)
    for merchant in found:
        merchant["clock"] = clock_view(rt, merchant["company_id"])
    return found


def clock_view(rt: Context, company_id: str) -> dict[str, Any]:
    """The clock a merchant's time is read from: ``own`` once it has its own."""
    clock = rt.clock.of(company_id)
    return {"now": iso(clock.now()), "mode": clock.mode, "own": clock is not rt.clock.server}


async def delete(rt: Context, company_id: str, forget: Callable[[], None]) -> dict[str, Any]:
    """Delete a merchant and everything of it in one unit of work: its objects, webhooks,
    jobs, deliveries, journal entries, own clock, scenarios active for it, profiles and
    credentials. Nothing runs on its clock meanwhile (what is under way finishes first).
    As it commits, before any other request is served, its own clock's timeline goes and
    ``forget`` drops the credentials the runtime has cached. The default merchant stays: a
    reset puts it back as it was."""
    if company_id == rt.default_merchant.company_id:
        raise ControlError(
            409,
            "default_merchant",
            "the default merchant cannot be deleted (POST /_emulator/reset puts it back as"
            " the fixtures have it)",
        )

    def gone() -> None:
        rt.scheduler.timelines.pop(company_id, None)  # its own clock, if it had one
        rt.clock.own.pop(company_id, None)
        forget()

    def unit(tx: Tx) -> dict[str, int] | None:
        if repo.get(tx, company_id) is None:
            return None
        tx.after_commit(gone)
        return merchant_deletion.delete(tx, company_id)

    # Only its clock holds still: pausing every clock made each other merchant's reads that
    # run what is due (a verify's deliveries) skip it until the delete was done.
    async with rt.scheduler.paused(rt.scheduler.timeline_of(company_id)):
        await rt.journal.flush()  # its buffered entries are deleted with the rest
        # a transaction of its own: its deferred foreign keys are checked at its commit
        removed = await rt.db.write(unit, alone=True)
        if removed is None:
            raise ControlError(
                404, "merchant_not_found", f"no merchant with company_id {company_id!r}"
            )
        await rt.scenarios.load()  # without those active for it
        await rt.scheduler.refresh()
    return {"deleted": True, "company_id": company_id, "removed": removed}


async def owner_of(rt: Context, table: str, object_id: str) -> str | None:
    """The merchant that owns the object of ``table`` (one of ``repo.OWNED``), None when there
    is no such object; read at this point of the database, outside any unit of work."""
    return await rt.db.read_point(lambda tx: repo.owner(tx, table, object_id))
