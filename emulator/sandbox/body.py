"""Bodies of control-plane requests."""

from __future__ import annotations

from typing import Any

import msgspec
from starlette.requests import Request

from emulator.domain.errors import ControlError, MalformedBody
from emulator.domain.validation import split_located
from emulator.http.common import parse_json, read_body


async def json_body(request: Request) -> dict[str, Any]:
    """An optional JSON object body; empty means {}."""
    raw = await read_body(request)
    if not raw.strip():
        return {}
    try:
        body = parse_json(raw)
    except MalformedBody as exc:
        raise ControlError(400, "malformed_json", exc.detail) from exc
    except msgspec.ValidationError as exc:  # a number past what a double holds (1e400)
        _, where, _ = split_located(str(exc))
        at = f" at ${where}" if where and "..." not in where else ""
        raise ControlError(
            400, "invalid", f"a number{at} is out of range: numbers must be finite"
        ) from exc
    if not isinstance(body, dict):
        raise ControlError(400, "invalid", "the body must be a JSON object")
    return body
