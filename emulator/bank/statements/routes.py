"""GET /v2/bankaccountstatement/{bankAccountNumber}/{id}."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from emulator.bank.auth import bank_caller
from emulator.bank.statements import service as statements
from emulator.domain.errors import BankBadRequest
from emulator.domain.validation import is_uuid
from emulator.http.common import JSON, runtime


async def get(request: Request) -> Response:
    caller = await bank_caller(request)
    statement_id = request.path_params["id"]
    if not is_uuid(statement_id):
        raise BankBadRequest(f"The value '{statement_id[:40]}' is not valid for id.")
    account = request.path_params["bankAccountNumber"]
    found = await statements.get(runtime(request), caller.merchant_id, account, statement_id)
    return JSON(found)
