"""Bulk EFT payments as CSV (the layout is ours; FIDELITY.md): one row per payment, a header
row naming the JSON fields, nested ones dotted (``debtor.accountNumber``)."""

from __future__ import annotations

import csv
import io
from typing import Any

import msgspec

from emulator.bank.payments.rules import EftPaymentInput
from emulator.domain.errors import BankBadRequest
from emulator.domain.validation import split_located

COLUMNS = (
    "profileCode",
    "externalReference",
    "abbreviatedName",
    "contractReference",
    "amountCents",
    "paymentDate",
    "serviceType",
    "realTimeClearing",
    "debtor.accountNumber",
    "debtor.branchCode",
    "debtor.accountType",
    "debtor.name",
    "creditor.accountNumber",
    "creditor.branchCode",
    "creditor.name",
)
REQUIRED_COLUMNS = ("profileCode", "amountCents", "debtor.accountNumber", "creditor.accountNumber")
MAX_ROWS = 10_000
MAX_AMOUNT_DIGITS = 16  # the most an amount can have (Cents: at most 10**15)
RESULT_COLUMNS = ("line", "outcome", "paymentId", "status", "error", *COLUMNS)


def parse(text: str) -> list[dict[str, str]]:
    """The rows (header names to values); a file that is not CSV, an unknown or repeated
    column, a missing required one, no rows or too many rows are a 400."""
    try:
        return _parse(text)
    except csv.Error as exc:
        raise BankBadRequest(f"file: not a valid CSV ({exc})") from None


def _parse(text: str) -> list[dict[str, str]]:
    reader = csv.DictReader(io.StringIO(text))
    header = [h.strip() for h in (reader.fieldnames or [])]
    if not header:
        raise BankBadRequest("file: the CSV has no header row")
    unknown = [h for h in header if h not in COLUMNS]
    if unknown:
        raise BankBadRequest(f"file: unknown column '{unknown[0][:40]}'")
    repeated = [h for h in header if header.count(h) > 1]
    if repeated:
        raise BankBadRequest(f"file: column '{repeated[0]}' appears twice")
    missing = [c for c in REQUIRED_COLUMNS if c not in header]
    if missing:
        raise BankBadRequest(f"file: missing column '{missing[0]}'")
    reader.fieldnames = header
    rows: list[dict[str, str]] = []
    for row in reader:
        if len(rows) == MAX_ROWS:
            raise BankBadRequest(f"file: at most {MAX_ROWS} rows")
        rows.append({k: (v or "").strip() for k, v in row.items() if k is not None})
    if not rows:
        raise BankBadRequest("file: the CSV has no rows")
    return rows


def to_input(row: dict[str, str]) -> EftPaymentInput:
    """One row as a payment request, or a 400 naming the column."""
    body: dict[str, Any] = {}
    for column, value in row.items():
        if value == "":
            continue
        converted: Any = value
        if column == "amountCents":
            if not (value.isascii() and value.isdigit()):
                raise BankBadRequest(f"amountCents: '{value[:20]}' is not a whole number of cents")
            significant = value.lstrip("0") or "0"
            if len(significant) > MAX_AMOUNT_DIGITS:  # int() refuses 4,300 digits and more
                raise BankBadRequest(f"amountCents: Expected `int` <= {10**15}")
            converted = int(significant)
        elif column == "realTimeClearing":
            if value.lower() not in ("true", "false"):
                raise BankBadRequest("realTimeClearing: must be true or false")
            converted = value.lower() == "true"
        if "." in column:
            outer, inner = column.split(".", 1)
            body.setdefault(outer, {})[inner] = converted
        else:
            body[column] = converted
    try:
        return msgspec.convert(body, EftPaymentInput)
    except msgspec.ValidationError as exc:
        text, where, _ = split_located(str(exc))
        message = str(exc) if where is None else f"{where.removeprefix('.')}: {text}"
        raise BankBadRequest(message) from exc


def render(rows: list[dict[str, Any]]) -> str:
    out = io.StringIO()
    writer = csv.DictWriter(out, RESULT_COLUMNS, extrasaction="ignore", lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow(row)
    return out.getvalue()
