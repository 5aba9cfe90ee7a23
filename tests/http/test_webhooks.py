"""Webhooks CRUD and the company public key, through HTTP."""

from __future__ import annotations

from typing import Any

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from emulator.gateway.webhooks.rules import CONTROL_IN_TITLE, EVENTS
from tests.conftest import EPOCH_S

UNKNOWN_ID = "00000000-0000-4000-8000-000000000000"
SINK = "http://127.0.0.1:8400/_emulator/sink/hooks"


def rsa_public_key(pem: str) -> rsa.RSAPublicKey:
    key = serialization.load_pem_public_key(pem.encode())
    assert isinstance(key, rsa.RSAPublicKey)
    return key


async def test_create_read_list_update_delete(http, gw):
    """The whole life of a webhook; its key pair stays through updates."""
    created = await http.post(
        "/api/v1/webhooks/",
        json={"title": "Payouts", "events": ["payout.success"], "callback": SINK},
        headers=gw,
    )
    assert created.status_code == 201
    hook = created.json()
    assert hook == {
        "id": hook["id"],
        "type": "webhook",
        "created_on": EPOCH_S,
        "updated_on": EPOCH_S,
        "title": "Payouts",
        "all_events": False,
        "events": ["payout.success"],
        "callback": SINK,
        "public_key": hook["public_key"],
    }
    assert rsa_public_key(hook["public_key"]).key_size == 2048
    path = f"/api/v1/webhooks/{hook['id']}/"
    assert (await http.get(path, headers=gw)).json() == hook
    listed = await http.get("/api/v1/webhooks/", headers=gw)
    assert listed.json() == {"results": [hook], "next": None, "previous": None}

    patched = await http.patch(path, json={"all_events": True, "public_key": "x"}, headers=gw)
    assert patched.status_code == 200
    assert patched.json() == {**hook, "all_events": True, "events": list(EVENTS)}
    replaced = await http.put(
        path, json={"title": "All", "all_events": True, "callback": SINK}, headers=gw
    )
    assert replaced.json() == {
        **hook,
        "title": "All",
        "all_events": True,
        "events": list(EVENTS),
    }

    assert (await http.delete(path, headers=gw)).status_code == 204
    gone = await http.get(path, headers=gw)
    assert (gone.status_code, gone.json()) == (
        404,
        {"__all__": {"message": "No such object", "code": "webhook_not_found"}},
    )
    assert (await http.delete(path, headers=gw)).status_code == 404


async def test_a_webhook_on_all_events_lists_every_event(http, gw):
    """Created with ``all_events``, a webhook lists every event of the document in
    ``events``, whatever ``events`` was given, as the provider answers."""
    created = await http.post(
        "/api/v1/webhooks/",
        json={"title": "All", "all_events": True, "events": ["payout.failed"], "callback": SINK},
        headers=gw,
    )
    assert created.status_code == 201
    hook = created.json()
    assert hook["events"] == [
        "purchase.created",
        "purchase.paid",
        "purchase.payment_failure",
        "purchase.pending_execute",
        "purchase.pending_charge",
        "purchase.cancelled",
        "purchase.hold",
        "purchase.captured",
        "purchase.pending_capture",
        "purchase.released",
        "purchase.pending_release",
        "purchase.preauthorized",
        "purchase.pending_recurring_token_delete",
        "purchase.recurring_token_deleted",
        "purchase.subscription_charge_failure",
        "purchase.pending_refund",
        "payment.refunded",
        "billing_template_client.subscription_billing_cancelled",
        "payout.pending",
        "payout.failed",
        "payout.success",
    ]
    read = await http.get(f"/api/v1/webhooks/{hook['id']}/", headers=gw)
    assert read.json() == hook


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        pytest.param(
            {"events": ["payout.success"], "callback": SINK},
            {"title": {"message": "This field is required.", "code": "required"}},
            id="no-title",
        ),
        pytest.param(
            {"title": "t", "events": ["payout.success"]},
            {"callback": {"message": "This field is required.", "code": "required"}},
            id="no-callback",
        ),
        pytest.param(
            {"title": "t", "callback": SINK},
            {"events": {"message": "Either events or all_events is required.", "code": "invalid"}},
            id="no-events",
        ),
        pytest.param(
            {"title": "t", "events": ["payout.done"], "callback": SINK},
            {"events.0": {"message": '"payout.done" is not a valid choice.', "code": "invalid"}},
            id="unknown-event",
        ),
        pytest.param(
            {"title": "t", "all_events": True, "callback": "http://example.com/hook"},
            {
                "callback": {
                    "message": "The callback URL must use HTTPS (or be on loopback or a host of --callback-hosts).",
                    "code": "webhook_url_invalid",
                }
            },
            id="plain-http",
        ),
        pytest.param(
            {"title": "t", "all_events": True, "callback": "ftp://example.com/"},
            {"callback": {"message": "Enter a valid URL.", "code": "invalid"}},
            id="not-a-url",
        ),
        pytest.param(
            {"title": "t" * 101, "all_events": True, "callback": SINK},
            {
                "title": {
                    "message": "Ensure this field has no more than 100 characters.",
                    "code": "max_length",
                }
            },
            id="long-title",
        ),
        pytest.param(
            {"title": "t", "all_events": "yes", "callback": SINK},
            {"all_events": {"message": "Expected `bool`, got `str`.", "code": "invalid"}},
            id="wrong-type",
        ),
    ],
)
async def test_create_refuses_bad_bodies(http, gw, data, expected):
    """Each rule answers 400 in the gateway dialect."""
    response = await http.post("/api/v1/webhooks/", json=data, headers=gw)
    assert (response.status_code, response.json()) == (400, expected)


@pytest.mark.parametrize("bad", ["a\nb", "a\rb", "a\x00b", "\x1b[31mred", "tab\there", "\x85"])
async def test_a_title_with_a_control_character_is_refused(http, gw, bad):
    """LF, CR, NUL, ESC (and every other control character) would break the console's and
    the CLI's lines: refused at creation and at an update, in the gateway dialect."""
    expected = {"title": {"message": CONTROL_IN_TITLE, "code": "invalid"}}
    body = {"title": bad, "all_events": True, "callback": SINK}
    response = await http.post("/api/v1/webhooks/", json=body, headers=gw)
    assert (response.status_code, response.json()) == (400, expected)
    made = await http.post("/api/v1/webhooks/", json={**body, "title": "fine"}, headers=gw)
    assert made.status_code == 201
    path = f"/api/v1/webhooks/{made.json()['id']}/"
    patched = await http.patch(path, json={"title": bad}, headers=gw)
    assert (patched.status_code, patched.json()) == (400, expected)
    assert (await http.get(path, headers=gw)).json()["title"] == "fine"


@pytest.mark.parametrize(
    "callback",
    ["https://hooks.example.com/x", "http://localhost:9000/x", "http://[::1]:9000/x"],
)
async def test_https_or_loopback_callbacks_are_accepted(http, gw, callback):
    """HTTPS anywhere; plain HTTP only on loopback hosts."""
    response = await http.post(
        "/api/v1/webhooks/",
        json={"title": "t", "all_events": True, "callback": callback},
        headers=gw,
    )
    assert response.status_code == 201


async def test_webhooks_are_the_merchants_own(http, gw):
    """Another merchant's webhook is a 404 and absent from the list."""
    hook = (
        await http.post(
            "/api/v1/webhooks/",
            json={"title": "t", "all_events": True, "callback": SINK},
            headers=gw,
        )
    ).json()
    other = (await http.post("/_emulator/merchants")).json()
    other_gw = {"Authorization": f"Bearer {other['api_key']}"}
    assert (await http.get(f"/api/v1/webhooks/{hook['id']}/", headers=other_gw)).status_code == 404
    assert (await http.get("/api/v1/webhooks/", headers=other_gw)).json()["results"] == []


async def test_public_key_is_a_json_string_of_pem_and_stays(http, gw, merchant: dict[str, Any]):
    """GET /public_key/ returns the company key as a JSON string, the same every time."""
    first = await http.get("/api/v1/public_key/", headers=gw)
    assert first.status_code == 200
    pem = first.json()
    assert isinstance(pem, str) and pem.startswith("-----BEGIN PUBLIC KEY-----")
    assert rsa_public_key(pem).key_size == 2048
    assert (await http.get("/api/v1/public_key/", headers=gw)).json() == pem
    other = (await http.post("/_emulator/merchants")).json()
    other_gw = {"Authorization": f"Bearer {other['api_key']}"}
    assert (await http.get("/api/v1/public_key/", headers=other_gw)).json() != pem
