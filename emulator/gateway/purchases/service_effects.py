"""What the purchase use cases share: the clock in seconds, events, the ledger, the decision
points' subject, loading a purchase."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from emulator.core.ledger import repo as ledger
from emulator.domain import errors
from emulator.domain.events import Event
from emulator.gateway.purchases import repo
from emulator.gateway.purchases import rules_ledger as purchase_ledger
from emulator.gateway.purchases.model import Internal, Purchase
from emulator.kernel.storage import Tx

if TYPE_CHECKING:
    from emulator.kernel.context import Context


def now_s(rt: Context) -> int:
    return rt.clock.now_us() // 1_000_000


def emit(
    rt: Context,
    tx: Tx,
    merchant_id: str,
    events: list[Event],
    stored: bytes | None = None,
    p: Purchase | None = None,
) -> None:
    """Emit a purchase's events; each also goes to the runtime's purchase event hooks
    (billing: a paid bill counts a cycle), in the same unit of work. ``stored``: the JSON of
    the purchase ``p`` as just written; an event whose payload is those very bytes refers to
    the row instead of copying them (``kernel.outbox``), and says whether it names a success
    callback (``p``'s, when given: migration 0022)."""
    for event in events:
        ref = stored is not None and event.object_type == "purchase" and event.raw == stored
        callback = not ref or p is None or bool(p.success_callback)
        rt.outbox.emit(tx, merchant_id, event, rt.clock.now_us(), ref=ref, callback=callback)
        for hook in rt.purchase_event_hooks:
            hook(tx, merchant_id, event)


def save(
    rt: Context, tx: Tx, merchant_id: str, p: Purchase, internal: Internal, events: list[Event]
) -> None:
    """Write the changed purchase, then emit its events (``emit``: those that show it as
    written refer to its row)."""
    stored = repo.update(tx, merchant_id, p, internal)
    emit(rt, tx, merchant_id, events, stored, p)


def book(tx: Tx, merchant_id: str, p: Purchase, internal: Internal, at_us: int) -> None:
    """A purchase that has just become paid puts its money in the ledger."""
    if p.status == "paid" and p.payment is not None and not p.marked_as_paid:
        entry = purchase_ledger.entry(p, internal, "purchase", p.payment.amount, "purchase", p.id)
        ledger.record(tx, merchant_id, entry, at_us)


def subject(p: Purchase, **extra: Any) -> dict[str, Any]:
    """The match fields of the purchase decision points."""
    return {
        "amount": p.purchase.total,
        "currency": p.purchase.currency,
        "reference": p.reference,
        "email": p.client.email,
        "brand_id": p.brand_id,
        "product": p.purchase.products[0].name if p.purchase.products else "",
        "object_id": p.id,
        **extra,
    }


def load(tx: Tx, merchant_id: str, purchase_id: str) -> tuple[Purchase, Internal]:
    found = repo.get(tx, merchant_id, purchase_id)
    if found is None:
        raise errors.PurchaseNotFound()
    return found
