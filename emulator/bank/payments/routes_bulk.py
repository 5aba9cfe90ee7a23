"""Bulk CSV: POST /v2/payment/eft/upload/csv and GET /v2/collection/eft/download/csv/{id}."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from emulator.bank import query
from emulator.bank.auth import bank_caller
from emulator.bank.payments import service_bulk as bulk
from emulator.domain.errors import BankBadRequest
from emulator.domain.validation import is_uuid
from emulator.http.common import JSON, read_body, runtime

# 10,000 rows (bulk.MAX_ROWS) of some 400 bytes: more than the 1 MiB of a JSON body.
CSV_LIMIT = 4 * 1024 * 1024


async def upload(request: Request) -> Response:
    """The body is the CSV itself (text/csv, UTF-8), at most 4 MiB."""
    caller = await bank_caller(request)
    raw = await read_body(request, limit=CSV_LIMIT)
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise BankBadRequest("file: the CSV is not UTF-8") from None
    return JSON(await bulk.upload(runtime(request), caller.merchant_id, text))


async def download(request: Request) -> Response:
    caller = await bank_caller(request)
    bulk_id = request.path_params["bulkUploadId"]
    if not is_uuid(bulk_id):
        raise BankBadRequest(f"The value '{bulk_id[:40]}' is not valid for bulkUploadId.")
    errors = query.bool_param(request, "isError")
    text = await bulk.download(runtime(request), caller.merchant_id, bulk_id, errors)
    return Response(text, media_type="text/csv")
