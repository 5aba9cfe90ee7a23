"""v2 callback URLs and the callback bodies of the spec's table (pure)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec

from emulator.bank.common.model import require
from emulator.domain import urls
from emulator.domain.errors import BankBadRequest
from emulator.domain.urls import UrlRule

CallbackType = Literal["EFT_COLLECTION", "DEBICHECK_COLLECTION", "DEBICHECK_MANDATE", "EFT_PAYMENT"]
# callbackVersion: V2 is recommended; other values are not shown. We accept V1 and V2.
VERSIONS = ("V1", "V2")


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


def check_registration(data: RegistrationInput, rule: UrlRule) -> tuple[int, str, str, str]:
    client_id = require(data.clientId, "clientId")
    url = require(data.url, "url")
    callback_type = require(data.callbackType, "callbackType")
    version = require(data.callbackVersion, "callbackVersion")
    if version not in VERSIONS:
        raise BankBadRequest(f"callbackVersion: '{version}' is not one of V1, V2")
    check_url(url, rule)
    return client_id, url, callback_type, version


def check_url(url: str, rule: UrlRule) -> None:
    """HTTPS with a host; plain HTTP to loopback (the emulator's own sink, local tests) or a
    host of ``--callback-hosts``; never the control plane (emulator/domain/urls.py)."""
    found = urls.problem(url, rule)
    if found == "invalid":
        raise BankBadRequest("url: not a valid URL")
    if found == "not_https":
        raise BankBadRequest("url: must be HTTPS")
    if found == "control_plane":
        raise BankBadRequest("url: may not point at the emulator's control plane (/_emulator/)")


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


def check_trigger(data: TriggerInput, rule: UrlRule) -> str:
    """Both fields are required; the status must be one a collection can have."""
    status = require(data.collectionStatus, "collectionStatus")
    version = require(data.callbackVersion, "callbackVersion")
    if status not in COLLECTION_STATUSES:
        raise BankBadRequest(
            f"collectionStatus: '{status}' is not one of " + ", ".join(COLLECTION_STATUSES)
        )
    if version not in VERSIONS:
        raise BankBadRequest(f"callbackVersion: '{version}' is not one of V1, V2")
    if data.overrideUrl is not None:
        check_url(data.overrideUrl, rule)
    return status
