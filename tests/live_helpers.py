"""What tests of a live emulator (served over real HTTP) share beyond the conftest fixtures."""

from __future__ import annotations

from typing import Any

from emulator.testing import EmulatorClient, Merchant


def executed_payout(control: EmulatorClient, merchant: Merchant, card: str) -> dict[str, Any]:
    """A payout of the merchant, executed by its payee with ``card``."""
    with control.gateway(merchant) as gateway:
        created = gateway.post(
            "payouts/",
            json={
                "client": {"email": "payee@example.com"},
                "payment": {"amount": 700, "currency": "ZAR"},
                "brand_id": merchant.brand_id,
            },
        )
    assert created.status_code == 201, created.text
    return control.execute_payout(created.json(), card)
