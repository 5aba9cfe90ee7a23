"""Gateway payouts in SQLite."""

from __future__ import annotations

import msgspec

from emulator.core.merchants.model import Merchant
from emulator.gateway.payouts.model import Payout
from emulator.kernel.storage import Tx

_decode = msgspec.json.Decoder(Payout)
_encode = msgspec.json.Encoder()


class PayoutRow(msgspec.Struct, frozen=True):
    merchant_id: str
    token: str
    card_number: str | None
    settlement: str | None
    payout: Payout


def insert(tx: Tx, merchant_id: str, payout: Payout, token: str) -> None:
    tx.execute(
        "INSERT INTO payouts (id, merchant_id, token, data) VALUES (?, ?, ?, ?)",
        (payout.id, merchant_id, token, _encode.encode(payout)),
    )


def update(
    tx: Tx,
    payout: Payout,
    card_number: str | None = None,
    settlement: str | None = None,
) -> None:
    """Store ``payout``; the card and the planned settlement are set when given."""
    tx.execute(
        "UPDATE payouts SET data = ?, card_number = COALESCE(?, card_number), settlement = ?"
        " WHERE id = ?",
        (_encode.encode(payout), card_number, settlement, payout.id),
    )


def row(tx: Tx, payout_id: str) -> PayoutRow | None:
    """The payout with its bookkeeping, whatever merchant owns it (jobs, the control plane)."""
    found = tx.one(
        "SELECT merchant_id, token, card_number, settlement, data FROM payouts WHERE id = ?",
        (payout_id,),
    )
    if found is None:
        return None
    return PayoutRow(
        merchant_id=found[0],
        token=found[1],
        card_number=found[2],
        settlement=found[3],
        payout=_decode.decode(found[4]),
    )


def get_raw(tx: Tx, merchant_id: str, payout_id: str) -> bytes | None:
    found = tx.one(
        "SELECT data FROM payouts WHERE id = ? AND merchant_id = ?", (payout_id, merchant_id)
    )
    return bytes(found[0]) if found is not None else None


def exists(tx: Tx, merchant_id: str, payout_id: str) -> bool:
    found = tx.one(
        "SELECT 1 FROM payouts WHERE id = ? AND merchant_id = ?", (payout_id, merchant_id)
    )
    return found is not None


def page_raw(tx: Tx, merchant_id: str, limit: int, offset: int) -> list[bytes]:
    """Newest first."""
    rows = tx.all(
        "SELECT data FROM payouts WHERE merchant_id = ? ORDER BY seq DESC LIMIT ? OFFSET ?",
        (merchant_id, limit, offset),
    )
    return [bytes(r[0]) for r in rows]


def _bank_accounts(data: bytes) -> list[dict[str, str]]:
    merchant = msgspec.json.decode(data, type=Merchant)
    return [msgspec.to_builtins(account) for account in merchant.bank_accounts]


def issuer_details(tx: Tx, merchant_id: str, brand_id: str) -> dict[str, object]:
    """The issuer company and brand, as the payout records them (OpenAPI IssuerDetails)."""
    merchant = tx.one("SELECT name, data FROM merchants WHERE id = ?", (merchant_id,))
    brand = tx.one(
        "SELECT name FROM brands WHERE id = ? AND merchant_id = ?", (brand_id, merchant_id)
    )
    return {
        "website": "",
        "brand_name": brand[0] if brand is not None else "",
        "legal_name": merchant[0] if merchant is not None else "",
        "legal_street_address": "",
        "legal_city": "",
        "legal_zip_code": "",
        "legal_country": "ZA",
        "registration_number": "",
        "tax_number": "",
        # Provider quirk: issuer details list the company's bank account(s), as the real
        # purchase webhook bodies do (the same IssuerDetails object).
        "bank_accounts": _bank_accounts(merchant[1]) if merchant is not None else [],
    }
