"""Check-digit verification (CDV) of South African bank accounts: an approximation.

The real algorithm (published by the banks' clearing house to its members) is a weighted
modulus per branch-code range: the account number is padded to 11 digits, each digit is
multiplied by a weight (weights listed right to left, the first one for the last digit), a
fudge factor is added and the sum must divide by the modulus. The parameters below are OUR
OWN, written for the emulator (not the clearing house's table): they follow the same shape so
an integration exercises valid and invalid numbers, but a number valid here is not
necessarily valid at a real bank (docs/bank.md says so).

Exception rules: the sandbox's debtor test accounts (DESIGN.md) pass for every bank; banks of
the spec without a parameter set here are checked for branch code (not another bank's) and
length only. An account number of zeros only is refused everywhere (its weighted sum, 0, would
pass every modulus).
"""

from __future__ import annotations

from typing import Literal, get_args

import msgspec

from emulator.bank.common.model import ascii_digits

# The spec's CdvBank values.
Bank = Literal[
    "STANDARDBANK_SA", "STANDARDBANK_LESOTHO", "STANDARDBANK_NAMIBIA", "STANDARDBANK_SWAZILAND",
    "NEDBANK", "NEDBANK_LIMITED", "NEDBANK_BOND_ACCOUNTS", "NEDBANK_CORPORATE_SAVER",
    "NEDBANK_SWAZILAND", "NEDBANK_LESOTHO", "NEDBANK_PEOPLES_MORTGAGE_LIMITED",
    "NEDBANK_INCORPORATING_BANK", "NEDBANK_PEP_BANK", "NEDBANK_BOE", "NEDBANK_NAMIBIA", "FNB",
    "FNB_LOAN_ACCOUNTS", "ABSA_BANK_LIMITED", "MEEG_BANK", "CITIBANK", "SOCIETE_GENERALE",
    "GROBANK_LTD", "AFRICAN_BANK", "U_BANK", "JP_MORGAN_CHASE", "MERCANTILE_BANK", "POST_BANK",
    "BIDVEST_BANK", "CAPITEC_BANK", "WINDHOEK_BANK", "HBZ_BANK", "INVESTEC_BANK", "GRINDROD_BANK",
    "OLYMPUS_MOBILE", "HSBC", "VBS_MUTUAL_BANK", "FINBOND_MUTUAL_BANK", "FINBOND_NET1",
    "TYME_BANK", "DISCOVERY_BANK", "SASFIN_BANK", "BNP_PARIBAS", "HABIB_OVERSEAS_BANK",
    "PEOPLES_BANK", "STANDARD_CHARTERED_BANK", "ITHALA_BANK", "UNIBANK", "ALBARAKA_BANK",
    "STATE_BANK_OF_INDIA", "BANK_ZERO", "SOUTH_AFRICAN_RESERVE_BANK",
]  # fmt: skip

BANKS = frozenset(get_args(Bank))

SEQUENTIAL = (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11)
ALTERNATE = (1, 2, 1, 2, 1, 2, 1, 2, 1, 2, 1)
THREE_SEVEN = (1, 3, 7, 1, 3, 7, 1, 3, 7, 1, 3)

TEST_ACCOUNTS = frozenset({"110000001", "110000002", "210000001", "910000001", "910000002"})


class BankRule(msgspec.Struct, frozen=True):
    universal: str  # the universal branch code
    low: int  # branch-code range (inclusive)
    high: int
    lengths: tuple[int, ...]
    weights: tuple[int, ...] | None = None  # right to left; None: length check only
    modulus: int = 11
    fudge: int = 0


RULES: dict[str, BankRule] = {
    "STANDARDBANK_SA": BankRule("051001", 0, 99_999, (9, 10, 11), SEQUENTIAL, 11),
    "ABSA_BANK_LIMITED": BankRule("632005", 300_000, 349_999, (9, 10, 11), SEQUENTIAL, 11, 1),
    "FNB": BankRule("250655", 200_000, 289_999, (10, 11), ALTERNATE, 10),
    "NEDBANK": BankRule("198765", 100_000, 199_999, (10,), THREE_SEVEN, 10),
    "CAPITEC_BANK": BankRule("470010", 470_000, 470_999, (10,), ALTERNATE, 10, 3),
    "TYME_BANK": BankRule("678910", 678_000, 678_999, (10, 11), THREE_SEVEN, 10),
    "INVESTEC_BANK": BankRule("580105", 580_000, 589_999, (10, 11), SEQUENTIAL, 11),
    "AFRICAN_BANK": BankRule("430000", 430_000, 439_999, (10, 11), ALTERNATE, 10),
    "DISCOVERY_BANK": BankRule("679000", 679_000, 679_999, (10, 11), SEQUENTIAL, 11),
}
# ABSA's universal code 632005 sits outside its historic branch range: accepted as universal.

# The other banks of the spec's CdvBank list: length (7 to 11 digits) only, and a 6-digit
# branch code that is not one of the banks above (their ranges and universal codes).
LENGTH_ONLY = BankRule("", -1, -1, (7, 8, 9, 10, 11))


class Result(msgspec.Struct, frozen=True):
    valid: bool
    bank: str | None
    reason: str | None = None


def weighted_sum(account: str, weights: tuple[int, ...], fudge: int = 0) -> int:
    """Sum of each digit of the 11-digit padded account times its weight, right to left."""
    digits = account.zfill(11)
    return fudge + sum(int(d) * w for d, w in zip(reversed(digits), weights, strict=True))


def bank_of_branch(branch: str) -> str | None:
    for name, rule in RULES.items():
        if branch == rule.universal or rule.low <= int(branch) <= rule.high:
            return name
    return None


def verify(account: str, branch: str, bank: str | None) -> Result:
    if not ascii_digits(branch) or len(branch) != 6:
        return Result(False, bank, "branch code must be 6 digits")
    if not ascii_digits(account) or len(account) > 11:
        return Result(False, bank, "account number must be at most 11 digits")
    if bank is not None and bank not in BANKS:
        return Result(False, bank, "bank is not one of the CdvBank values")
    owner = bank_of_branch(branch)
    if bank is None:
        if owner is None:
            return Result(False, None, "branch code does not belong to a known bank")
        bank = owner
    rule = RULES.get(bank, LENGTH_ONLY)
    if bank in RULES:
        if branch != rule.universal and not rule.low <= int(branch) <= rule.high:
            return Result(False, bank, "branch code does not belong to the bank")
    elif owner is not None:  # a length-only bank does not own another bank's branch codes
        return Result(False, bank, "branch code does not belong to the bank")
    if account in TEST_ACCOUNTS:
        return Result(True, bank)
    if not account.strip("0"):
        return Result(False, bank, "account number must not be all zeros")
    if len(account) not in rule.lengths:
        lengths = " or ".join(str(n) for n in rule.lengths)
        return Result(False, bank, f"account number must have {lengths} digits")
    if rule.weights is not None and weighted_sum(account, rule.weights, rule.fudge) % rule.modulus:
        return Result(False, bank, "account number failed the check digit verification")
    return Result(True, bank)
