"""Reading what the delivery engine did for one of a merchant's objects (the gateway's
``GET /.../deliveries/``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from emulator.delivery import repo
from emulator.delivery.attempt_views import milliseconds
from emulator.domain.errors import SourceNotFound
from emulator.gateway.payouts import repo as payouts_repo
from emulator.gateway.webhooks.rules import SOURCE_TYPES
from emulator.kernel.storage import Tx

if TYPE_CHECKING:
    from emulator.kernel.context import Context

GATEWAY_KINDS = ("webhook", "success_callback")


def _gateway_view(row: dict[str, Any]) -> dict[str, Any]:
    """One attempt as ``GET /webhooks/deliveries/`` lists it (the spec does not show the
    shape: these are the emulator's own field names)."""
    return {
        "id": row["id"],
        "type": "webhook_delivery",
        "webhook_id": row["target_id"] if row["kind"] == "webhook" else None,
        "kind": row["kind"],
        "event_id": row["event_id"],
        "event_type": row["event_type"],
        "url": row["url"],
        "attempt": row["attempt"],
        "response_status": row["status"],
        "error": row["error"],
        "successful": bool(row["success"]),
        "duration_ms": milliseconds(row["duration_us"]),
        "created_on": row["at_us"] // 1_000_000,
    }


async def of_object(
    rt: Context, merchant_id: str, object_id: str, source_type: str, number: int, size: int
) -> tuple[list[dict[str, Any]], bool]:
    """The attempts for one object of the merchant, oldest first; 404 when nothing of the
    merchant's names it (no event, and not one of its payouts)."""
    object_type, not_found = SOURCE_TYPES[source_type]
    await rt.deliveries.flush(merchant_id=merchant_id)

    def unit(tx: Tx) -> list[dict[str, Any]] | None:
        known = repo.object_known(tx, merchant_id, object_type, object_id) or (
            object_type == "payout" and payouts_repo.exists(tx, merchant_id, object_id)
        )
        if not known:
            return None
        return repo.attempts_of_object(
            tx, merchant_id, object_type, object_id, GATEWAY_KINDS, size + 1, (number - 1) * size
        )

    rows = await rt.db.read(unit)
    if rows is None:
        raise SourceNotFound(not_found)
    return [_gateway_view(r) for r in rows[:size]], len(rows) > size
