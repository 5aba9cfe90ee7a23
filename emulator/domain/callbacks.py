"""v2 callback URLs and the callback bodies of the spec's table (pure)."""

from __future__ import annotations

from ipaddress import ip_address
from typing import Annotated, Any, Literal
from urllib.parse import urlsplit

import msgspec

from emulator.domain.errors import BankBadRequest

CallbackType = Literal["EFT_COLLECTION", "DEBICHECK_COLLECTION", "DEBICHECK_MANDATE", "EFT_PAYMENT"]
# callbackVersion: V2 is recommended; other values are not shown. We accept V1 and V2.
VERSIONS = ("V1", "V2")
LOOPBACK_NAMES = ("localhost",)


class RegistrationInput(msgspec.Struct, kw_only=True):
    clientId: Annotated[int, msgspec.Meta(ge=0, le=2**63 - 1)] | None = None
    url: Annotated[str, msgspec.Meta(max_length=2048)] | None = None
    callbackType: CallbackType | None = None
    callbackVersion: Annotated[str, msgspec.Meta(max_length=16)] | None = None


class Registration(msgspec.Struct, kw_only=True):
    """What POST /v2/clientcallbackurl/ answers: the fields echoed plus an id."""

    id: str
    clientId: int
    url: str
    callbackType: str
    callbackVersion: str


def check_registration(data: RegistrationInput) -> tuple[int, str, str, str]:
    for name in ("clientId", "url", "callbackType", "callbackVersion"):
        if getattr(data, name) is None:
            raise BankBadRequest(f"{name} is required")
    assert data.clientId is not None and data.url is not None and data.callbackType is not None
    assert data.callbackVersion is not None
    if data.callbackVersion not in VERSIONS:
        raise BankBadRequest(f"callbackVersion: '{data.callbackVersion}' is not one of V1, V2")
    check_url(data.url)
    return data.clientId, data.url, data.callbackType, data.callbackVersion


def is_loopback(host: str) -> bool:
    if host.lower() in LOOPBACK_NAMES:
        return True
    try:
        return ip_address(host).is_loopback
    except ValueError:
        return False


def check_url(url: str) -> None:
    """HTTPS with a host; plain HTTP only on loopback (the emulator's own sink, local tests)."""
    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
        parts.port  # noqa: B018 - a bad port raises here
    except ValueError:
        raise BankBadRequest("url: not a valid URL") from None
    if not host or parts.scheme not in ("http", "https"):
        raise BankBadRequest("url: not a valid URL")
    if parts.scheme == "http" and not is_loopback(host):
        raise BankBadRequest("url: must be HTTPS")


def callback_type(object_type: str, payload: dict[str, Any]) -> str | None:
    """The callback type an object's event belongs to (EFT mandates have none)."""
    kind = payload.get("type")
    if object_type == "bank_collection":
        return "EFT_COLLECTION" if kind == "EFT" else "DEBICHECK_COLLECTION"
    if object_type == "bank_mandate":
        return "DEBICHECK_MANDATE" if kind == "DEBICHECK" else None
    if object_type == "bank_payment":
        return "EFT_PAYMENT"
    return None


# The spec's fields per callback type, in its order. EFT_PAYMENT's payload is not shown: ours
# carries the same kind of fields. ``reasonCode`` and ``reason`` (the unpaid code and its text,
# null unless UNPAID, DISPUTED or REJECTED) are an addition to the spec's fields.
FIELDS: dict[str, tuple[str, ...]] = {
    "EFT_COLLECTION": (
        "id",
        "type",
        "status",
        "mandateId",
        "contractReference",
        "amountCents",
        "collectionDate",
        "statementId",
        "reasonCode",
        "reason",
        "timestamp",
    ),
    "DEBICHECK_MANDATE": (
        "id",
        "type",
        "status",
        "contractReference",
        "authenticationType",
        "timestamp",
    ),
    "DEBICHECK_COLLECTION": (
        "id",
        "type",
        "status",
        "mandateId",
        "amountCents",
        "reasonCode",
        "reason",
        "timestamp",
    ),
    "EFT_PAYMENT": (
        "id",
        "type",
        "status",
        "externalReference",
        "amountCents",
        "paymentDate",
        "reasonCode",
        "reason",
        "timestamp",
    ),
}


def body(kind: str, payload: dict[str, Any], timestamp: str) -> dict[str, Any]:
    """The callback body: ``type`` is the callback type, ``timestamp`` the status change's."""
    values = {**payload, "type": kind, "timestamp": timestamp}
    return {name: values.get(name) for name in FIELDS[kind]}


COLLECTION_STATUSES = ("PENDING", "COMPLETED", "UNPAID", "REJECTED", "DISPUTED")


class TriggerInput(msgspec.Struct, kw_only=True):
    """The trigger and test endpoints' body (``overrideUrl``: the test endpoint only)."""

    collectionStatus: Annotated[str, msgspec.Meta(max_length=32)] | None = None
    callbackVersion: Annotated[str, msgspec.Meta(max_length=16)] | None = None
    overrideUrl: Annotated[str, msgspec.Meta(max_length=2048)] | None = None


def check_trigger(data: TriggerInput) -> str:
    """Both fields are required; the status must be one a collection can have."""
    for name in ("collectionStatus", "callbackVersion"):
        if getattr(data, name) is None:
            raise BankBadRequest(f"{name} is required")
    assert data.collectionStatus is not None and data.callbackVersion is not None
    if data.collectionStatus not in COLLECTION_STATUSES:
        raise BankBadRequest(
            f"collectionStatus: '{data.collectionStatus}' is not one of "
            + ", ".join(COLLECTION_STATUSES)
        )
    if data.callbackVersion not in VERSIONS:
        raise BankBadRequest(f"callbackVersion: '{data.callbackVersion}' is not one of V1, V2")
    if data.overrideUrl is not None:
        check_url(data.overrideUrl)
    return data.collectionStatus
