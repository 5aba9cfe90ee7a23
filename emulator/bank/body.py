"""Request bodies of the v2 interface: JSON decoded into the use case's struct. Keys the struct
does not know are ignored, as the bank does, and reported (``emulator.http.lint``)."""

from __future__ import annotations

from collections.abc import Hashable
from typing import TypeVar, cast

from starlette.requests import Request

from emulator.http import lint
from emulator.http.common import decode_json, read_body

T = TypeVar("T")


async def decode(request: Request, model: type[T]) -> T:
    walk = lint.key_walker(cast(Hashable, model))  # a class is hashable; mypy cannot see it
    raw = await read_body(request)
    found: lint.Found = []
    return await lint.decoded(
        request, model, found, lambda: decode_json(raw, model, lambda body: walk(body, "", found))
    )
