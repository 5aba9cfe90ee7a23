"""Client rules: required email, formats, lengths, and what PUT and PATCH change."""

from __future__ import annotations

import pytest
from msgspec import UNSET

from emulator.domain.errors import ValidationFailed
from emulator.gateway.clients import rules as clients
from emulator.gateway.clients.rules import ClientInput, DeliveryMethod


def errors_of(data: ClientInput) -> dict[str, str]:
    with pytest.raises(ValidationFailed) as caught:
        clients.validate(data)
    return {e.field: e.code for e in caught.value.errors}


def test_email_is_required():
    """A body without email is a required error on email."""
    assert errors_of(ClientInput(full_name="Ann")) == {"email": "required"}


def test_every_problem_is_reported_at_once():
    """All field errors come back together, with dotted names for list items."""
    data = ClientInput(
        email="bad",
        phone="123",
        country="Narnia",
        cc=["ok@example.com", "nope"],
        full_name="x" * 129,
        delivery_methods=[DeliveryMethod(method="pigeon")],
    )
    assert errors_of(data) == {
        "email": "invalid",
        "phone": "invalid",
        "country": "invalid",
        "cc.1": "invalid",
        "full_name": "max_length",
        "delivery_methods.0.method": "invalid",
    }


def test_create_fills_defaults_like_the_provider():
    """Unset text fields are empty strings; delivery defaults to email."""
    client, event = clients.create(ClientInput(email="a@example.com"), "id-1", 100)
    assert client.phone == "" and client.cc == [] and client.client_type is None
    assert client.delivery_methods == [DeliveryMethod(method="email", options={})]
    assert (event.type, event.object_id, event.client_id) == ("client.created", "id-1", "id-1")


def test_put_resets_what_is_not_given_and_patch_keeps_it():
    """PUT replaces the whole client; PATCH changes only the fields given."""
    client, _ = clients.create(ClientInput(email="a@example.com", city="Durban"), "id-1", 100)
    replaced, _ = clients.replace(client, ClientInput(email="b@example.com"), 200)
    patched, _ = clients.patch(client, ClientInput(email="b@example.com"), 200)
    assert (replaced.city, replaced.created_on, replaced.updated_on) == ("", 100, 200)
    assert (patched.city, patched.email, patched.updated_on) == ("Durban", "b@example.com", 200)
    assert patched.full_name is not UNSET
