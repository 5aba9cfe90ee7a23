"""Tenancy: merchants (companies), their brands, keys, OAuth clients and merchant profiles."""

from __future__ import annotations

import unicodedata

import msgspec

# Instruments a merchant profile can offer on the bank interface.
INSTRUMENTS = ("EFTONEDAY", "EFTTWODAY", "EFTSAMEDAY", "DEBICHECK")


def control_character(text: str) -> str | None:
    """The first control character in a name (C0 and C1 controls, DEL: LF, CR, NUL, ESC...),
    or None. Names are shown in the console and printed by the CLI: none may hold one, as no
    snapshot, sink or scenario name can."""
    return next((ch for ch in text if unicodedata.category(ch) == "Cc"), None)


# An OAuth access token lives this long on the emulator clock (spec: Limits).
ACCESS_TOKEN_SECONDS = 86_400


class BankAccount(msgspec.Struct, frozen=True):
    """OpenAPI ``BankAccount``: a merchant's account, as ``issuer_details.bank_accounts`` of
    its purchases and payouts lists it."""

    bank_account: str  # the account number (e.g. an IBAN)
    bank_code: str = ""  # the bank's SWIFT/BIC code


# SWIFT/BIC of the bank of a fresh merchant's account (Standard Bank, branch 051001).
STANDARD_BANK_BIC = "SBZAZAJJ"


class Brand(msgspec.Struct, frozen=True):
    id: str
    name: str


class MerchantProfile(msgspec.Struct, frozen=True, kw_only=True):
    """A creditor profile of the bank interface, as GET /v2/merchantprofile returns it."""

    id: int
    profileCode: str
    abbreviatedName: str
    name: str
    accountNumber: str
    branchCode: str
    bank: str = "STANDARDBANK_SA"
    currency: str = "ZAR"
    instruments: list[str] = msgspec.field(default_factory=lambda: list(INSTRUMENTS))
    entryClass: str = "35"
    createdByClient: int
    contactName: str = ""
    contactEmail: str = ""
    contactPhone: str = ""


class ProfileSeed(msgspec.Struct, frozen=True, kw_only=True):
    """What a profile is made from (fixtures or defaults for a fresh merchant)."""

    profileCode: str
    abbreviatedName: str
    name: str
    accountNumber: str
    branchCode: str
    bank: str = "STANDARDBANK_SA"
    instruments: list[str] = msgspec.field(default_factory=lambda: list(INSTRUMENTS))
    entryClass: str = "35"
    contactName: str = ""
    contactEmail: str = ""
    contactPhone: str = ""


class MerchantSeed(msgspec.Struct, frozen=True, kw_only=True):
    """Everything that makes a merchant; the default one comes from fixtures/."""

    company_id: str
    name: str
    brands: list[Brand]
    api_key: str
    production_api_key: str
    client_id: str
    client_secret: str
    client_number: int
    profiles: list[ProfileSeed]
    bank_accounts: list[BankAccount] = []


class Merchant(msgspec.Struct, frozen=True, kw_only=True):
    company_id: str
    name: str
    created_on: int
    default_brand_id: str
    bank_accounts: list[BankAccount] = []
    # Request bodies with keys the platform ignores are refused (400) for this merchant
    # (emulator/http/lint.py), as they are for every merchant under `serve --strict-requests`.
    strict_requests: bool = False
