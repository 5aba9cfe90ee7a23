"""Routers plug into the engine with one registration: a bank-style unsigned callback router
(as the bank interface will add), and a broken router that must not stall the others."""

from __future__ import annotations

import msgspec

from emulator.delivery.outgoing import Outgoing
from emulator.domain.events import Event
from emulator.kernel.outbox import StoredEvent
from emulator.kernel.storage import Tx
from emulator.scenarios import points

SINK = "http://127.0.0.1:8400/_emulator/sink/{name}"


def callback_router(tx: Tx, event: StoredEvent) -> list[Outgoing]:
    """Unsigned JSON callbacks of collection events to one fixed URL."""
    body = msgspec.json.encode({"id": event.object_id, "status": event.payload["status"]})
    return [
        Outgoing(
            url=SINK.format(name="bank"),
            body=body,
            headers={"Content-Type": "application/json"},
            kind="callback",
            target_id="registration-1",
            point=points.CALLBACK_DELIVERY,
            subject={"callbackType": "EFT_COLLECTION", "status": event.payload["status"]},
        )
    ]


def broken_router(tx: Tx, event: StoredEvent) -> list[Outgoing]:
    raise RuntimeError("a bug in a router")


async def emit(runtime, merchant_id: str, event: Event) -> None:
    await runtime.db.write(
        lambda tx: runtime.outbox.emit(tx, merchant_id, event, runtime.clock.now_us())
    )


async def test_a_registered_router_sends_its_callbacks_in_order(http, runtime, merchant):
    """Events of the router's object types become its messages, delivered in event order."""
    runtime.deliveries.register(callback_router, ["collection"])
    collection_id = "2f1c0a52-7d4e-4b8a-9c61-2e5f0a7b3d10"
    for status in ("PENDING", "COMPLETED"):
        event = Event(
            f"collection.{status.lower()}", "collection", collection_id, {"status": status}
        )
        await emit(runtime, merchant["company_id"], event)
    messages = (await http.get("/_emulator/sink/bank")).json()["messages"]
    assert [m["json"] for m in messages] == [
        {"id": collection_id, "status": "PENDING"},
        {"id": collection_id, "status": "COMPLETED"},
    ]
    assert "x-signature" not in messages[0]["headers"]
    logged = (await http.get("/_emulator/deliveries", params={"kind": "callback"})).json()
    assert [(d["target_id"], d["success"]) for d in logged["deliveries"]] == [
        ("registration-1", True),
        ("registration-1", True),
    ]


async def test_a_failing_router_does_not_stall_the_others(http, runtime, merchant, caplog):
    """A router that raises loses its own messages (logged); the other routers' go out."""
    runtime.deliveries.register(broken_router, ["collection"])
    runtime.deliveries.register(callback_router, ["collection"])
    event = Event("collection.completed", "collection", "c-1", {"status": "COMPLETED"})
    await emit(runtime, merchant["company_id"], event)
    messages = (await http.get("/_emulator/sink/bank")).json()["messages"]
    assert [m["json"] for m in messages] == [{"id": "c-1", "status": "COMPLETED"}]
    assert "a bug in a router" in caplog.text


def picky_router(tx: Tx, event: StoredEvent) -> list[Outgoing]:
    """callback_router, except for one event it cannot route (a bug that data triggers)."""
    if event.payload.get("status") == "BROKEN":
        raise RuntimeError("a bug on one event")
    return callback_router(tx, event)


async def test_a_router_failing_on_one_event_of_a_batch_loses_that_event_only(
    http, runtime, merchant, caplog
):
    """Events dispatched together: the failing one's messages are lost (logged); the others
    go out once each, in event order (the batch is routed again one event at a time)."""
    runtime.deliveries.register(picky_router, ["collection"])

    def emit_three(tx: Tx) -> None:
        for n, status in enumerate(("PENDING", "BROKEN", "COMPLETED")):
            event = Event(
                f"collection.{status.lower()}", "collection", f"c-{n}", {"status": status}
            )
            runtime.outbox.emit(tx, merchant["company_id"], event, runtime.clock.now_us())

    await runtime.db.write(emit_three)
    messages = (await http.get("/_emulator/sink/bank")).json()["messages"]
    assert [m["json"] for m in messages] == [
        {"id": "c-0", "status": "PENDING"},
        {"id": "c-2", "status": "COMPLETED"},
    ]
    failures = [r for r in caplog.records if "failed on event" in r.getMessage()]
    assert len(failures) == 1
