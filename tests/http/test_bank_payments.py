"""v2 EFT payments: required fields, the R5,000,000 limit, service types, real-time clearing,
outcomes on the clock and settle."""

from __future__ import annotations

import pytest

from tests.http.bank_helpers import advance, advance_to, bad_request, debtor


@pytest.fixture
def profile(merchant):
    return merchant["profiles"][0]["profileCode"]


def payment(profile, account="62000000001", **changes):
    body = {
        "debtor": debtor("4052218811", "051001"),
        "creditor": {"accountNumber": account, "branchCode": "250655", "name": "Supplier"},
        "amountCents": 250_000,
        "paymentDate": "2026-01-05T00:00:00Z",
        "profileCode": profile,
        "abbreviatedName": "PAYROLL",
        "contractReference": "INV-1",
        "serviceType": "ONEDAY",
        "externalReference": "PAY-1",
    }
    body.update(changes)
    return body


async def status_of(http, v2, created):
    response = await http.get(f"/v2/payment/eft/{created['id']}/status", headers=v2)
    assert response.status_code == 200
    return response.json()


async def test_payment_is_pending_then_completed_on_its_action_date(http, v2, profile):
    body = payment(profile, serviceType="SAMEDAY")
    response = await http.post("/v2/payment/eft", json=body, headers=v2)
    assert response.status_code == 201
    created = response.json()
    assert (created["status"], created["actionDate"]) == ("PENDING", "2026-01-05")
    assert await status_of(http, v2, created) == created
    await advance_to(http, "2026-01-05T15:59:59Z")
    assert (await status_of(http, v2, created))["status"] == "PENDING"
    await advance_to(http, "2026-01-05T16:00:00Z")
    assert (await status_of(http, v2, created))["status"] == "COMPLETED"


async def test_real_time_clearing_lands_in_seconds(http, v2, profile):
    created = (
        await http.post("/v2/payment/eft", json=payment(profile, realTimeClearing=True), headers=v2)
    ).json()
    assert created["realTimeClearing"] is True
    await advance(http, 10)
    assert (await status_of(http, v2, created))["status"] == "COMPLETED"


@pytest.mark.parametrize(
    ("account", "status"),
    [
        pytest.param("110000002", "UNPAID", id="unpaid"),
        pytest.param("910000001", "REJECTED", id="rejected"),
        pytest.param("110000001", "COMPLETED", id="completed"),
    ],
)
async def test_test_accounts_apply_to_the_creditor(http, v2, profile, account, status):
    created = (
        await http.post("/v2/payment/eft", json=payment(profile, account), headers=v2)
    ).json()
    await advance(http, 41)
    assert (await status_of(http, v2, created))["status"] == status


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        pytest.param(
            {"amountCents": 500_000_000}, "amountCents: exceeds industry imposed limits", id="limit"
        ),
        pytest.param({"creditor": None}, "creditor is required", id="creditor"),
        pytest.param({"paymentDate": None}, "paymentDate is required", id="date"),
        pytest.param({"abbreviatedName": ""}, "abbreviatedName is required", id="name"),
        pytest.param({"contractReference": None}, "contractReference is required", id="contract"),
        pytest.param({"profileCode": "DEFAULT01"}, "profile code does not exist", id="rule-1"),
        pytest.param(
            {"creditor": {"accountNumber": "62000000001", "branchCode": "25065"}},
            "creditor.branchCode is required and must be 6 digits",
            id="creditor-branch-5-digits",
        ),
        pytest.param(
            {"creditor": {"accountNumber": "\u00b2" * 9, "branchCode": "250655"}},
            "creditor.accountNumber is required and must be digits",
            id="creditor-account-superscripts",
        ),
    ],
)
async def test_invalid_payments_are_400(http, v2, profile, changes, message):
    response = await http.post("/v2/payment/eft", json=payment(profile, **changes), headers=v2)
    assert response.json() == bad_request(message)


async def test_just_under_the_limit_is_accepted(http, v2, profile):
    response = await http.post(
        "/v2/payment/eft", json=payment(profile, amountCents=499_999_999), headers=v2
    )
    assert response.status_code == 201


async def test_settle_a_payment_and_its_events(http, v2, profile):
    created = (await http.post("/v2/payment/eft", json=payment(profile), headers=v2)).json()
    settled = await http.post(
        f"/_emulator/payments/{created['id']}/settle", json={"status": "REJECTED"}
    )
    assert settled.json()["status"] == "REJECTED"
    again = await http.post(f"/_emulator/payments/{created['id']}/settle")
    assert again.status_code == 409
    events = (await http.get(f"/v2/event/payment?paymentId={created['id']}", headers=v2)).json()
    assert [e["state"] for e in events] == ["PENDING", "REJECTED"]
    assert (await http.get("/v2/payment/eft/nope/status", headers=v2)).status_code == 404
