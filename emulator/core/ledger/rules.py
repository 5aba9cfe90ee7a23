"""Balance and turnover, computed from ledger rows (FIDELITY "Balance"; OpenAPI
``BalanceByCurrency`` and ``TurnoverPair``). Pure: rows and instants are arguments.

Balance per currency, as of instant T (now, or the ``from`` filter):

- ``gross_balance``: the sum of the amounts of rows settled at or before T;
- ``fee_sell``: the provider's fees of those rows; ``balance`` = gross_balance - fee_sell;
- ``reserved``: 0 (the sandbox keeps no rolling reserve);
- ``pending_outgoing``: money on its way out at T: minus the sum of negative rows that had
  happened by T and had not settled by then (pending payouts), never void ones;
- ``available_balance`` = balance - reserved - pending_outgoing.

Turnover (``TurnoverPair``) over settled rows with ``from`` <= settled time < ``to``:
``incoming`` (positive rows) and ``outgoing`` (negative rows, as a positive sum), each
``{"turnover", "fee_sell", "count": {"all"}}``; the ``currency`` filter picks the currencies.
"""

from __future__ import annotations

from typing import Any

import msgspec


class Row(msgspec.Struct, frozen=True, array_like=True):
    currency: str
    amount: int
    fee: int
    state: str
    at_us: int
    settled_us: int | None


def _settled_by(row: Row, t_us: int) -> bool:
    return row.state == "settled" and row.settled_us is not None and row.settled_us <= t_us


def balance(rows: list[Row], t_us: int) -> dict[str, dict[str, int]]:
    out: dict[str, dict[str, int]] = {}
    for row in rows:
        if row.at_us > t_us:
            continue
        entry = out.setdefault(row.currency, {"gross": 0, "fee": 0, "pending": 0})
        if _settled_by(row, t_us):
            entry["gross"] += row.amount
            entry["fee"] += row.fee
        elif row.state != "void" and row.amount < 0:
            entry["pending"] -= row.amount
    return {currency: _shape(v) for currency, v in sorted(out.items())}


def _shape(v: dict[str, int]) -> dict[str, int]:
    bal = v["gross"] - v["fee"]
    return {
        "balance": bal,
        "fee_sell": v["fee"],
        "reserved": 0,
        "gross_balance": v["gross"],
        "pending_outgoing": v["pending"],
        "available_balance": bal - v["pending"],
    }


def turnover(rows: list[Row], from_us: int, to_us: int) -> dict[str, dict[str, Any]]:
    """One ``TurnoverPair`` over every row given: the ``currency`` filter chooses the
    currencies (the pair names none, so several currencies are added up as they are)."""
    pair = {"incoming": _zero(), "outgoing": _zero()}
    for row in rows:
        if row.state != "settled" or row.settled_us is None:
            continue
        if not from_us <= row.settled_us < to_us:
            continue
        side = pair["incoming"] if row.amount >= 0 else pair["outgoing"]
        side["turnover"] += abs(row.amount)
        side["fee_sell"] += row.fee
        side["count"]["all"] += 1
    return pair


def _zero() -> dict[str, Any]:
    return {"turnover": 0, "fee_sell": 0, "count": {"all": 0}}


# OpenAPI enums of the balance filters.
TRANSACTION_PRODUCTS = (
    "bank_payment",
    "chargeback",
    "custom_payment",
    "invoice",
    "purchase",
    "refund",
    "subscription",
)
TRANSACTION_FLOWS = (
    "api",
    "direct_post",
    "fluentforms",
    "formidableforms",
    "givewp",
    "gravityforms",
    "hostbill",
    "import",
    "link",
    "magento",
    "opencart",
    "payform",
    "paymattic",
    "prestashop",
    "server_to_server",
    "shopify",
    "web_office",
    "whmcs",
    "woocommerce",
    "woocommerce_subscriptions",
    "wpcharitable",
    "wpfunnels",
)
