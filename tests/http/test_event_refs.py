"""Events that refer to their purchase's row (kernel.outbox, migration 0019): a new purchase's
purchase.created holds no copy of its JSON while the row still holds it; once the row changes,
the event gets the JSON as it was, and every reader sees the same bytes as before."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import msgspec

from emulator.kernel.schema import apply_migrations
from tests.http.purchase_helpers import pay, purchase_body
from tests.http.test_billing_engine import advance_to, bills, subscribed


async def stored_events(runtime, object_id: str) -> list[tuple[str, int, bytes, bytes]]:
    """(type, ref, payload stored, payload read) of the object's events, oldest first."""
    rows = await runtime.db.read(
        lambda tx: tx.all(
            "SELECT o.event_type, o.ref, o.payload, e.payload FROM outbox o"
            " JOIN outbox_events e ON e.seq = o.seq WHERE o.object_id = ? ORDER BY o.seq",
            (object_id,),
        )
    )
    return [(r[0], r[1], bytes(r[2]), bytes(r[3])) for r in rows]


async def test_a_new_purchase_event_refers_to_the_row_until_it_changes(http, merchant, gw, runtime):
    created = await http.post("/api/v1/purchases/", json=purchase_body(merchant), headers=gw)
    assert created.status_code == 201
    pid = created.json()["id"]
    # no copy while the row holds exactly the event's payload
    assert await stored_events(runtime, pid) == [("purchase.created", 1, b"", created.content)]

    assert (await pay(http, pid)).status_code == 200
    paid = await http.get(f"/api/v1/purchases/{pid}/", headers=gw)
    rows = await stored_events(runtime, pid)
    # the created event got the row's JSON as it was before the payment changed it
    assert rows[0] == ("purchase.created", 0, created.content, created.content)
    assert msgspec.json.decode(rows[0][3])["status"] == "created"
    # the payment's event shows the purchase as now stored
    assert ("purchase.paid", 1, b"", paid.content) in rows
    for _, ref, stored, read in rows:
        if ref:  # a reference reads the row as it is now
            assert (stored, read) == (b"", paid.content)
        else:
            assert stored == read != b""


async def test_readers_see_the_payloads(http, merchant, gw):
    """The object's page (history and events) reads each event's payload as it was: a
    created event that referred to the row, then the payment's that refers to it now."""
    created = await http.post("/api/v1/purchases/", json=purchase_body(merchant), headers=gw)
    pid = created.json()["id"]
    before = (await http.get(f"/_emulator/objects/purchases/{pid}")).json()
    assert [e["payload"] for e in before["events"]] == [created.json()]
    assert (await pay(http, pid)).status_code == 200
    after = (await http.get(f"/_emulator/objects/purchases/{pid}")).json()
    assert [h["status"] for h in after["history"]] == ["created", "paid"]
    assert after["events"][0]["payload"] == created.json()
    assert after["events"][-1]["payload"] == after["object"]


async def test_a_bill_paid_at_once_refers_to_its_row(http, merchant, gw, runtime):
    """A bill's purchase.paid shows the purchase as stored (no copy); its purchase.created,
    the bill before its charge, holds its own JSON."""
    t, _, first = await subscribed(http, gw, merchant)
    await advance_to(http, "2026-02-05T00:00:00Z")
    [bill] = await bills(http, gw, runtime, t["id"], skip=first["id"])
    stored = (await http.get(f"/api/v1/purchases/{bill['id']}/", headers=gw)).content
    rows = {
        kind: (ref, raw, read) for kind, ref, raw, read in await stored_events(runtime, bill["id"])
    }
    assert rows["purchase.paid"] == (1, b"", stored)
    ref, raw, read = rows["purchase.created"]
    assert ref == 0 and raw == read and msgspec.json.decode(read)["status"] == "created"


async def _callbacks(runtime, purchase_id: str) -> dict[str, tuple[int, int]]:
    """(ref, callback) of each of the purchase's events, by type (migration 0022)."""
    rows = await runtime.db.read(
        lambda tx: tx.all(
            "SELECT event_type, ref, callback FROM outbox WHERE object_id = ?", (purchase_id,)
        )
    )
    return {r[0]: (r[1], r[2]) for r in rows}


async def test_a_paid_event_says_whether_its_purchase_names_a_success_callback(
    http, merchant, gw, runtime
):
    """purchase.paid says whether the purchase it shows names a success callback: the
    gateway's router reads no payload of one that names none, and still calls the one that
    does (a bill's purchase never names one)."""
    sink = "http://127.0.0.1:8400/_emulator/sink/event-refs-callback"
    plain = await http.post("/api/v1/purchases/", json=purchase_body(merchant), headers=gw)
    called = await http.post(
        "/api/v1/purchases/", json=purchase_body(merchant, success_callback=sink), headers=gw
    )
    for created in (plain, called):
        assert (await pay(http, created.json()["id"])).status_code == 200
    assert (await _callbacks(runtime, plain.json()["id"]))["purchase.paid"] == (1, 0)
    assert (await _callbacks(runtime, called.json()["id"]))["purchase.paid"] == (1, 1)
    [message] = (await http.get("/_emulator/sink/event-refs-callback")).json()["messages"]
    assert message["json"]["id"] == called.json()["id"]
    assert message["json"]["event_type"] == "purchase.paid"

    t, _, first = await subscribed(http, gw, merchant)
    await advance_to(http, "2026-02-05T00:00:00Z")
    [bill] = await bills(http, gw, runtime, t["id"], skip=first["id"])
    assert (await _callbacks(runtime, bill["id"]))["purchase.paid"] == (1, 0)


def test_events_of_an_older_build_may_name_a_callback(tmp_path: Path) -> None:
    """A database written before migration 0022: its events take ``callback`` = 1, so the
    gateway's dispatch still reads a purchase.paid's payload for its success callback."""
    conn = sqlite3.connect(tmp_path / "older.sqlite3")
    apply_migrations(conn)
    conn.execute("DELETE FROM schema_migrations WHERE version = 22")
    conn.execute("ALTER TABLE outbox DROP COLUMN callback")
    conn.execute(
        "INSERT INTO outbox (id, merchant_id, event_type, object_type, object_id, created_us,"
        " payload) VALUES ('e1', 'm1', 'purchase.paid', 'purchase', 'p1', 0, x'7b7d')"
    )
    conn.commit()
    assert apply_migrations(conn) == [22]
    assert conn.execute("SELECT callback FROM outbox").fetchall() == [(1,)]
    conn.close()
