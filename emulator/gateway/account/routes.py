"""Gateway endpoints of the company account: balance, turnover, payment methods."""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from emulator.core.ledger.rules import TRANSACTION_FLOWS, TRANSACTION_PRODUCTS
from emulator.domain import validation
from emulator.domain.errors import FieldError, ValidationFailed
from emulator.gateway.account import service as account
from emulator.gateway.account.rules import AVAILABLE
from emulator.gateway.auth import gateway_caller
from emulator.http.common import JSON, parse_int, runtime

_BOOLEANS = {"true": 1, "1": 1, "false": 0, "0": 0}


def _check(name: str, value: str) -> FieldError | None:
    if name in ("brand", "terminal_uid"):
        return validation.uuid_field(name, value)
    if name == "currency":
        return validation.currency(name, value)
    if name == "country":
        return (
            validation.country(name, value)
            if value
            else validation.invalid(name, "Enter a country code.")
        )
    choices: tuple[str, ...] = {
        "payment_method": (*AVAILABLE, "unknown"),
        "product": TRANSACTION_PRODUCTS,
        "flow": TRANSACTION_FLOWS,
        "tokenized": tuple(_BOOLEANS),
    }[name]
    if value not in choices:
        return validation.invalid(name, f"'{value[:64]}' is not a valid choice.")
    return None


def _filters(request: Request) -> dict[str, list[Any]]:
    """Every filter but from/to, each with several values (repeated or comma-separated)."""
    filters: dict[str, list[Any]] = {}
    errors: list[FieldError] = []
    for name in (
        "brand",
        "terminal_uid",
        "currency",
        "payment_method",
        "product",
        "flow",
        "country",
        "tokenized",
    ):
        values = [
            part.strip()
            for raw in request.query_params.getlist(name)
            for part in raw.split(",")
            if part.strip()
        ]
        for value in values:
            problem = _check(name, value)
            if problem is not None:
                errors.append(problem)
        if name == "tokenized":
            filters[name] = [_BOOLEANS[x] for x in values if x in _BOOLEANS]
        elif name in ("brand", "terminal_uid"):
            filters[name] = [x.lower() for x in values]
        else:
            filters[name] = values
    if errors:
        raise ValidationFailed(errors)
    return filters


def _instant(request: Request, name: str) -> int | None:
    raw = request.query_params.get(name)
    if raw is None or raw == "":
        return None
    value = parse_int(raw)
    if value is None or value < 0:
        raise ValidationFailed([validation.invalid(name, "Enter a Unix timestamp (seconds).")])
    return min(value, 253_402_300_799)


async def balance(request: Request) -> Response:
    caller = await gateway_caller(request)
    body = await account.balance(
        runtime(request), caller.merchant_id, _filters(request), _instant(request, "from")
    )
    return JSON(body)


async def turnover(request: Request) -> Response:
    caller = await gateway_caller(request)
    start, end = _instant(request, "from"), _instant(request, "to")
    if start is not None and end is not None and end < start:
        raise ValidationFailed([validation.invalid("to", "'to' must not be before 'from'.")])
    body = await account.turnover(
        runtime(request), caller.merchant_id, _filters(request), start, end
    )
    return JSON(body)


async def payment_methods(request: Request) -> Response:
    caller = await gateway_caller(request)
    query = request.query_params
    brand_id, currency = query.get("brand_id", ""), query.get("currency", "")
    errors = [
        validation.required("brand_id")
        if not brand_id
        else validation.uuid_field("brand_id", brand_id),
        validation.required("currency")
        if not currency
        else validation.currency("currency", currency),
    ]
    found = [e for e in errors if e is not None]
    if found:
        raise ValidationFailed(found)
    return JSON(await account.methods(runtime(request), caller.merchant_id, brand_id))
