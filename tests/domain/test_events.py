"""An event made from an object's JSON (Event.encoded) shows what a dict copy of it showed."""

from __future__ import annotations

import msgspec

from emulator.domain.events import Event
from emulator.gateway.purchases.model import Attempt, PaymentDetails, StatusChange, TokenView


class Nested(msgspec.Struct, kw_only=True, omit_defaults=True):
    status: str
    history: list[StatusChange]
    attempts: list[Attempt] = []
    payment: PaymentDetails | None = None
    extra: dict[str, object] = {}
    amount: float = 0.0


def _object() -> Nested:
    return Nested(
        status="paid",
        history=[
            StatusChange(status="created", timestamp=1),
            StatusChange(status="paid", timestamp=2, related_object={"type": "payment"}),
        ],
        payment=PaymentDetails(
            amount=100, currency="ZAR", payment_type="purchase", net_amount=100, paid_on=2
        ),
        extra={"ünïcode": "naïve ✓", "n": [1, 2.5, None, True]},
        amount=12.25,
    )


def test_encoded_event_stores_the_bytes_of_a_dict_copy():
    obj = _object()
    event = Event.encoded("thing.paid", "thing", "t-1", obj, client_id="c-1")
    assert event.raw == msgspec.json.encode(msgspec.to_builtins(obj))
    assert event.payload == msgspec.to_builtins(obj)
    assert (event.type, event.object_type, event.object_id, event.client_id) == (
        "thing.paid",
        "thing",
        "t-1",
        "c-1",
    )


def test_encoded_event_does_not_follow_later_changes():
    obj = _object()
    event = Event.encoded("thing.paid", "thing", "t-1", obj)
    obj.status = "refunded"
    obj.history.append(StatusChange(status="refunded", timestamp=3))
    assert event.payload["status"] == "paid"
    assert len(event.payload["history"]) == 2


def test_event_of_a_dict_encodes_it():
    event = Event("client.created", "client", "c-1", {"a": [1, "b"]})
    assert event.raw == b'{"a":[1,"b"]}'


def test_token_view_reads_two_fields_of_a_purchase_json():
    raw = b'{"id":"p","client_id":"c","status":"paid","is_recurring_token":true,"x":{"y":[1]}}'
    assert msgspec.json.decode(raw, type=TokenView) == TokenView(
        client_id="c", is_recurring_token=True
    )
