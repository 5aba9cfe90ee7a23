"""Gateway request bodies: JSON read the way the real platform reads what its official clients
send, in one place for every body of ``/api/v1/``.

Before a body is converted to its struct (the struct's types lead the way):

- a key whose value is ``null`` is dropped: the field is absent (its default on POST and PUT,
  unchanged on PATCH), unless the field's own type takes ``None`` (``due``, ``client_id``,
  ``total_override``, ``amount`` of a refund or capture...), where null already means "none";
  a required field given as null is therefore reported as missing (``required``);
- an integer given where the struct says ``validation.Reference`` becomes its decimal string.
"""

from __future__ import annotations

from collections.abc import Hashable
from functools import cache
from typing import Any, TypeVar, cast

import msgspec.inspect as mi
from starlette.requests import Request

from emulator.domain.validation import NUMBER_AS_TEXT
from emulator.http.common import decode_json, read_body

T = TypeVar("T")


def decode(raw: bytes, model: type[T]) -> T:
    """A gateway JSON body as ``model``; malformed JSON and wrong types are 400s."""
    info = _type_info(cast(Hashable, model))  # a class is hashable; mypy cannot see it for type[T]
    return decode_json(raw, model, lambda parsed: _lenient(parsed, info))


async def read(request: Request, model: type[T]) -> T:
    """The request's JSON body as ``model`` (see ``decode``)."""
    return decode(await read_body(request), model)


@cache  # one entry per body struct: a handful, built once
def _type_info(model: Hashable) -> mi.Type:
    return mi.type_info(model)


# Provider quirk: the platform's official SDKs send null for every optional field they do not
# set (an SDK sends "cc": null and "bcc": null on each purchase), and an e-commerce plugin sends
# its order id as a JSON number in reference; the real platform accepts both.
def _lenient(value: Any, node: mi.Type) -> None:
    """Apply the module's rules to ``value`` (parsed JSON) in place, led by the struct's types."""
    if isinstance(node, mi.Metadata):
        node = node.type
    if isinstance(node, mi.UnionType):
        for member in node.types:
            _lenient(value, member)
    elif isinstance(node, mi.ListType) and isinstance(value, list):
        for item in value:
            _lenient(item, node.item_type)
    elif isinstance(node, mi.StructType) and isinstance(value, dict):
        for field in node.fields:
            name = field.encode_name
            if name not in value:
                continue
            item = value[name]
            if item is None:
                if not _takes_null(field.type):
                    del value[name]
            elif type(item) is int and _number_as_text(field.type):
                value[name] = str(item)
            else:
                _lenient(item, field.type)


def _members(node: mi.Type) -> tuple[mi.Type, ...]:
    return node.types if isinstance(node, mi.UnionType) else (node,)


def _takes_null(node: mi.Type) -> bool:
    """The field's type names None itself (``Any`` does not count: it only defers checks)."""
    return any(isinstance(member, mi.NoneType) for member in _members(node))


def _number_as_text(node: mi.Type) -> bool:
    return any(
        isinstance(member, mi.Metadata) and bool((member.extra or {}).get(NUMBER_AS_TEXT))
        for member in _members(node)
    )
