"""Gateway clients (payers): the object, its validation rules and its changes."""

from __future__ import annotations

from typing import Any

import msgspec
from msgspec import UNSET, UnsetType

from emulator.domain import validation
from emulator.domain.errors import FieldError, ValidationFailed
from emulator.domain.events import Event

DELIVERY_METHODS = ("email", "text", "whatsapp")
CLIENT = "client"  # Client.type

# Text fields of ClientDetails with their maximum lengths (OpenAPI document) and their checks.
TEXT_LIMITS: dict[str, int] = {
    "phone": 32,
    "full_name": 128,
    "personal_code": 32,
    "street_address": 128,
    "country": 2,
    "city": 128,
    "zip_code": 32,
    "state": 128,
    "shipping_street_address": 128,
    "shipping_country": 2,
    "shipping_city": 128,
    "shipping_zip_code": 32,
    "shipping_state": 128,
    "legal_name": 128,
    "brand_name": 128,
    "registration_number": 32,
    "tax_number": 32,
    "bank_account": 34,
    "bank_code": 11,
}


class DeliveryMethod(msgspec.Struct, forbid_unknown_fields=False):
    method: str
    options: dict[str, Any] = {}


def _default_delivery() -> list[DeliveryMethod]:
    return [DeliveryMethod(method="email", options={})]


class ClientInput(msgspec.Struct, forbid_unknown_fields=False):
    """A POST/PUT/PATCH body: types are checked on decode, rules by ``validate``."""

    email: str | UnsetType = UNSET
    cc: list[str] | UnsetType = UNSET
    bcc: list[str] | UnsetType = UNSET
    phone: str | UnsetType = UNSET
    full_name: str | UnsetType = UNSET
    personal_code: str | UnsetType = UNSET
    street_address: str | UnsetType = UNSET
    country: str | UnsetType = UNSET
    city: str | UnsetType = UNSET
    zip_code: str | UnsetType = UNSET
    state: str | UnsetType = UNSET
    shipping_street_address: str | UnsetType = UNSET
    shipping_country: str | UnsetType = UNSET
    shipping_city: str | UnsetType = UNSET
    shipping_zip_code: str | UnsetType = UNSET
    shipping_state: str | UnsetType = UNSET
    legal_name: str | UnsetType = UNSET
    brand_name: str | UnsetType = UNSET
    registration_number: str | UnsetType = UNSET
    tax_number: str | UnsetType = UNSET
    bank_account: str | UnsetType = UNSET
    bank_code: str | UnsetType = UNSET
    delivery_methods: list[DeliveryMethod] | UnsetType = UNSET


class ClientDetails(msgspec.Struct, kw_only=True):
    """OpenAPI ``ClientDetails``: the payer's fields, as a client and a purchase's client both
    carry them (unset text fields are empty strings, as the provider's)."""

    email: str
    cc: list[str] = []
    bcc: list[str] = []
    phone: str = ""
    full_name: str = ""
    personal_code: str = ""
    street_address: str = ""
    country: str = ""
    city: str = ""
    zip_code: str = ""
    state: str = ""
    shipping_street_address: str = ""
    shipping_country: str = ""
    shipping_city: str = ""
    shipping_zip_code: str = ""
    shipping_state: str = ""
    legal_name: str = ""
    brand_name: str = ""
    registration_number: str = ""
    tax_number: str = ""
    bank_account: str = ""
    bank_code: str = ""
    client_type: str | None = None
    delivery_methods: list[DeliveryMethod] = msgspec.field(default_factory=_default_delivery)


# msgspec puts a subclass's positional fields before its base's keyword-only ones, so a Client
# keeps the provider's key order (id, type, times, then the details); a positional field cannot
# have a default before required ones, so ``type`` is given (CLIENT) wherever a client is made.
class Client(ClientDetails):
    """The stored and returned object (unset text fields are empty strings, as the provider's)."""

    id: str
    type: str
    created_on: int
    updated_on: int

    @property
    def email_key(self) -> str:
        return self.email.lower()


def validate(data: ClientInput) -> dict[str, Any]:
    """The fields given, or ValidationFailed with every problem of the body.

    Email is always required. Provider quirk: the spec marks email required on the PATCH body
    too, so a partial update must still carry it.
    """
    given = {f: value for f in data.__struct_fields__ if (value := getattr(data, f)) is not UNSET}
    errors: list[FieldError | None] = []
    if "email" not in given:
        errors.append(validation.required("email"))
    for name, value in given.items():
        if name == "email":
            errors.append(validation.email(name, value))
        elif name in ("cc", "bcc"):
            errors.extend(validation.email(f"{name}.{i}", a) for i, a in enumerate(value))
        elif name == "phone":
            errors.append(validation.phone(name, value))
        elif name in ("country", "shipping_country"):
            errors.append(validation.country(name, value))
        elif name == "delivery_methods":
            allowed = ", ".join(DELIVERY_METHODS)
            errors.extend(
                validation.invalid(f"{name}.{i}.method", f"Must be one of: {allowed}.")
                for i, item in enumerate(value)
                if item.method not in DELIVERY_METHODS
            )
        elif name in TEXT_LIMITS:
            errors.append(validation.max_length(name, value, TEXT_LIMITS[name]))
    found = [e for e in errors if e is not None]
    if found:
        raise ValidationFailed(found)
    return given


def create(data: ClientInput, client_id: str, now: int) -> tuple[Client, Event]:
    return create_valid(validate(data), client_id, now)


def create_valid(fields: dict[str, Any], client_id: str, now: int) -> tuple[Client, Event]:
    """``create`` from the fields ``validate`` returned (a purchase's client: validated with
    the purchase, not twice)."""
    client = Client(id=client_id, type=CLIENT, created_on=now, updated_on=now, **fields)
    return client, _event("client.created", client)


def replace(client: Client, data: ClientInput, now: int) -> tuple[Client, Event]:
    """PUT: every field not given goes back to its default."""
    given = validate(data)
    updated = Client(
        id=client.id, type=CLIENT, created_on=client.created_on, updated_on=now, **given
    )
    return updated, _event("client.updated", updated)


def patch(client: Client, data: ClientInput, now: int) -> tuple[Client, Event]:
    """PATCH: only the fields given change."""
    updated = msgspec.structs.replace(client, updated_on=now, **validate(data))
    return updated, _event("client.updated", updated)


def delete(client: Client) -> Event:
    return _event("client.deleted", client)


def _event(kind: str, client: Client) -> Event:
    # No webhook carries client events: they feed the client's feed, which needs no payload
    # (the client itself is one GET away).
    return Event(
        type=kind, object_type="client", object_id=client.id, payload={}, client_id=client.id
    )
