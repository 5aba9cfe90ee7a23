"""v2 callback registration, and the messages each status change routes to (messages_for)."""

from __future__ import annotations

import json

import pytest

from emulator.bank.callbacks.router import BankCallback, messages_for
from emulator.bank.events.repo import events
from emulator.kernel.outbox import StoredEvent
from tests.conftest import DEFAULT_CLIENT, token_for
from tests.http.bank_helpers import advance, bad_request, debicheck_body, eft_body


@pytest.fixture
def client_number(merchant):
    return merchant["profiles"][0]["createdByClient"]


@pytest.fixture
def profile(merchant):
    return merchant["profiles"][0]["profileCode"]


def registration(client, url="https://merchant.example/cb", kind="EFT_COLLECTION"):
    return {"clientId": client, "url": url, "callbackType": kind, "callbackVersion": "V2"}


async def register(http, v2, body):
    response = await http.post("/v2/clientcallbackurl/", json=body, headers=v2)
    assert response.status_code == 200, response.text
    return response.json()


async def test_registration_echoes_the_fields_and_adds_an_id(http, v2, client_number):
    body = registration(client_number)
    answer = await register(http, v2, body)
    assert answer == {"id": answer["id"], **body}
    assert isinstance(answer["id"], str)


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        pytest.param(
            {"clientId": 1001},
            "clientId does not match the profile's createdByClient",
            id="other-client",
        ),
        pytest.param({"url": "http://merchant.example/cb"}, "url: must be HTTPS", id="plain-http"),
        pytest.param({"url": "ftp://merchant.example/cb"}, "url: not a valid URL", id="scheme"),
        pytest.param({"url": "https://"}, "url: not a valid URL", id="no-host"),
        pytest.param({"url": "https://x.example:99999/"}, "url: not a valid URL", id="bad-port"),
        pytest.param(
            {"callbackVersion": "V9"}, "callbackVersion: 'V9' is not one of V1, V2", id="version"
        ),
        pytest.param({"url": None}, "url is required", id="no-url"),
    ],
)
async def test_invalid_registrations_are_400(http, v2, client_number, changes, message):
    body = {**registration(client_number), **changes}
    response = await http.post("/v2/clientcallbackurl/", json=body, headers=v2)
    assert response.json() == bad_request(message)


async def test_unknown_callback_type_is_400(http, v2, client_number):
    body = registration(client_number, kind="SMS")
    assert (await http.post("/v2/clientcallbackurl/", json=body, headers=v2)).status_code == 400


@pytest.mark.parametrize(
    "url", ["http://127.0.0.1:8400/_emulator/sink/cb", "http://localhost/cb", "http://[::1]/x"]
)
async def test_plain_http_is_fine_on_loopback(http, v2, client_number, url):
    await register(http, v2, registration(client_number, url))


async def route(runtime, object_id) -> list[list[BankCallback]]:
    def unit(tx):
        merchant = tx.one("SELECT merchant_id FROM outbox WHERE object_id = ?", (object_id,))[0]
        kinds = ("bank_collection", "bank_mandate", "bank_payment")
        found: list[StoredEvent] = [
            e for kind in kinds for e in events(tx, merchant, kind, {"objectId": object_id}, 0, 100)
        ]
        return [messages_for(tx, e) for e in sorted(found, key=lambda e: e.seq)]

    return await runtime.db.read(unit)


async def test_every_eft_collection_status_change_routes_to_every_url(
    runtime, http, v2, client_number, profile
):
    """Two EFT_COLLECTION URLs: each status change is one message per URL with the spec's body."""
    await register(http, v2, registration(client_number, "https://a.example/cb"))
    await register(http, v2, registration(client_number, "https://b.example/cb"))
    await register(http, v2, registration(client_number, "https://c.example/cb", "EFT_PAYMENT"))
    created = (await http.post("/v2/collection/eft", json=eft_body(profile), headers=v2)).json()
    await advance(http, 41)
    completed = (await http.get(f"/v2/collection/eft/{created['id']}/status", headers=v2)).json()
    routed = await route(runtime, created["id"])
    assert [[(m.url, m.status) for m in messages] for messages in routed] == [
        [("https://a.example/cb", "PENDING"), ("https://b.example/cb", "PENDING")],
        [("https://a.example/cb", "COMPLETED"), ("https://b.example/cb", "COMPLETED")],
    ]
    message = routed[1][0]
    assert (message.callback_type, message.object_id) == ("EFT_COLLECTION", created["id"])
    assert json.loads(message.body) == {
        "id": created["id"],
        "type": "EFT_COLLECTION",
        "status": "COMPLETED",
        "mandateId": created["mandateId"],
        "contractReference": "C-1",
        "amountCents": 12_345,
        "collectionDate": None,
        "statementId": completed["statementId"],
        "reasonCode": None,
        "reason": None,
        "timestamp": "2026-01-05T09:00:40Z",
    }


async def test_debicheck_mandate_and_collection_bodies(runtime, http, v2, client_number, profile):
    await register(http, v2, registration(client_number, kind="DEBICHECK_MANDATE"))
    await register(http, v2, registration(client_number, kind="DEBICHECK_COLLECTION"))
    mandate = (
        await http.post("/v2/mandate/debicheck", json=debicheck_body(profile), headers=v2)
    ).json()
    await http.post(f"/_emulator/mandates/{mandate['id']}/authorise")
    routed = await route(runtime, mandate["id"])
    assert [json.loads(m[0].body) for m in routed] == [
        {
            "id": mandate["id"],
            "type": "DEBICHECK_MANDATE",
            "status": status,
            "contractReference": "C-9",
            "authenticationType": "REALTIME",
            "timestamp": "2026-01-05T09:00:00Z",
        }
        for status in ("PENDING_AUTHENTICATION", "AUTHENTICATED")
    ]
    body = {"mandateId": mandate["id"], "amountCents": 700, "externalReference": "X"}
    collection = (
        await http.post("/v2/collection/debicheck/from_mandate", json=body, headers=v2)
    ).json()
    [[message]] = await route(runtime, collection["id"])
    assert json.loads(message.body) == {
        "id": collection["id"],
        "type": "DEBICHECK_COLLECTION",
        "status": "PENDING",
        "mandateId": mandate["id"],
        "amountCents": 700,
        "reasonCode": None,
        "reason": None,
        "timestamp": "2026-01-05T09:00:00Z",
    }


async def test_no_registration_or_eft_mandate_means_no_message(
    runtime, http, v2, client_number, profile
):
    """Nothing registered for the type (or an EFT mandate, which has no type): no messages."""
    await register(http, v2, registration(client_number, kind="EFT_PAYMENT"))
    created = (await http.post("/v2/collection/eft", json=eft_body(profile), headers=v2)).json()
    assert await route(runtime, created["id"]) == [[]]
    assert await route(runtime, created["mandateId"]) == [[]]


async def test_another_merchants_urls_get_nothing(runtime, http, v2, profile):
    """The default merchant's registration never receives this merchant's events."""
    token = await token_for(http, *DEFAULT_CLIENT)
    await register(http, {"Authorization": f"Bearer {token}"}, registration(1001))
    created = (await http.post("/v2/collection/eft", json=eft_body(profile), headers=v2)).json()
    assert await route(runtime, created["id"]) == [[]]
