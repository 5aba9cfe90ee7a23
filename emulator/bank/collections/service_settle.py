"""The control plane's settle of a collection: act as the bank now (``POST
/_emulator/collections/{id}/settle``), through the same status change its jobs make."""

from __future__ import annotations

from typing import TYPE_CHECKING

from emulator.bank.collections import repo as collections_repo
from emulator.bank.collections.jobs import DisputeWindowClosed, change_status
from emulator.bank.collections.rules import Collection
from emulator.bank.common.service_checks import check_outcome_code, settle_unit
from emulator.domain.errors import ControlError
from emulator.kernel.storage import Tx

if TYPE_CHECKING:
    from emulator.kernel.context import Context


async def settle(rt: Context, collection_id: str, status: str, code: str | None) -> Collection:
    """Act as the bank now: PENDING to COMPLETED (default), UNPAID or REJECTED; COMPLETED to
    DISPUTED within its window. ``code``: the unpaid or dispute code (02 and 30 by default)."""
    check_outcome_code(status, code)

    def unit(tx: Tx) -> Collection:
        def change(merchant_id: str, collection: Collection) -> Collection:
            try:
                return change_status(rt, tx, merchant_id, collection, status, None, code)
            except DisputeWindowClosed as exc:
                raise ControlError(409, "dispute_window_closed", exc.detail) from exc

        return settle_unit(collections_repo.collection(tx, collection_id), change, "collection")

    return await rt.db.write(unit)
