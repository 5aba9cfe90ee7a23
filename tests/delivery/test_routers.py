"""Routers plug into the engine with one registration: a bank-style unsigned callback router
(as the bank interface will add), and a broken router that must not stall the others."""

from __future__ import annotations

import concurrent.futures

import msgspec

from emulator.delivery import signing
from emulator.delivery.outgoing import Outgoing
from emulator.domain.events import Event
from emulator.kernel.outbox import StoredEvent
from emulator.kernel.storage import Tx
from emulator.scenarios import points
from tests.delivery.test_deliveries import verify

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


async def test_a_preparer_sees_each_event_before_its_router(http, runtime, merchant):
    """A router's preparer runs on a read snapshot ahead of the routing (the webhooks'
    signatures are made there); one that fails costs nothing but its head start."""
    seen: list[tuple[str, str]] = []

    def prepare(tx: Tx, event: StoredEvent) -> None:
        seen.append(("prepared", event.object_id))
        if event.object_id == "c-1":
            raise RuntimeError("a bug in a preparer")

    def router(tx: Tx, event: StoredEvent) -> list[Outgoing]:
        seen.append(("routed", event.object_id))
        return callback_router(tx, event)

    runtime.deliveries.register(router, ["collection"], prepare)
    for n in range(2):
        event = Event("collection.completed", "collection", f"c-{n}", {"status": "COMPLETED"})
        await emit(runtime, merchant["company_id"], event)
        messages = (await http.get("/_emulator/sink/bank")).json()["messages"]
        assert messages[-1]["json"] == {"id": f"c-{n}", "status": "COMPLETED"}
    for n in range(2):
        assert seen.index(("prepared", f"c-{n}")) < seen.index(("routed", f"c-{n}"))


def test_a_signature_made_ahead_is_the_one_signing_makes_and_is_taken_once():
    private, public = signing.generate()
    ahead, fresh = signing.Signer(), signing.Signer()
    ahead.presign(private, b'{"a": 1}')
    made = ahead.sign(private, b'{"a": 1}')
    assert made == fresh.sign(private, b'{"a": 1}') == ahead.sign(private, b'{"a": 1}')
    verify(public, made, b'{"a": 1}')
    assert ahead.sign(private, b'{"a": 2}') == fresh.sign(private, b'{"a": 2}')


def test_a_signature_being_made_ahead_is_waited_for_not_lost():
    """An advance may route an event while a worker still signs it ahead: ``sign`` takes the
    worker's signature (waiting for it) or makes its own, the same bytes either way; one
    signed first is not made ahead again, and signing again still gives it."""
    private, public = signing.generate()
    ahead, fresh = signing.Signer(), signing.Signer()
    bodies = [f'{{"n": {n}}}'.encode() for n in range(12)]
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as worker:
        for body in bodies:
            presigning = worker.submit(ahead.presign, private, body)
            assert ahead.sign(private, body) == fresh.sign(private, body)
            presigning.result()
    signed = ahead.sign(private, b'{"late": 1}')
    ahead.presign(private, b'{"late": 1}')
    assert ahead.sign(private, b'{"late": 1}') == signed
    verify(public, signed, b'{"late": 1}')
