"""emulator.testing's typed helpers that act for the payer, provider, debtor and bank, and
read the delivery log, against a real emulator served in this process."""

from __future__ import annotations

import threading
from typing import Any

import httpx
import pytest

from emulator.testing import (
    Delivery,
    EmulatorClient,
    EmulatorError,
    Merchant,
)
from tests.conftest import LIVE_START

START = LIVE_START  # the shared live server's (tests/conftest.py)


@pytest.fixture
def merchant(control: EmulatorClient) -> Merchant:
    made = control.new_merchant(clock="frozen", now=START)
    sink = control.sink(prefix="actors").url
    with control.gateway(made) as gateway:
        hook = {"title": "all", "callback": sink, "all_events": True}
        assert gateway.post("webhooks/", json=hook).status_code == 201
    with control.bank(made) as bank:
        for kind in ("EFT_COLLECTION", "DEBICHECK_MANDATE", "EFT_PAYMENT"):
            body = {
                "clientId": made.profiles[0].created_by_client,
                "url": sink,
                "callbackType": kind,
                "callbackVersion": "V2",
            }
            assert bank.post("clientcallbackurl/", json=body).status_code == 200
    return made


def purchase(control: EmulatorClient, merchant: Merchant, **fields: Any) -> dict[str, Any]:
    body = {
        "client": {"email": "payer@example.com"},
        "purchase": {"products": [{"name": "Book", "price": 2500}]},
        "brand_id": merchant.brand_id,
        **fields,
    }
    with control.gateway(merchant) as gateway:
        response = gateway.post("purchases/", json=body)
    assert response.status_code == 201, response.text
    made: dict[str, Any] = response.json()
    return made


def test_pay_with_the_default_card_and_a_declining_one(control, merchant) -> None:
    paid = control.pay(purchase(control, merchant)["id"])
    assert paid["status"] == "paid"
    declined = control.pay(purchase(control, merchant)["id"], "4000000000009995", cvc="123")
    assert declined["status"] == "error"
    assert declined["transaction_data"]["attempts"][0]["error"]["code"] == "insufficient_funds"
    held = control.pay(purchase(control, merchant, skip_capture=True)["id"], remember_card=True)
    assert held["status"] == "hold"
    with pytest.raises(EmulatorError) as refused:
        control.pay(paid["id"])
    assert refused.value.status == 409


def test_deliveries_are_typed_records_and_can_be_waited_for(control, merchant) -> None:
    paid = control.pay(purchase(control, merchant)["id"])
    delivery = control.wait_for_delivery("purchase.paid", merchant, object_id=paid["id"])
    assert isinstance(delivery, Delivery)
    assert (delivery.kind, delivery.status, delivery.success) == ("webhook", 200, True)
    assert delivery.json()["id"] == paid["id"] and delivery.headers["X-Signature"]
    assert delivery.at.isoformat() == "2026-01-05T09:00:00+00:00"
    newest_first = control.deliveries(merchant, object_id=paid["id"])
    assert [d.event_type for d in newest_first] == ["purchase.paid", "purchase.created"]
    after = control.deliveries(merchant, after=newest_first[1].id)
    assert [d.id for d in after] == [newest_first[0].id]
    assert control.deliveries(merchant.company_id, kind="callback") == []
    with pytest.raises(TimeoutError, match=r"no purchase.refunded delivery in 0.1s"):
        control.wait_for_delivery("purchase.refunded", merchant, timeout=0.1)


def test_waiting_for_a_delivery_of_any_merchant(control, merchant) -> None:
    """Without a merchant, wait_for_delivery is the delivery log's wait: open while nothing
    came, answered by the attempt recorded meanwhile, in one request of the wait (after one
    read of the log): a wait that polled would have made more."""
    made = purchase(control, merchant)
    sent: list[str] = []

    def count(request: httpx.Request) -> None:
        sent.append(request.url.path)

    def pay_once_waiting() -> None:
        for _ in range(1000):
            if control.call("GET", "waits")["open"] == 1:
                control.pay(made["id"])
                return
            threading.Event().wait(0.005)

    payer = threading.Thread(target=pay_once_waiting)
    with EmulatorClient(control.url) as waiter:
        waiter.http.event_hooks["request"].append(count)
        payer.start()
        try:
            delivery = waiter.wait_for_delivery("purchase.paid", object_id=made["id"], timeout=30)
        finally:
            payer.join()
    assert (delivery.event_type, delivery.object_id) == ("purchase.paid", made["id"])
    assert sent == ["/_emulator/deliveries", "/_emulator/deliveries/wait"]
    with pytest.raises(TimeoutError, match=r"no purchase.refunded delivery in 0.1s"):
        control.wait_for_delivery("purchase.refunded", object_id=made["id"], timeout=0.1)


def test_settle_a_payout_now(control, merchant) -> None:
    body = {
        "client": {"email": "payee@example.com"},
        "payment": {"amount": 500, "currency": "ZAR", "description": "Payout"},
        "brand_id": merchant.brand_id,
    }
    card = {
        "card_number": "5555555555554444",
        "cardholder_name": "Jane",
        "expiry_month": "12",
        "expiry_year": "30",
    }
    with control.gateway(merchant) as gateway:
        payout = gateway.post("payouts/", json=body).json()
        executed = gateway.post(payout["execution_url"], json=card)
    assert executed.json()["status"] == "pending"
    assert control.settle_payout(payout["id"], "failed")["status"] == "error"
    with pytest.raises(EmulatorError) as refused:
        control.settle_payout(payout["id"])
    assert refused.value.code == "payout_not_pending"
    assert control.wait_for_delivery("payout.failed", merchant).object_id == payout["id"]


def test_the_debtor_and_the_bank(control, merchant) -> None:
    profile = merchant.profiles[0].profile_code
    debtor = {"accountNumber": "62000000001", "branchCode": "250655", "name": "J Doe"}
    with control.bank(merchant) as bank:
        mandate = bank.post(
            "mandate/debicheck",
            json={
                "debtor": debtor,
                "profileCode": profile,
                "externalReference": "M-1",
                "maxAmountCents": 5000,
            },
        ).json()
        rejected = bank.post(
            "mandate/debicheck",
            json={
                "debtor": debtor,
                "profileCode": profile,
                "externalReference": "M-2",
                "maxAmountCents": 5000,
            },
        ).json()
        collection = bank.post(
            "collection/eft",
            json={
                "debtor": debtor,
                "profileCode": profile,
                "externalReference": "C-1",
                "amountCents": 1000,
            },
        ).json()
        payment = bank.post(
            "payment/eft",
            json={
                "debtor": {"accountNumber": "4052218811", "branchCode": "051001"},
                "creditor": debtor,
                "amountCents": 1000,
                "paymentDate": "2026-01-05",
                "profileCode": profile,
                "abbreviatedName": "PAY",
                "contractReference": "P-1",
            },
        ).json()
    assert control.authorise_mandate(mandate["id"])["status"] == "AUTHENTICATED"
    assert control.reject_mandate(rejected["id"])["status"] == "REJECTED"
    assert control.settle_collection(collection["id"], "UNPAID")["status"] == "UNPAID"
    assert control.settle_payment(payment["id"])["status"] == "COMPLETED"
    callbacks = control.deliveries(merchant, kind="callback", limit=20)
    assert {"mandate.authenticated", "mandate.rejected", "collection.unpaid"} <= {
        d.event_type for d in callbacks
    }
    assert control.wait_for_delivery("payment.completed", merchant).json()["status"] == "COMPLETED"
