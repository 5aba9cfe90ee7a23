"""The schedule's lines for the holds' jobs (``emulator/sandbox/schedule/service.py`` shows
them): a held thing's timeout, and a card result released from a hold. Each is (the object
acted on, one line), and says so when the job will find nothing to do."""

from __future__ import annotations

from emulator.gateway.purchases import repo as purchases
from emulator.kernel.jobs import Job
from emulator.kernel.storage import Tx
from emulator.sandbox.holds import repo as holds

GONE = " (no effect: the {} is gone)"  # as the schedule says it of every kind


def timeout(tx: Tx, job: Job) -> tuple[str | None, str]:
    item_id = job.payload.get("id")
    item = holds.item(tx, item_id) if isinstance(item_id, int) else None
    if isinstance(item_id, int | str) and item is None:  # named, not found
        return None, "a held item times out" + GONE.format("held item")
    if item is None:
        return None, "a held item times out"
    note = "" if item.state == "held" else f" (no effect: it was {item.state} already)"
    return None, f"what hold {item.hold_id} holds times out: its on_timeout is done{note}"


def held_result(tx: Tx, job: Job) -> tuple[str | None, str]:
    purchase_id = job.payload.get("id")
    if not isinstance(purchase_id, str) or not purchase_id:
        return None, "a purchase gets the card result a hold held"
    found = purchases.get_any(tx, purchase_id)
    line = f"purchase {purchase_id[:8]}… gets the card result a hold held"
    return purchase_id, line + (GONE.format("purchase") if found is None else "")
