"""The v2 event feeds: every status change, ascending integer ids, filters, skip/take."""

from __future__ import annotations

import pytest

from tests.http.bank_helpers import advance, bad_request, debicheck_body, eft_body


@pytest.fixture
def profile(merchant):
    return merchant["profiles"][0]["profileCode"]


async def test_mandate_events_follow_each_status_change(http, v2, profile):
    """PENDING_AUTHENTICATION, AUTHENTICATED: two events, ids ascending, payload the object."""
    mandate = (
        await http.post("/v2/mandate/debicheck", json=debicheck_body(profile), headers=v2)
    ).json()
    authorised = (await http.post(f"/_emulator/mandates/{mandate['id']}/authorise")).json()
    events = (await http.get("/v2/event/mandate", headers=v2)).json()
    assert [(e["eventType"], e["state"], e["mandateId"]) for e in events] == [
        ("mandate.pending_authentication", "PENDING_AUTHENTICATION", mandate["id"]),
        ("mandate.authenticated", "AUTHENTICATED", mandate["id"]),
    ]
    assert events[0]["eventId"] < events[1]["eventId"]
    assert isinstance(events[0]["eventId"], int)
    assert events[0]["data"] == mandate
    assert events[1]["data"] == authorised
    assert events[0]["timestamp"] == "2026-01-05T09:00:00Z"


async def test_mandate_event_filters(http, v2, profile):
    first = (
        await http.post("/v2/mandate/debicheck", json=debicheck_body(profile), headers=v2)
    ).json()
    await advance(http, 60)
    second = (
        await http.post("/v2/mandate/debicheck", json=debicheck_body(profile, "DC-2"), headers=v2)
    ).json()
    await http.post(f"/_emulator/mandates/{second['id']}/reject")
    events = (await http.get("/v2/event/mandate", headers=v2)).json()
    ids = [e["eventId"] for e in events]

    async def query(q):
        response = await http.get(f"/v2/event/mandate?{q}", headers=v2)
        assert response.status_code == 200, response.text
        return [e["eventId"] for e in response.json()]

    assert await query(f"eventId={ids[1]}") == [ids[1]]
    assert await query(f"fromEventId={ids[1]}") == ids[1:]
    assert await query(f"toEventId={ids[1]}") == ids[:2]
    assert await query(f"mandateId={first['id']}") == ids[:1]
    assert await query("state=REJECTED") == ids[2:]
    assert await query("fromTimestamp=2026-01-05T09:00:30Z") == ids[1:]
    assert await query("toTimestamp=2026-01-05T09:00:30Z") == ids[:1]
    assert await query("skip=1&take=1") == ids[1:2]
    assert await query("state=REJECTED&take=1&skip=1") == []
    bad = await http.get("/v2/event/mandate?fromEventId=x", headers=v2)
    assert bad.json() == bad_request("The value 'x' is not valid for fromEventId.")
    assert (await http.get("/v2/event/mandate?state=NOPE", headers=v2)).status_code == 400
    assert (await http.get("/v2/event/mandate?toTimestamp=nope", headers=v2)).status_code == 400


async def test_collection_events_and_isolation(http, v2, profile):
    """The collection feed has PENDING then COMPLETED; another merchant's feed is empty."""
    created = (await http.post("/v2/collection/eft", json=eft_body(profile), headers=v2)).json()
    await advance(http, 41)
    events = (
        await http.get(f"/v2/event/collection?collectionId={created['id']}", headers=v2)
    ).json()
    assert [e["state"] for e in events] == ["PENDING", "COMPLETED"]
    assert events[1]["data"]["statementId"] is not None
    mandates = (await http.get("/v2/event/mandate", headers=v2)).json()
    assert [e["state"] for e in mandates] == ["ACTIVE"]
    other = await http.post("/_emulator/merchants")
    body = other.json()
    token = await http.post(
        "/oauth2/token",
        auth=(body["client_id"], body["client_secret"]),
        data={"grant_type": "client_credentials"},
    )
    headers = {"Authorization": f"Bearer {token.json()['access_token']}"}
    assert (await http.get("/v2/event/collection", headers=headers)).json() == []


async def test_feed_paging_edges_with_filters(http, v2, profile):
    """skip/take apply after the filters (state, object), in event id order, to the end."""
    made = []
    for n in range(5):
        body = debicheck_body(profile, f"DC-P{n}")
        made.append((await http.post("/v2/mandate/debicheck", json=body, headers=v2)).json())
    for m in made[1::2]:
        await http.post(f"/_emulator/mandates/{m['id']}/reject")
    await http.post(f"/_emulator/mandates/{made[0]['id']}/authorise")
    events = (await http.get("/v2/event/mandate?take=1000", headers=v2)).json()
    assert len(events) == 8

    async def query(q):
        response = await http.get(f"/v2/event/mandate?{q}", headers=v2)
        assert response.status_code == 200, response.text
        return [e["eventId"] for e in response.json()]

    rejected = [e["eventId"] for e in events if e["state"] == "REJECTED"]
    assert len(rejected) == 2
    assert await query("state=REJECTED") == rejected
    assert await query("state=REJECTED&take=1") == rejected[:1]
    assert await query("state=REJECTED&skip=1&take=1") == rejected[1:]
    assert await query("state=REJECTED&skip=2") == []
    assert await query(f"state=REJECTED&fromEventId={rejected[1]}") == rejected[1:]
    first = [e["eventId"] for e in events if e["mandateId"] == made[0]["id"]]
    assert len(first) == 2
    assert await query(f"mandateId={made[0]['id']}&skip=1") == first[1:]
    assert await query(f"mandateId={made[0]['id']}&state=AUTHENTICATED") == first[1:]
    assert await query(f"mandateId={made[1]['id']}&state=AUTHENTICATED") == []
    everything = [e["eventId"] for e in events]
    assert await query("skip=7&take=5") == everything[7:]
    assert await query("skip=8") == []
