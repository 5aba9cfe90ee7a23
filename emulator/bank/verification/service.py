"""Account verification: CDV (check digits) and AVS-R (the bank's account holder check)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import msgspec

from emulator.bank.common.model import AccountType, Debtor, Digits, ascii_digits
from emulator.bank.verification import rules as cdv
from emulator.domain.errors import AccountVerificationFailed, BankBadRequest
from emulator.kernel.storage import Tx
from emulator.scenarios import points

if TYPE_CHECKING:
    from emulator.kernel.context import Context

AVS_KEYS = (
    "AccountExists",
    "AccountIsOpen",
    "AccountTypeMatches",
    "IdNumberMatches",
    "InitialsMatches",
    "FullNameMatches",
    "AccountAcceptsDebits",
    "AccountAcceptsCredits",
)


class ValidateInput(msgspec.Struct, kw_only=True):
    accountType: AccountType
    bank: cdv.Bank | None = None
    branchCode: Digits | None = None
    accountNumber: Digits | None = None


def check_digits(debtor: Debtor) -> None:
    """``validateAccount``: a debtor account failing CDV (for its ``bank`` when given, as
    /v2/accountverification/validate does) is a 400."""
    result = cdv.verify(debtor.accountNumber or "", debtor.branchCode or "", debtor.bank)
    if not result.valid:
        raise BankBadRequest(f"debtor: {result.reason}")


def verify(
    rt: Context, tx: Tx, merchant_id: str, debtor: Debtor
) -> AccountVerificationFailed | None:
    """``verifyAccount`` (AVS-R): a scenario's answer, else the account exists and matches
    when it passes CDV. A failure is the 400 whose Message holds the details keys; the caller
    raises it after its unit commits, so that a counted (``times``) scenario use is spent."""
    subject = {
        "accountNumber": debtor.accountNumber,
        "branchCode": debtor.branchCode,
        "accountType": debtor.accountType,
    }
    answer = rt.scenarios.decide(tx, points.ACCOUNT_VERIFICATION, merchant_id, subject)
    if answer is not None:
        valid, given = answer.valid, answer.details or {}
    else:
        valid = cdv.verify(debtor.accountNumber or "", debtor.branchCode or "", debtor.bank).valid
        given = {}
    if valid:
        return None
    return AccountVerificationFailed({key: given.get(key, "N") for key in AVS_KEYS})


async def validate(rt: Context, merchant_id: str, data: ValidateInput) -> dict[str, object]:
    """POST /v2/accountverification/validate: CDV of the given account (a scenario at
    ``account.verification`` may override the answer)."""
    account, branch = data.accountNumber or "", data.branchCode or ""
    for name, value in (("accountNumber", account), ("branchCode", branch)):
        if value and not ascii_digits(value):
            raise BankBadRequest(f"{name}: must be digits (0-9)")
    if not branch and data.bank is not None and data.bank in cdv.RULES:
        branch = cdv.RULES[data.bank].universal
    result = cdv.verify(account, branch, data.bank)
    subject = {"accountNumber": account, "branchCode": branch, "accountType": data.accountType}

    def unit(tx: Tx) -> bool:
        answer = rt.scenarios.decide(tx, points.ACCOUNT_VERIFICATION, merchant_id, subject)
        return result.valid if answer is None else answer.valid

    valid = await rt.db.write(unit)
    return {
        "isValid": valid,
        "accountNumber": account,
        "branchCode": branch,
        "bank": result.bank,
        "accountType": data.accountType,
        "message": None if valid else (result.reason or "account verification failed"),
    }
