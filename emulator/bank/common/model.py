"""Shapes shared by the v2 resources: accounts, enumerations, input limits, state machines.

The spec leaves Debtor and Creditor "not shown"; ours carry what a South African debit order
needs (account, branch, type, holder) and the AVS-R checks read (id number, initials).
"""

from __future__ import annotations

from typing import Annotated, Literal, TypeVar

import msgspec

from emulator.core.merchants.model import MerchantProfile
from emulator.domain.errors import BankBadRequest

Text = Annotated[str, msgspec.Meta(max_length=128)]
Name = Annotated[str, msgspec.Meta(max_length=64)]
Digits = Annotated[str, msgspec.Meta(max_length=20)]
Cents = Annotated[int, msgspec.Meta(ge=1, le=10**15)]

ServiceType = Literal["ONEDAY", "TWODAY", "SAMEDAY"]
Frequency = Literal[
    "MONTHLY", "WEEKLY", "FORTNIGHTLY", "QUARTERLY", "BIANNUALLY", "ADHOC", "YEARLY"
]
DebitSequence = Literal["FRST", "OOFF", "RCUR", "RPRE"]
AuthenticationType = Literal["REALTIME", "DELAYED", "BATCH"]
AdjustmentCategory = Literal["NEVER", "QUARTERLY", "BIANNUALLY", "ANNUALLY"]
AccountType = Literal["CURRENT", "SAVINGS", "TRANSMISSION", "BOND", "SUBSCRIPTION_SHARE"]

ENTRY_CLASSES = ("21", "22", "23", "26", "28", "31", "32", "33", "34", "35", "36", "37", "41", "42")

# Provider limit (FIDELITY.md): a payment at or above R5,000,000 is refused.
PAYMENT_LIMIT_CENTS = 500_000_000


class Debtor(msgspec.Struct, kw_only=True):
    accountNumber: Digits | None = None
    branchCode: Digits | None = None
    accountType: AccountType = "CURRENT"
    name: Name | None = None
    bank: Text | None = None
    idNumber: Digits | None = None
    initials: Annotated[str, msgspec.Meta(max_length=10)] | None = None
    email: Text | None = None
    cellphone: Digits | None = None


class Creditor(msgspec.Struct, kw_only=True):
    accountNumber: Digits | None = None
    branchCode: Digits | None = None
    name: Name | None = None
    abbreviatedName: Text | None = None
    bank: Text | None = None


# -- state machines ------------------------------------------------------------------------

# Collections and payments: PENDING (submitted, waiting for its action date), COMPLETED (money
# moved), UNPAID (the debtor's bank returned it), REJECTED (refused by the bank or in the
# batch), DISPUTED (the debtor disputed a completed debit).
MONEY_TRANSITIONS: dict[str, frozenset[str]] = {
    "PENDING": frozenset({"COMPLETED", "UNPAID", "REJECTED"}),
    "COMPLETED": frozenset({"DISPUTED"}),
    "UNPAID": frozenset(),
    "REJECTED": frozenset(),
    "DISPUTED": frozenset(),
}

# Mandates. EFT: ACTIVE until its release date (EXPIRED) or cancelled. DebiCheck:
# PENDING_AUTHENTICATION (waiting for the debtor), AUTHENTICATED (collections allowed),
# REJECTED (debtor said no), EXPIRED (no answer in the window, or its release date reached),
# CANCELLED. Both kinds: SUSPENDED (three consecutive unpaids), INACTIVE (an unpaid or dispute
# whose code ends the mandate: it takes no more collections).
MANDATE_TRANSITIONS: dict[str, frozenset[str]] = {
    "ACTIVE": frozenset({"EXPIRED", "CANCELLED", "SUSPENDED", "INACTIVE"}),
    "PENDING_AUTHENTICATION": frozenset({"AUTHENTICATED", "REJECTED", "EXPIRED"}),
    "AUTHENTICATED": frozenset({"CANCELLED", "SUSPENDED", "EXPIRED", "INACTIVE"}),
    "REJECTED": frozenset({"PENDING_AUTHENTICATION"}),
    "EXPIRED": frozenset({"PENDING_AUTHENTICATION"}),
    "CANCELLED": frozenset(),
    "SUSPENDED": frozenset({"AUTHENTICATED", "CANCELLED", "EXPIRED", "INACTIVE"}),
    "INACTIVE": frozenset(),
}


class InvalidTransition(BankBadRequest):
    """A state change the resource's table does not allow."""

    def __init__(self, kind: str, current: str, target: str) -> None:
        super().__init__(f"{kind} in state {current} cannot become {target}")
        self.current = current
        self.target = target


def check_transition(table: dict[str, frozenset[str]], kind: str, current: str, to: str) -> None:
    if to not in table.get(current, frozenset()):
        raise InvalidTransition(kind, current, to)


Account = TypeVar("Account", Debtor, Creditor)
Given = TypeVar("Given")


def ascii_digits(value: str) -> bool:
    """Only 0-9: ``str.isdigit`` also accepts superscripts and other scripts' digits, which
    ``int`` then refuses."""
    return value.isascii() and value.isdigit()


# -- request checks shared by mandates, collections and payments ---------------------------


def require(value: Given | None, field: str) -> Given:
    """A field the v2 schema leaves optional that the request must still give."""
    if value is None:
        raise BankBadRequest(f"{field} is required")
    return value


def require_text(value: str | None, field: str) -> str:
    """A text field the request must give, not empty."""
    if not value:
        raise BankBadRequest(f"{field} is required")
    return value


def check_offered(profile: MerchantProfile, instrument: str, field: str = "serviceType") -> None:
    """The profile offers the instrument asked for (EFTONEDAY, EFTSAMEDAY, DEBICHECK...)."""
    if instrument not in profile.instruments:
        raise BankBadRequest(f"{field}: the profile does not offer {instrument}")


def require_account(debtor: Account | None, field: str = "debtor") -> Account:
    """An account of a debtor or creditor: digits 0-9, and a branch code of 6 of them."""
    if debtor is None:
        raise BankBadRequest(f"{field} is required")
    if not debtor.accountNumber or not ascii_digits(debtor.accountNumber):
        raise BankBadRequest(f"{field}.accountNumber is required and must be digits")
    if not debtor.branchCode or not is_branch_code(debtor.branchCode):
        raise BankBadRequest(f"{field}.branchCode is required and must be 6 digits")
    return debtor


def check_account_fields(account: Creditor | None, field: str) -> None:
    """An optional account (an ultimate creditor): what it gives must be well formed."""
    if account is None:
        return
    if account.accountNumber is not None and not ascii_digits(account.accountNumber):
        raise BankBadRequest(f"{field}.accountNumber must be digits")
    if account.branchCode is not None and not is_branch_code(account.branchCode):
        raise BankBadRequest(f"{field}.branchCode must be 6 digits")


def is_branch_code(value: str) -> bool:
    return len(value) == 6 and ascii_digits(value)


def check_currency(currency: str | None) -> None:
    if currency is not None and currency != "ZAR":
        raise BankBadRequest("currency: only ZAR is supported")


def check_entry_class(entry_class: str | None) -> None:
    if entry_class is not None and entry_class not in ENTRY_CLASSES:
        raise BankBadRequest(f"entryClass: '{entry_class}' is not a known entry class")
