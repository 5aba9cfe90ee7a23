"""A collection's collection.completed refers to the collection's row (kernel.outbox, migration
0020): it holds its status alone while the row holds its JSON; a dispute, which changes the
row, first gives it the JSON as it was; the feed, its state filter and the object's page read
the same payloads as before."""

from __future__ import annotations

import msgspec
import pytest

from tests.http.bank_helpers import debtor, eft_body
from tests.http.test_event_refs import stored_events


@pytest.fixture
def profile(merchant):
    return merchant["profiles"][0]["profileCode"]


async def _feed(http, v2, query: str) -> list[dict]:
    reply = await http.get(f"/v2/event/collection?{query}", headers=v2)
    assert reply.status_code == 200, reply.text
    return reply.json()


async def test_a_completion_refers_to_the_row_until_a_dispute_changes_it(
    http, v2, profile, runtime
):
    body = eft_body(profile, reference="R-1", debtor=debtor("62000000001"))
    created = await http.post("/v2/collection/eft", json=body, headers=v2)
    cid = created.json()["id"]
    done = await http.post(f"/_emulator/collections/{cid}/settle")
    assert done.status_code == 200, done.text
    stored = (await http.get(f"/v2/collection/eft/{cid}/status", headers=v2)).json()
    pending, completed = await stored_events(runtime, cid)
    assert pending[:2] == ("collection.pending", 0) and pending[2] == pending[3]
    # no copy of the row: its status (the feed's state index reads it), the row read through
    assert completed[:3] == ("collection.completed", 1, b'{"status":"COMPLETED"}')
    assert msgspec.json.decode(completed[3]) == stored
    feed = await _feed(http, v2, f"collectionId={cid}")
    assert [(e["state"], e["data"]) for e in feed] == [
        ("PENDING", created.json()),
        ("COMPLETED", stored),
    ]
    assert [e["data"]["id"] for e in await _feed(http, v2, "state=COMPLETED")] == [cid]

    disputed = await http.post(
        f"/_emulator/collections/{cid}/settle", json={"status": "DISPUTED", "reasonCode": "36"}
    )
    assert disputed.status_code == 200, disputed.text
    rows = await stored_events(runtime, cid)
    # the completion got the row's JSON as it was before the dispute changed it
    assert rows[1][:2] == ("collection.completed", 0) and rows[1][2] == rows[1][3]
    assert msgspec.json.decode(rows[1][3]) == stored
    assert [r[0] for r in rows] == [
        "collection.pending",
        "collection.completed",
        "collection.disputed",
    ]
    feed = await _feed(http, v2, f"collectionId={cid}")
    assert [e["state"] for e in feed] == ["PENDING", "COMPLETED", "DISPUTED"]
    assert feed[1]["data"] == stored and feed[2]["data"]["status"] == "DISPUTED"
    assert [e["data"] for e in await _feed(http, v2, "state=COMPLETED")] == [stored]
    page = (await http.get(f"/_emulator/objects/collections/{cid}")).json()
    assert [e["payload"]["status"] for e in page["events"]] == ["PENDING", "COMPLETED", "DISPUTED"]
