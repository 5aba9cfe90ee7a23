"""Merchants, brands, API keys, OAuth clients, access tokens and merchant profiles."""

from __future__ import annotations

from typing import Any

import msgspec

from emulator.core.merchants.model import Merchant, MerchantProfile, MerchantSeed, ProfileSeed
from emulator.kernel.clock import ClockState
from emulator.kernel.storage import Tx

_encode = msgspec.json.Encoder()
_decode_profile = msgspec.json.Decoder(MerchantProfile)
_decode_merchant = msgspec.json.Decoder(Merchant)


def insert(tx: Tx, seed: MerchantSeed, created_on: int) -> tuple[Merchant, list[MerchantProfile]]:
    merchant = Merchant(
        company_id=seed.company_id,
        name=seed.name,
        created_on=created_on,
        default_brand_id=seed.brands[0].id,
        bank_accounts=seed.bank_accounts,
    )
    tx.execute(
        "INSERT INTO merchants (id, name, created_us, data) VALUES (?, ?, ?, ?)",
        (seed.company_id, seed.name, created_on * 1_000_000, _encode.encode(merchant)),
    )
    tx.conn.executemany(
        "INSERT INTO brands (id, merchant_id, name) VALUES (?, ?, ?)",
        [(b.id, seed.company_id, b.name) for b in seed.brands],
    )
    tx.conn.executemany(
        "INSERT INTO api_keys (key, merchant_id, environment) VALUES (?, ?, ?)",
        [
            (seed.api_key, seed.company_id, "sandbox"),
            (seed.production_api_key, seed.company_id, "production"),
        ],
    )
    tx.execute(
        "INSERT INTO oauth_clients (client_id, number, merchant_id, secret) VALUES (?, ?, ?, ?)",
        (seed.client_id, seed.client_number, seed.company_id, seed.client_secret),
    )
    return merchant, insert_profiles(tx, seed.company_id, seed.client_number, seed.profiles)


def insert_profiles(
    tx: Tx, company_id: str, client_number: int, seeds: list[ProfileSeed]
) -> list[MerchantProfile]:
    """New profiles of the merchant, numbered on."""
    profiles: list[MerchantProfile] = []
    for p in seeds:
        cursor = tx.execute(
            "INSERT INTO merchant_profiles (merchant_id, profile_code, created_by_client, data)"
            " VALUES (?, ?, ?, '{}')",
            (company_id, p.profileCode, client_number),
        )
        profile_id = cursor.lastrowid
        assert profile_id is not None
        profile = MerchantProfile(
            id=profile_id, createdByClient=client_number, **msgspec.structs.asdict(p)
        )
        tx.execute(
            "UPDATE merchant_profiles SET data = ? WHERE id = ?",
            (_encode.encode(profile), profile_id),
        )
        profiles.append(profile)
    return profiles


def next_client_number(tx: Tx) -> int:
    row = tx.one("SELECT COALESCE(MAX(number), 1000) + 1 FROM oauth_clients")
    assert row is not None
    return int(row[0])


def get(tx: Tx, company_id: str) -> Merchant | None:
    row = tx.one("SELECT data FROM merchants WHERE id = ?", (company_id,))
    return _decode_merchant.decode(row[0]) if row is not None else None


def exists(tx: Tx, company_id: str) -> bool:
    return tx.one("SELECT 1 FROM merchants WHERE id = ?", (company_id,)) is not None


def set_bank_accounts(tx: Tx, company_id: str, merchant: Merchant) -> None:
    """Store the merchant's bank accounts (its other fields are as they were)."""
    tx.execute("UPDATE merchants SET data = ? WHERE id = ?", (_encode.encode(merchant), company_id))


def set_strict_requests(tx: Tx, company_id: str, strict: bool) -> Merchant | None:
    """Store the merchant's ``strict_requests``; None when there is no such merchant."""
    found = get(tx, company_id)
    if found is None:
        return None
    merchant = msgspec.structs.replace(found, strict_requests=strict)
    tx.execute("UPDATE merchants SET data = ? WHERE id = ?", (_encode.encode(merchant), company_id))
    return merchant


def all_merchants(tx: Tx) -> list[Merchant]:
    return [
        _decode_merchant.decode(r[0]) for r in tx.all("SELECT data FROM merchants ORDER BY rowid")
    ]


def brand_ids(tx: Tx, company_id: str) -> list[str]:
    return [
        r[0]
        for r in tx.all("SELECT id FROM brands WHERE merchant_id = ? ORDER BY rowid", (company_id,))
    ]


def api_key(tx: Tx, key: str) -> tuple[str, str] | None:
    """(merchant_id, environment) of an API key."""
    row = tx.one("SELECT merchant_id, environment FROM api_keys WHERE key = ?", (key,))
    return (row[0], row[1]) if row is not None else None


def api_keys(tx: Tx, company_id: str) -> dict[str, str]:
    rows = tx.all("SELECT environment, key FROM api_keys WHERE merchant_id = ?", (company_id,))
    return {r[0]: r[1] for r in rows}


def oauth_client(tx: Tx, client_id: str) -> tuple[str, str, int] | None:
    """(merchant_id, secret, number) of an OAuth client."""
    row = tx.one(
        "SELECT merchant_id, secret, number FROM oauth_clients WHERE client_id = ?", (client_id,)
    )
    return (row[0], row[1], row[2]) if row is not None else None


def oauth_clients(tx: Tx, company_id: str) -> list[tuple[str, str, int]]:
    rows = tx.all(
        "SELECT client_id, secret, number FROM oauth_clients WHERE merchant_id = ? ORDER BY number",
        (company_id,),
    )
    return [(r[0], r[1], r[2]) for r in rows]


def insert_token(tx: Tx, token: str, client_id: str, merchant_id: str, expires_us: int) -> None:
    tx.execute(
        "INSERT INTO access_tokens (token, client_id, merchant_id, expires_us) VALUES (?, ?, ?, ?)",
        (token, client_id, merchant_id, expires_us),
    )


def token(tx: Tx, value: str) -> tuple[str, str, int] | None:
    """(merchant_id, client_id, expires_us) of an access token."""
    row = tx.one(
        "SELECT merchant_id, client_id, expires_us FROM access_tokens WHERE token = ?", (value,)
    )
    return (row[0], row[1], row[2]) if row is not None else None


def delete_token(tx: Tx, value: str) -> None:
    tx.execute("DELETE FROM access_tokens WHERE token = ?", (value,))


def profiles(
    tx: Tx, company_id: str, filters: dict[str, Any], skip: int, take: int
) -> list[MerchantProfile]:
    """The merchant's profiles matching every filter given, in id order."""
    rows = tx.all(
        "SELECT data FROM merchant_profiles WHERE merchant_id = ? ORDER BY id", (company_id,)
    )
    found = [_decode_profile.decode(r[0]) for r in rows]
    matching = [p for p in found if _matches(p, filters)]
    return matching[skip : skip + take]


def _matches(profile: MerchantProfile, filters: dict[str, Any]) -> bool:
    for name, wanted in filters.items():
        if name == "creditorProfileId":
            if profile.id != wanted:
                return False
        elif name in ("instrument", "instruments"):
            if not set(wanted) <= set(profile.instruments):
                return False
        elif getattr(profile, name) != wanted:
            return False
    return True


# The tables whose objects a page or a control-plane action names by id, each with its owner.
OWNED = frozenset(
    {
        "purchases",
        "payouts",
        "company_statements",
        "bank_mandates",
        "bank_collections",
        "bank_payments",
    }
)


def owner(tx: Tx, table: str, object_id: str) -> str | None:
    """The merchant that owns the object, None when there is no such object."""
    if table not in OWNED:
        raise ValueError(f"not a table of owned objects: {table!r}")
    row = tx.one(f'SELECT merchant_id FROM "{table}" WHERE id = ?', (object_id,))
    return None if row is None else str(row[0])


def own_clocks(tx: Tx) -> list[tuple[str, ClockState]]:
    """Every merchant that owns its clock, with that clock's stored state."""
    rows = tx.all("SELECT merchant_id, mode, frozen_at_us, offset_us FROM merchant_clocks")
    return [(row[0], msgspec.convert(dict(row), ClockState)) for row in rows]


def save_own_clock(tx: Tx, merchant_id: str, state: ClockState) -> None:
    tx.execute(
        "INSERT INTO merchant_clocks (merchant_id, mode, frozen_at_us, offset_us)"
        " VALUES (?, ?, ?, ?) ON CONFLICT (merchant_id) DO UPDATE SET mode = excluded.mode,"
        " frozen_at_us = excluded.frozen_at_us, offset_us = excluded.offset_us",
        (merchant_id, state.mode, state.frozen_at_us, state.offset_us),
    )
