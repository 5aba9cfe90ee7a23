"""Bank interface: the merchant profiles a token can reach."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from emulator.core.merchants import repo
from emulator.core.merchants.model import MerchantProfile

if TYPE_CHECKING:
    from emulator.kernel.context import Context


async def list_profiles(
    rt: Context, merchant_id: str, filters: dict[str, Any], skip: int, take: int
) -> list[MerchantProfile]:
    return await rt.db.read(lambda tx: repo.profiles(tx, merchant_id, filters, skip, take))
