"""The purchase status table and its errors (pure)."""

from __future__ import annotations

import pytest

from emulator.core.ledger.rules import Row, balance, turnover
from emulator.domain import errors
from emulator.gateway.purchases import rules as domain


@pytest.mark.parametrize(("key", "target"), list(domain.TRANSITIONS.items()), ids=str)
def test_every_row_names_a_provider_status_and_event(key, target):
    """Each row goes to a PurchaseStatus value and emits purchase.* (or nothing extra)."""
    statuses = {
        "created", "sent", "viewed", "error", "cancelled", "overdue", "expired", "blocked", "hold",
        "released", "pending_release", "pending_capture", "preauthorized", "paid",
        "pending_execute", "pending_charge", "cleared", "settled", "chargeback",
        "pending_refund", "refunded",
    }  # fmt: skip
    assert key[0] in statuses and target[0] in statuses
    assert target[1] == "" or target[1].startswith("purchase.")


@pytest.mark.parametrize(
    ("status", "trigger", "error"),
    [
        ("paid", "pay", errors.PurchaseAlreadyPaid),
        ("hold", "pay", errors.PurchaseAlreadyPaid),
        ("cancelled", "pay", errors.PurchaseCancelled),
        ("expired", "pay", errors.PurchaseExpired),
        ("paid", "capture", errors.CaptureNotAllowed),
        ("created", "release", errors.CaptureNotAllowed),
        ("created", "refund", errors.PurchaseInvalidStatus),
    ],
)
def test_missing_rows_give_the_spec_errors(status, trigger, error):
    assert (status, trigger) not in domain.TRANSITIONS
    assert type(domain.conflict(status, trigger)) is error


def test_balance_counts_settled_rows_and_pending_outgoing():
    rows = [
        Row("ZAR", 1000, 10, "settled", 1, 1),
        Row("ZAR", -300, 0, "pending", 2, None),
        Row("ZAR", -50, 0, "void", 2, None),
        Row("ZAR", -200, 0, "settled", 3, 5),
        Row("EUR", 70, 0, "settled", 9, 9),
    ]
    assert balance(rows, 4) == {
        "ZAR": {"balance": 990, "fee_sell": 10, "reserved": 0, "gross_balance": 1000,
                "pending_outgoing": 500, "available_balance": 490},
    }  # fmt: skip
    assert balance(rows, 9)["ZAR"]["pending_outgoing"] == 300
    assert balance(rows, 9)["EUR"]["gross_balance"] == 70
    assert turnover(rows, 0, 6)["outgoing"] == {
        "turnover": 200,
        "fee_sell": 0,
        "count": {"all": 1},
    }
