"""The company's account: balance and turnover from the ledger, and the payment methods a
purchase can use."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from emulator.core.ledger import rules as ledger_view
from emulator.core.merchants import repo as merchants_repo
from emulator.domain.errors import FieldError
from emulator.gateway.account import repo as ledger_reads
from emulator.gateway.account import rules as payment_methods
from emulator.kernel.storage import Tx

if TYPE_CHECKING:
    from emulator.kernel.context import Context


async def balance(
    rt: Context, merchant_id: str, filters: Mapping[str, Sequence[Any]], at_s: int | None
) -> dict[str, dict[str, int]]:
    """Per currency, as of ``at_s`` (a past Unix time) or now."""
    now_us = rt.clock.now_us()
    at_us = now_us if at_s is None else min(at_s * 1_000_000, now_us)
    rows = await rt.db.read(lambda tx: ledger_reads.rows(tx, merchant_id, filters))
    return ledger_view.balance(rows, at_us)


async def turnover(
    rt: Context,
    merchant_id: str,
    filters: Mapping[str, Sequence[Any]],
    from_s: int | None,
    to_s: int | None,
) -> dict[str, dict[str, Any]]:
    """Incoming and outgoing over [from, to) (default: all time up to now), one
    ``TurnoverPair`` over the currencies the filters select."""
    from_us = 0 if from_s is None else from_s * 1_000_000
    to_us = rt.clock.now_us() + 1 if to_s is None else to_s * 1_000_000
    rows = await rt.db.read(lambda tx: ledger_reads.rows(tx, merchant_id, filters))
    return ledger_view.turnover(rows, from_us, to_us)


async def methods(rt: Context, merchant_id: str, brand_id: str) -> dict[str, Any]:
    def unit(tx: Tx) -> list[str]:
        return merchants_repo.brand_ids(tx, merchant_id)

    if brand_id.lower() not in await rt.db.read(unit):
        raise FieldError("brand_id", "invalid", "No brand with this id.")
    return payment_methods.listing()
