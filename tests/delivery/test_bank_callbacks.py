"""v2 callbacks delivered: every status change to every registered URL, unsigned, with
retries and the callback.delivery decision point; the trigger and test endpoints."""

from __future__ import annotations

import pytest

from emulator.bank.callbacks.rules import FIELDS
from tests.http.bank_helpers import advance, eft_body

SINK = "http://127.0.0.1:8400/_emulator/sink/{name}"


@pytest.fixture
def client_number(merchant):
    return merchant["profiles"][0]["createdByClient"]


@pytest.fixture
def profile(merchant):
    return merchant["profiles"][0]["profileCode"]


async def register(http, v2, client, name, kind="EFT_COLLECTION"):
    body = {"clientId": client, "url": SINK.format(name=name), "callbackType": kind,
            "callbackVersion": "V2"}  # fmt: skip
    response = await http.post("/v2/clientcallbackurl/", json=body, headers=v2)
    assert response.status_code == 200, response.text


async def received(http, name):
    return (await http.get(f"/_emulator/sink/{name}")).json()["messages"]


async def collection(http, v2, profile, **changes):
    response = await http.post("/v2/collection/eft", json=eft_body(profile, **changes), headers=v2)
    assert response.status_code == 201, response.text
    return response.json()


async def test_each_status_change_reaches_each_registered_url_unsigned(
    http, v2, client_number, profile
):
    await register(http, v2, client_number, "one")
    await register(http, v2, client_number, "two")
    await register(http, v2, client_number, "payments", kind="EFT_PAYMENT")
    created = await collection(http, v2, profile)
    await advance(http, 41)  # 110000001: COMPLETED after 40 seconds
    for name in ("one", "two"):
        messages = await received(http, name)
        assert [(m["json"]["id"], m["json"]["status"]) for m in messages] == [
            (created["id"], "PENDING"),
            (created["id"], "COMPLETED"),
        ]
        headers = {k.lower(): v for k, v in messages[1]["headers"].items()}
        assert "x-signature" not in headers  # callbacks are unsigned (spec)
        assert headers["content-type"] == "application/json"
        assert messages[1]["json"]["type"] == "EFT_COLLECTION"
        assert list(messages[1]["json"]) == list(FIELDS["EFT_COLLECTION"])  # the spec's fields
    assert await received(http, "payments") == []
    log = (await http.get("/_emulator/deliveries", params={"kind": "callback"})).json()
    assert len(log["deliveries"]) == 4 and {d["kind"] for d in log["deliveries"]} == {"callback"}


async def test_a_receiver_that_is_down_gets_retries_on_the_clock(http, v2, client_number, profile):
    """callback.delivery fail_attempts: the first attempts fail, a retry delivers it."""
    await register(http, v2, client_number, "flaky")
    scenario = (
        "name: cb-down\nrules:\n  - when: callback.delivery\n    match: {status: PENDING}\n"
        "    then: {fail_attempts: 2}\n"
    )
    await http.post("/_emulator/scenarios", content=scenario)
    await http.post("/_emulator/scenarios/cb-down/activate")
    created = await collection(http, v2, profile, debtor={"accountNumber": "123456789",
                                                          "branchCode": "051001"})  # fmt: skip
    assert await received(http, "flaky") == []
    await advance(http, 60)  # the first retry, also failed
    assert await received(http, "flaky") == []
    await advance(http, 240)  # 5 minutes after the first attempt: delivered
    messages = await received(http, "flaky")
    assert [(m["json"]["id"], m["json"]["status"]) for m in messages] == [
        (created["id"], "PENDING")
    ]


async def test_copies_carry_the_same_event_id(http, v2, client_number, profile):
    await register(http, v2, client_number, "twice")
    await http.post("/_emulator/scenarios/duplicate-callbacks/activate")
    await collection(http, v2, profile)
    messages = await received(http, "twice")
    assert len(messages) == 2
    ids = {m["headers"]["x-event-id"] for m in messages}  # the sink keeps header names lowercased
    assert len(ids) == 1
    assert messages[0]["body"] == messages[1]["body"]


async def test_trigger_resends_the_current_status(http, v2, client_number, profile):
    await register(http, v2, client_number, "again")
    created = await collection(http, v2, profile)
    await advance(http, 41)
    response = await http.post(
        f"/v2/callback/collection/eft/{created['id']}/",
        json={"collectionStatus": "COMPLETED", "callbackVersion": "V2"},
        headers=v2,
    )
    assert response.status_code == 200, response.text
    assert response.json() == {
        "collectionId": created["id"],
        "collectionStatus": "COMPLETED",
        "callbackVersion": "V2",
        "callbacks": 1,
    }
    statuses = [m["json"]["status"] for m in await received(http, "again")]
    assert statuses == ["PENDING", "COMPLETED", "COMPLETED"]
    events = (await http.get("/v2/event/collection", headers=v2)).json()
    assert all("callback" not in str(e.get("eventType", "")) for e in events)


async def test_the_test_endpoint_simulates_a_status_and_can_override_the_url(
    http, v2, client_number, profile
):
    await register(http, v2, client_number, "registered")
    created = await collection(http, v2, profile)
    path = f"/v2/callback/test/collection/eft/{created['id']}/"
    simulated = await http.post(
        path, json={"collectionStatus": "UNPAID", "callbackVersion": "V2"}, headers=v2
    )
    assert simulated.status_code == 200
    override = await http.post(
        path,
        json={"collectionStatus": "DISPUTED", "callbackVersion": "V2",
              "overrideUrl": SINK.format(name="elsewhere")},
        headers=v2,
    )  # fmt: skip
    assert override.json()["callbacks"] == 1
    assert [m["json"]["status"] for m in await received(http, "registered")] == [
        "PENDING",
        "UNPAID",
    ]
    assert [m["json"]["status"] for m in await received(http, "elsewhere")] == ["DISPUTED"]
    status = (await http.get(f"/v2/collection/eft/{created['id']}/status", headers=v2)).json()
    assert status["status"] == "PENDING"  # nothing real changed


async def test_an_override_url_gets_its_callback_from_a_merchant_without_registrations(
    http, v2, profile
):
    """Dispatch passes over, unread, the events of merchants without callback URLs: not the
    test endpoint's requests, which name their own URL."""
    created = await collection(http, v2, profile)
    path = f"/v2/callback/test/collection/eft/{created['id']}/"
    body = {"collectionStatus": "UNPAID", "callbackVersion": "V2",
            "overrideUrl": SINK.format(name="only")}  # fmt: skip
    assert (await http.post(path, json=body, headers=v2)).json()["callbacks"] == 1
    assert [m["json"]["status"] for m in await received(http, "only")] == ["UNPAID"]


@pytest.mark.parametrize(
    ("body", "status", "message"),
    [
        ({"callbackVersion": "V2"}, 400, "collectionStatus is required"),
        ({"collectionStatus": "COMPLETED"}, 400, "callbackVersion is required"),
        ({"collectionStatus": "PAID", "callbackVersion": "V2"}, 400,
         "collectionStatus: 'PAID' is not one of PENDING, COMPLETED, UNPAID, REJECTED, DISPUTED"),
        ({"collectionStatus": "COMPLETED", "callbackVersion": "V2",
          "overrideUrl": "http://merchant.example/cb"}, 400, "url: must be HTTPS"),
    ],
)  # fmt: skip
async def test_trigger_refusals(http, v2, profile, body, status, message):
    created = await collection(http, v2, profile)
    response = await http.post(
        f"/v2/callback/test/collection/eft/{created['id']}/", json=body, headers=v2
    )
    assert response.status_code == status
    assert response.json()["value"]["Message"] == message


async def test_trigger_of_an_unknown_collection_is_404(http, v2):
    response = await http.post(
        "/v2/callback/collection/eft/00000000-0000-4000-8000-000000000000/",
        json={"collectionStatus": "COMPLETED", "callbackVersion": "V2"},
        headers=v2,
    )
    assert response.status_code == 404
    assert response.json() == {"statusCode": 404, "message": "Resource not found"}
