"""Payouts through HTTP: create, read, list, every execution path, deadlines and settlement."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from emulator.runtime.runtime import Runtime
from tests.conftest import EPOCH_S

DAY = 86_400
CARD = {"cardholder_name": "Jane Doe", "expiry_month": "12", "expiry_year": "30"}
UNKNOWN_ID = "00000000-0000-4000-8000-000000000000"


def body(merchant: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {
        "client": {"email": "payee@example.com"},
        "payment": {"amount": 1500, "currency": "ZAR", "description": "Refund of order 7"},
        "brand_id": merchant["brand_id"],
        **extra,
    }


async def create(
    http: httpx.AsyncClient, gw: dict[str, str], merchant: dict[str, Any]
) -> dict[str, Any]:
    response = await http.post("/api/v1/payouts/", json=body(merchant), headers=gw)
    assert response.status_code == 201, response.text
    payout: dict[str, Any] = response.json()
    return payout


async def execute(
    http: httpx.AsyncClient, payout: dict[str, Any], number: str, **card: str
) -> httpx.Response:
    path = httpx.URL(payout["execution_url"]).path
    return await http.post(path, json={"card_number": number, **CARD, **card})


async def advance(http: httpx.AsyncClient, seconds: int) -> None:
    response = await http.post("/_emulator/clock/advance", json={"seconds": seconds})
    assert response.status_code == 200


async def read(http: httpx.AsyncClient, gw: dict[str, str], payout_id: str) -> dict[str, Any]:
    response = await http.get(f"/api/v1/payouts/{payout_id}/", headers=gw)
    assert response.status_code == 200
    found: dict[str, Any] = response.json()
    return found


async def ledger_rows(runtime: Runtime, payout_id: str) -> list[tuple[str, int, str]]:
    rows = await runtime.db.read(
        lambda tx: tx.all(
            "SELECT state, amount, kind FROM ledger WHERE object_id = ?", (payout_id,)
        )
    )
    return [(r[0], r[1], r[2]) for r in rows]


async def events_of(runtime: Runtime, payout_id: str) -> list[str]:
    rows = await runtime.db.read(
        lambda tx: tx.all(
            "SELECT event_type FROM outbox WHERE object_id = ? ORDER BY seq", (payout_id,)
        )
    )
    return [r[0] for r in rows]


async def test_create_returns_the_initialized_payout(http, gw, merchant):
    """POST /payouts/ answers 201 with the whole object and an execution_url of the emulator."""
    response = await http.post(
        "/api/v1/payouts/", json=body(merchant, reference="INV-1", sender_name="Acme"), headers=gw
    )
    assert response.status_code == 201
    payout = response.json()
    token = payout["execution_url"].rsplit("/", 2)[-2]
    assert payout["execution_url"] == f"http://emulator/payouts/{payout['id']}/execute/{token}/"
    assert payout == {
        "id": payout["id"],
        "type": "payout",
        "created_on": EPOCH_S,
        "updated_on": EPOCH_S,
        "client": payout["client"],
        "payment": {
            "is_outgoing": True,
            "payment_type": "payout",
            "amount": 1500,
            "currency": "ZAR",
            "net_amount": 1500,
            "fee_amount": 0,
            "pending_amount": 0,
            "pending_unfreeze_on": None,
            "description": "Refund of order 7",
            "paid_on": None,
            "remote_paid_on": None,
        },
        "brand_id": merchant["brand_id"],
        "company_id": merchant["company_id"],
        "is_test": True,
        "user_id": None,
        "reference": "INV-1",
        "reference_generated": payout["reference_generated"],
        "sender_name": "Acme",
        "execution_url": payout["execution_url"],
        "issuer_details": payout["issuer_details"],
        "status": "initialized",
        "status_history": [{"status": "initialized", "timestamp": EPOCH_S}],
        "transaction_data": {"payment_method": "", "extra": {}, "country": "", "attempts": []},
        "recipient_card_brand": "",
        "recipient_card_country": "",
        "payout_method_whitelist": None,
    }
    assert payout["client"]["email"] == "payee@example.com"
    assert payout["client"]["full_name"] == ""
    assert payout["reference_generated"].startswith("PO")


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        pytest.param(
            {"client": None},
            {"client": {"message": "This field is required.", "code": "required"}},
            id="no-client",
        ),
        pytest.param(
            {"payment": None},
            {"payment": {"message": "This field is required.", "code": "required"}},
            id="no-payment",
        ),
        pytest.param(
            {"brand_id": None},
            {"brand_id": {"message": "This field is required.", "code": "required"}},
            id="no-brand",
        ),
        pytest.param(
            {"client": {"full_name": "x"}},
            {"client.email": {"message": "This field is required.", "code": "required"}},
            id="no-email",
        ),
        pytest.param(
            {"payment": {"currency": "ZAR"}},
            {"payment.amount": {"message": "This field is required.", "code": "required"}},
            id="no-amount",
        ),
        pytest.param(
            {"payment": {"amount": 0, "currency": "ZAR"}},
            {"payment.amount": {"message": "Ensure this value is >= 1.", "code": "min_value"}},
            id="zero-amount",
        ),
        pytest.param(
            {"payment": {"amount": 5, "currency": "XXY"}},
            {
                "payment.currency": {
                    "message": "'XXY' is not a valid ISO 4217 currency code.",
                    "code": "invalid",
                }
            },
            id="bad-currency",
        ),
        pytest.param(
            {"reference": "r" * 129},
            {
                "reference": {
                    "message": "Ensure this field has no more than 128 characters.",
                    "code": "max_length",
                }
            },
            id="long-reference",
        ),
        pytest.param(
            {"brand_id": "nope"},
            {"brand_id": {"message": "'nope' is not a valid UUID.", "code": "invalid_uuid"}},
            id="brand-not-uuid",
        ),
        pytest.param(
            {"brand_id": UNKNOWN_ID},
            {"brand_id": {"message": "Brand with this id does not exist.", "code": "invalid"}},
            id="another-brand",
        ),
        pytest.param(
            {"payment": {"amount": "5.5", "currency": "ZAR"}},  # "5" is 5, as DRF reads it
            {"payment.amount": {"message": "A valid integer is required.", "code": "invalid"}},
            id="amount-type",
        ),
    ],
)
async def test_create_refuses_bad_bodies(http, gw, merchant, change, expected):
    """Each rule of the body answers 400 naming the field (dotted for nested ones)."""
    data = {k: v for k, v in {**body(merchant), **change}.items() if v is not None}
    response = await http.post("/api/v1/payouts/", json=data, headers=gw)
    assert (response.status_code, response.json()) == (400, expected)


async def test_read_and_list(http, gw, merchant):
    """GET by id and the paginated list, newest first; another merchant sees none of them."""
    first = await create(http, gw, merchant)
    second = await create(http, gw, merchant)
    assert await read(http, gw, first["id"]) == first
    listed = await http.get("/api/v1/payouts/?page_size=1", headers=gw)
    assert listed.json() == {
        "results": [second],
        "next": "http://emulator/api/v1/payouts/?page_size=1&page=2",
        "previous": None,
    }
    other = (await http.post("/_emulator/merchants")).json()
    other_gw = {"Authorization": f"Bearer {other['api_key']}"}
    assert (await http.get(f"/api/v1/payouts/{first['id']}/", headers=other_gw)).status_code == 404


async def test_test_card_success_at_once(http, gw, merchant, runtime):
    """4444 3333 2222 1111: 200, success, paid_on set; the ledger holds a settled debit."""
    payout = await create(http, gw, merchant)
    response = await execute(http, payout, "4444333322221111")
    assert response.status_code == 200
    done = response.json()
    assert done["status"] == "success"
    assert done["status_history"] == [
        {"status": "initialized", "timestamp": EPOCH_S},
        {"status": "success", "timestamp": EPOCH_S},
    ]
    assert done["payment"]["paid_on"] == EPOCH_S
    assert (done["recipient_card_brand"], done["recipient_card_country"]) == ("visa", "ZA")
    assert done["transaction_data"] == {
        "payment_method": "card",
        "extra": {},
        "country": "ZA",
        "attempts": [
            {
                "type": "execute",
                "successful": True,
                "payment_method": "card",
                "extra": {},
                "country": "ZA",
                "client_ip": "",
                "processing_time": EPOCH_S,
                "error": None,
            }
        ],
    }
    assert await read(http, gw, payout["id"]) == done
    assert await ledger_rows(runtime, payout["id"]) == [("settled", -1500, "payout")]
    assert await events_of(runtime, payout["id"]) == ["payout.created", "payout.success"]


async def test_pending_card_succeeds_after_three_days(http, gw, merchant, runtime):
    """5555 5555 5555 4444: pending (ledger pending), success three days later (settled)."""
    payout = await create(http, gw, merchant)
    response = await execute(http, payout, "5555555555554444")
    assert (response.status_code, response.json()["status"]) == (200, "pending")
    assert response.json()["recipient_card_brand"] == "mastercard"
    assert await ledger_rows(runtime, payout["id"]) == [("pending", -1500, "payout")]
    await advance(http, 3 * DAY - 1)
    assert (await read(http, gw, payout["id"]))["status"] == "pending"
    await advance(http, 1)
    done = await read(http, gw, payout["id"])
    assert done["status"] == "success"
    assert done["payment"]["paid_on"] == EPOCH_S + 3 * DAY
    assert [h["status"] for h in done["status_history"]] == ["initialized", "pending", "success"]
    assert await ledger_rows(runtime, payout["id"]) == [("settled", -1500, "payout")]
    assert await events_of(runtime, payout["id"]) == [
        "payout.created",
        "payout.pending",
        "payout.success",
    ]


async def test_pending_card_fails_after_five_days(http, gw, merchant, runtime):
    """4000 0000 0000 9995: pending, then error with payout.failed five days later (void)."""
    payout = await create(http, gw, merchant)
    assert (await execute(http, payout, "4000000000009995")).json()["status"] == "pending"
    await advance(http, 5 * DAY)
    done = await read(http, gw, payout["id"])
    assert done["status"] == "error"
    assert done["transaction_data"]["attempts"][0]["error"] == {
        "code": "payout_failed",
        "message": "The payout was returned by the issuer.",
    }
    assert await ledger_rows(runtime, payout["id"]) == [("void", -1500, "payout")]
    assert await events_of(runtime, payout["id"]) == [
        "payout.created",
        "payout.pending",
        "payout.failed",
    ]


@pytest.mark.parametrize(
    ("number", "message"),
    [
        pytest.param(
            "4000000000000002",
            "The card issuer declined the payout (do_not_honour).",
            id="test-card",
        ),
        pytest.param(
            "4000000000000127",
            "The card issuer declined the payout (invalid_card_number).",
            id="other-luhn-valid",
        ),
    ],
)
async def test_declined_card_is_400_and_error(http, gw, merchant, runtime, number, message):
    """A declined card answers 400 with code and message; the payout ends in error."""
    payout = await create(http, gw, merchant)
    response = await execute(http, payout, number)
    assert (response.status_code, response.json()) == (
        400,
        {"__all__": {"message": message, "code": "card_declined"}},
    )
    done = await read(http, gw, payout["id"])
    assert done["status"] == "error"
    assert done["transaction_data"]["attempts"][0]["error"] == {
        "code": "card_declined",
        "message": message,
    }
    assert await ledger_rows(runtime, payout["id"]) == []
    assert await events_of(runtime, payout["id"]) == ["payout.created", "payout.failed"]


async def test_second_execution_is_refused(http, gw, merchant):
    """An executed payout cannot be executed again."""
    payout = await create(http, gw, merchant)
    await execute(http, payout, "4444333322221111")
    again = await execute(http, payout, "4444333322221111")
    assert (again.status_code, again.json()) == (
        400,
        {
            "__all__": {
                "message": "The payout has already been executed.",
                "code": "payout_already_executed",
            }
        },
    )


EXPIRED = {
    "__all__": {
        "message": "The payout can no longer be executed: 15 minutes have passed since its creation.",
        "code": "payout_expired",
    }
}


async def test_not_executed_within_15_minutes_ends_in_error(http, gw, merchant, runtime):
    """At creation + 15 minutes the payout is error (payout.failed); executing then is 400."""
    payout = await create(http, gw, merchant)
    await advance(http, 15 * 60 - 1)
    assert (await read(http, gw, payout["id"]))["status"] == "initialized"
    await advance(http, 1)
    done = await read(http, gw, payout["id"])
    assert done["status"] == "error"
    assert done["transaction_data"]["attempts"][0]["error"]["code"] == "payout_expired"
    response = await execute(http, payout, "4444333322221111")
    assert (response.status_code, response.json()) == (400, EXPIRED)
    assert await events_of(runtime, payout["id"]) == ["payout.created", "payout.failed"]


async def test_execution_after_the_window_ends_it_even_before_its_job(http, gw, merchant, runtime):
    """A clock that jumped past the window (no job run yet): the execution itself ends it."""
    payout = await create(http, gw, merchant)
    runtime.clock.server.set_us((EPOCH_S + 16 * 60) * 1_000_000)  # no job has run
    response = await execute(http, payout, "4444333322221111")
    assert (response.status_code, response.json()) == (400, EXPIRED)
    assert (await read(http, gw, payout["id"]))["status"] == "error"


@pytest.mark.parametrize(
    ("card", "expected"),
    [
        pytest.param(
            {"card_number": "444433332222111"},
            {
                "card_number": {
                    "message": "Card number must be 16 to 19 digits.",
                    "code": "invalid_card_data",
                }
            },
            id="short",
        ),
        pytest.param(
            {"card_number": "4444333322221112"},
            {"card_number": {"message": "Card number is not valid.", "code": "invalid_card_data"}},
            id="not-luhn",
        ),
        pytest.param(
            {"cardholder_name": "J" * 31},
            {
                "cardholder_name": {
                    "message": "Cardholder name must be 1 to 30 Latin letters, spaces, apostrophes, dots or dashes.",
                    "code": "invalid_card_data",
                }
            },
            id="long-name",
        ),
        pytest.param(
            {"expiry_month": "13"},
            {
                "expiry_month": {
                    "message": "Expiry month must be 1 to 2 digits, 1 to 12.",
                    "code": "invalid_card_data",
                }
            },
            id="month",
        ),
        pytest.param(
            {"expiry_year": "2030"},
            {
                "expiry_year": {
                    "message": "Expiry year must be 1 to 2 digits.",
                    "code": "invalid_card_data",
                }
            },
            id="year-digits",
        ),
        pytest.param(
            {"expiry_month": "12", "expiry_year": "25"},
            {"expiry_year": {"message": "The card has expired.", "code": "invalid_card_data"}},
            id="expired",
        ),
        pytest.param(
            {"card_number": None},
            {"card_number": {"message": "This field is required.", "code": "required"}},
            id="missing",
        ),
    ],
)
async def test_bad_card_payload_is_400_and_leaves_the_payout_initialized(
    http, gw, merchant, card, expected
):
    """Card field rules answer 400 invalid_card_data; the payout can still be executed."""
    payout = await create(http, gw, merchant)
    data = {"card_number": "4444333322221111", **CARD, **card}
    data = {k: v for k, v in data.items() if v is not None}
    response = await http.post(httpx.URL(payout["execution_url"]).path, json=data)
    assert (response.status_code, response.json()) == (400, expected)
    assert (await execute(http, payout, "4444333322221111")).status_code == 200


async def test_execution_url_needs_its_token(http, gw, merchant):
    """The URL is the capability: a wrong token is an unknown payout."""
    payout = await create(http, gw, merchant)
    response = await http.post(f"/payouts/{payout['id']}/execute/wrong/", json={})
    assert (response.status_code, response.json()) == (
        404,
        {"__all__": {"message": "No such object", "code": "payout_not_found"}},
    )


async def test_control_plane_settles_a_pending_payout_now(http, gw, merchant, runtime):
    """POST /_emulator/payouts/{id}/settle settles now, as planned or as told."""
    planned = await create(http, gw, merchant)
    await execute(http, planned, "5555555555554444")
    response = await http.post(f"/_emulator/payouts/{planned['id']}/settle")
    assert (response.status_code, response.json()["status"]) == (200, "success")
    told = await create(http, gw, merchant)
    await execute(http, told, "5555555555554444")
    response = await http.post(f"/_emulator/payouts/{told['id']}/settle", json={"status": "failed"})
    assert (response.status_code, response.json()["status"]) == (200, "error")
    assert await ledger_rows(runtime, told["id"]) == [("void", -1500, "payout")]
    await advance(http, 4 * DAY)  # the planned settlement job finds it settled: no change
    assert (await read(http, gw, told["id"]))["status"] == "error"
    assert await events_of(runtime, told["id"]) == [
        "payout.created",
        "payout.pending",
        "payout.failed",
    ]


@pytest.mark.parametrize(
    ("path", "json", "status", "error"),
    [
        pytest.param(
            f"/_emulator/payouts/{UNKNOWN_ID}/settle",
            None,
            404,
            {"code": "payout_not_found", "message": "no payout with this id"},
            id="unknown",
        ),
        pytest.param(
            "/_emulator/payouts/{id}/settle",
            {"status": "maybe"},
            400,
            {"code": "invalid", "message": '\'status\' must be "success" or "failed"'},
            id="bad-status",
        ),
        pytest.param(
            "/_emulator/payouts/{id}/settle",
            None,
            409,
            {"code": "payout_not_pending", "message": "the payout is initialized, not pending"},
            id="not-pending",
        ),
    ],
)
async def test_control_plane_settle_refusals(http, gw, merchant, path, json, status, error):
    """Settling what cannot be settled answers in the control plane's dialect."""
    payout = await create(http, gw, merchant)
    response = await http.post(path.format(id=payout["id"]), json=json)
    assert (response.status_code, response.json()) == (status, {"error": error})
