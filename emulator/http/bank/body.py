"""Request bodies of the v2 interface: JSON decoded into the use case's struct."""

from __future__ import annotations

from typing import TypeVar

from starlette.requests import Request

from emulator.http.common import decode_json, read_body

T = TypeVar("T")


async def decode(request: Request, model: type[T]) -> T:
    return decode_json(await read_body(request), model)
