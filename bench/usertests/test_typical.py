"""Twelve typical tests, as a new user writes them with the pytest plugin's fixtures: each a
merchant with its own clock (``gateway``), a webhook to a sink (``emulator_sink``), a purchase
(on hold or not) or a payout, paid or executed, days advanced (``emulator_clock``), and the
webhook waited for in the sink. ``bench/pertest.py`` runs this file in a pytest of its own
(``-p xdist -n 2`` against one served emulator, and in process), for its wall time; it is not
part of the project's suite (``testpaths`` is ``tests``)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import httpx
import pytest

from emulator.testing import EmulatorClient, EmulatorClock, Merchant, Sink

DECLINED = "4000000000009995"  # insufficient funds (the test values)
SLOW_PAYOUT = "5555555555554444"  # a payout that settles days later (the test values)


def _hook(gateway: httpx.Client, sink: Sink, *events: str) -> None:
    body = {"title": "hook", "callback": sink.url, "events": list(events)}
    assert gateway.post("webhooks/", json=body).status_code == 201


def _purchase(gateway: httpx.Client, merchant: Merchant, **fields: Any) -> dict[str, Any]:
    body = {
        "client": {"email": "payer@example.com"},
        "purchase": {"products": [{"name": "Book", "price": 2500}]},
        "brand_id": merchant.brand_id,
        **fields,
    }
    response = gateway.post("purchases/", json=body)
    assert response.status_code == 201, response.text
    made: dict[str, Any] = response.json()
    return made


def _payout(gateway: httpx.Client, merchant: Merchant) -> dict[str, Any]:
    body = {
        "client": {"email": "payee@example.com"},
        "payment": {"amount": 500, "currency": "ZAR", "description": "Payout"},
        "brand_id": merchant.brand_id,
    }
    response = gateway.post("payouts/", json=body)
    assert response.status_code == 201, response.text
    made: dict[str, Any] = response.json()
    return made


@pytest.mark.parametrize("days", [1, 2, 3, 7])
def test_paid_purchase_is_announced(
    gateway: httpx.Client,
    emulator_merchant: Merchant,
    emulator_client: EmulatorClient,
    emulator_clock: EmulatorClock,
    emulator_sink: Sink,
    days: int,
) -> None:
    _hook(gateway, emulator_sink, "purchase.paid")
    purchase = _purchase(gateway, emulator_merchant)
    assert emulator_client.pay(purchase["id"])["status"] == "paid"
    emulator_clock.advance(timedelta(days=days))
    [message] = emulator_sink.wait_for(1)
    assert message.json is not None and message.json["id"] == purchase["id"]


@pytest.mark.parametrize("days", [1, 3, 6])
def test_held_purchase_is_announced(
    gateway: httpx.Client,
    emulator_merchant: Merchant,
    emulator_client: EmulatorClient,
    emulator_clock: EmulatorClock,
    emulator_sink: Sink,
    days: int,
) -> None:
    _hook(gateway, emulator_sink, "purchase.hold")
    purchase = _purchase(gateway, emulator_merchant, skip_capture=True)
    assert emulator_client.pay(purchase["id"])["status"] == "hold"
    emulator_clock.advance(timedelta(days=days))
    [message] = emulator_sink.wait_for(1)
    assert message.json is not None and message.json["status"] == "hold"


def test_declined_purchase_is_announced(
    gateway: httpx.Client,
    emulator_merchant: Merchant,
    emulator_client: EmulatorClient,
    emulator_clock: EmulatorClock,
    emulator_sink: Sink,
) -> None:
    _hook(gateway, emulator_sink, "purchase.payment_failure")
    purchase = _purchase(gateway, emulator_merchant)
    assert emulator_client.pay(purchase["id"], DECLINED)["status"] == "error"
    emulator_clock.advance(timedelta(days=1))
    [message] = emulator_sink.wait_for(1)
    assert message.json is not None and message.json["id"] == purchase["id"]


@pytest.mark.parametrize("days", [5, 6, 8, 10])
def test_executed_payout_settles(
    gateway: httpx.Client,
    emulator_merchant: Merchant,
    emulator_client: EmulatorClient,
    emulator_clock: EmulatorClock,
    emulator_sink: Sink,
    days: int,
) -> None:
    _hook(gateway, emulator_sink, "payout.success")
    payout = _payout(gateway, emulator_merchant)
    assert emulator_client.execute_payout(payout, SLOW_PAYOUT)["status"] == "pending"
    emulator_clock.advance(timedelta(days=days))
    [message] = emulator_sink.wait_for(1)
    assert message.json is not None and message.json["id"] == payout["id"]
