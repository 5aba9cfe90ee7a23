"""A v2 object's status change as its outbox event (``<object>.<status>``), and its settled
money as a ledger entry."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

import msgspec

from emulator.bank.calendar.rules import iso_us
from emulator.core.ledger import repo as ledger
from emulator.domain.events import Event
from emulator.kernel.storage import Tx

if TYPE_CHECKING:
    from emulator.kernel.context import Context

ObjectType = Literal["bank_mandate", "bank_collection", "bank_payment"]
EVENT_PREFIX = {
    "bank_mandate": "mandate",
    "bank_collection": "collection",
    "bank_payment": "payment",
}


def now_iso(rt: Context) -> str:
    return iso_us(rt.clock.now_us())


def emit(
    rt: Context,
    tx: Tx,
    merchant_id: str,
    object_type: ObjectType,
    obj: Any,
    data: bytes | None = None,
    at_us: int | None = None,
    *,
    ref: bool = False,
) -> None:
    """The outbox event of a status change: type ``<object>.<status>``, payload the object
    exactly as the API returns it (its JSON encoded once, straight from the struct, or
    ``data``: that JSON, made already), at ``at_us`` (the clock's now, read by the caller
    already, or here). ``ref``: ``data`` is the object's row as just stored, and the event
    refers to it instead of holding a copy (``kernel.outbox``; collections only, migration
    0020), holding its status alone for the feed's state index."""
    if isinstance(obj, msgspec.Struct):
        status, object_id = str(obj.status), str(obj.id)  # type: ignore[attr-defined]
        type_ = f"{EVENT_PREFIX[object_type]}.{status.lower()}"
        if data is None:
            event = Event.encoded(type_, object_type, object_id, obj)
        else:  # the bytes just stored, as they are (an encode of them would copy them)
            event = Event.of_json(type_, object_type, object_id, data)
    else:
        payload = msgspec.to_builtins(obj)
        event = Event(
            type=f"{EVENT_PREFIX[object_type]}.{str(payload['status']).lower()}",
            object_type=object_type,
            object_id=str(payload["id"]),
            payload=payload,
        )
    created_us = rt.clock.now_us() if at_us is None else at_us
    if ref:
        assert object_type == "bank_collection" and data is not None
        stand_in = b'{"status":"' + str(obj.status).encode() + b'"}'
        rt.outbox.emit(tx, merchant_id, event, created_us, ref=True, stand_in=stand_in)
    else:
        rt.outbox.emit(tx, merchant_id, event, created_us)


def book(
    tx: Tx, merchant_id: str, kind: str, object_type: str, object_id: str, amount: int, at_us: int
) -> None:
    """A settled ZAR movement in the shared ledger (collections in, payments and disputes
    out): the ``LedgerEntry`` of kind ``kind``, state settled, payment method eft."""
    ledger.record_eft(tx, merchant_id, kind, object_type, object_id, amount, at_us)
