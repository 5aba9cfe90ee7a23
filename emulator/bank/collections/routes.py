"""v2 collections: EFT, DebiCheck from a mandate, recreate as EFT, status and the list."""

from __future__ import annotations

from typing import Any, get_args

from starlette.requests import Request
from starlette.responses import Response

from emulator.bank import query
from emulator.bank.auth import bank_caller
from emulator.bank.body import decode
from emulator.bank.collections import service as collections
from emulator.bank.collections.rules import (
    DebiCheckCollectionInput,
    EftCollectionInput,
    EftFromMandateInput,
    RecreateAsEftInput,
)
from emulator.bank.collections.rules_filters import DATE_FILTERS, FLAGS, TEXT
from emulator.bank.common.model import DebitSequence
from emulator.domain.errors import BankBadRequest, NotFound
from emulator.domain.validation import is_uuid
from emulator.http.common import JSON, runtime
from emulator.http.outcome import forced_of, forcing, keep

KINDS = {"eft": "EFT", "debicheck": "DEBICHECK"}
STATES = ("PENDING", "COMPLETED", "UNPAID", "REJECTED", "DISPUTED")
SEQUENCES: tuple[str, ...] = get_args(DebitSequence)


async def create_eft(request: Request) -> Response:
    caller = await bank_caller(request)
    forced = forced_of(request, "collection")
    data = await decode(request, EftCollectionInput)
    with forcing(forced):
        found = await collections.create_eft(runtime(request), caller.merchant_id, data)
    await keep(request, forced, caller.merchant_id, found.id)
    return JSON(found, status_code=201)


async def eft_from_mandate(request: Request) -> Response:
    caller = await bank_caller(request)
    forced = forced_of(request, "collection")
    data = await decode(request, EftFromMandateInput)
    with forcing(forced):
        found = await collections.eft_from_mandate(runtime(request), caller.merchant_id, data)
    await keep(request, forced, caller.merchant_id, found.id)
    return JSON(found, status_code=201)


async def debicheck_from_mandate(request: Request) -> Response:
    caller = await bank_caller(request)
    forced = forced_of(request, "collection")
    data = await decode(request, DebiCheckCollectionInput)
    with forcing(forced):
        found = await collections.debicheck_from_mandate(runtime(request), caller.merchant_id, data)
    await keep(request, forced, caller.merchant_id, found.id)
    return JSON(found, status_code=201)


async def recreate_as_eft(request: Request) -> Response:
    caller = await bank_caller(request)
    collection_id = request.path_params["collectionId"]
    if not is_uuid(collection_id):
        raise BankBadRequest(f"The value '{collection_id[:40]}' is not valid for collectionId.")
    forced = forced_of(request, "collection")
    data = await decode(request, RecreateAsEftInput)
    with forcing(forced):
        found = await collections.recreate_as_eft(
            runtime(request), caller.merchant_id, collection_id, data
        )
    await keep(request, forced, caller.merchant_id, found.id)
    return JSON(found, status_code=201)


async def status(request: Request) -> Response:
    caller = await bank_caller(request)
    kind = KINDS.get(request.path_params["type"])
    if kind is None:
        raise NotFound()
    found = await collections.get(
        runtime(request), caller.merchant_id, kind, request.path_params["id"]
    )
    return JSON(found)


def filters(request: Request) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for name in TEXT:
        if name == "state":
            value: Any = query.choice_param(request, name, STATES)
        elif name == "debitSequence":
            value = query.choice_param(request, name, SEQUENCES)
        elif name == "sequenceNumber":
            value = query.int_param(request, name, maximum=2**63 - 1)
        elif name in ("bulkId", "recourseSettlementId"):
            value = query.uuid_param(request, name)
        else:
            value = query.text_param(request, name)
        if value is not None:
            found[name] = value
    for name in DATE_FILTERS:
        day = query.date_param(request, name)
        if day is not None:
            found[name] = day
    for name in FLAGS:
        flag = query.bool_param(request, name)
        if flag is not None:
            found[name] = flag
    return found


async def list_debicheck(request: Request) -> Response:
    caller = await bank_caller(request)
    skip, take = query.paging(request)
    found = await collections.list_debicheck(
        runtime(request), caller.merchant_id, filters(request), skip, take
    )
    return JSON(found)
