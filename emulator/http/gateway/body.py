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

from collections.abc import Callable, Hashable
from functools import cache
from typing import Any, TypeVar, cast

import msgspec.inspect as mi
from starlette.requests import Request

from emulator.domain.validation import NUMBER_AS_TEXT
from emulator.http.common import decode_json, read_body

T = TypeVar("T")


def decode(raw: bytes, model: type[T]) -> T:
    """A gateway JSON body as ``model``; malformed JSON and wrong types are 400s."""
    walk = _walker_of(cast(Hashable, model))  # a class is hashable; mypy cannot see it for type[T]
    return decode_json(raw, model, walk)


async def read(request: Request, model: type[T]) -> T:
    """The request's JSON body as ``model`` (see ``decode``)."""
    return decode(await read_body(request), model)


Walk = Callable[[Any], None]


def _nothing(value: Any) -> None:
    return None


@cache  # one entry per body struct: a handful, built once
def _walker_of(model: Hashable) -> Walk:
    return _walker(mi.type_info(model)) or _nothing


# Provider quirk: the platform's official SDKs send null for every optional field they do not
# set (an SDK sends "cc": null and "bcc": null on each purchase), and an e-commerce plugin sends
# its order id as a JSON number in reference; the real platform accepts both.
def _walker(node: mi.Type) -> Walk | None:
    """What applies the module's rules to a value (parsed JSON) of type ``node``, in place, led
    by the struct's types; None when there is nothing to do. Built once per body struct: for
    each object it looks only at the keys given (a purchase has dozens of fields, a body a few)."""
    if isinstance(node, mi.Metadata):
        node = node.type
    if isinstance(node, mi.UnionType):
        walks = [walk for member in node.types if (walk := _walker(member)) is not None]
        if len(walks) <= 1:
            return walks[0] if walks else None
        return lambda value: _all(walks, value)
    if isinstance(node, mi.ListType):
        item = _walker(node.item_type)
        return None if item is None else lambda value: _items(item, value)
    if isinstance(node, mi.StructType):
        cls = node.cls
        return lambda value: _fields(_rules_of(cls), value)  # built on first use: types nest
    return None


def _all(walks: list[Walk], value: Any) -> None:
    for walk in walks:
        walk(value)


def _items(walk: Walk, value: Any) -> None:
    if isinstance(value, list):
        for item in value:
            walk(item)


# encode name -> (takes null, a number becomes its text, what applies to its value)
Rules = dict[str, tuple[bool, bool, Walk | None]]


@cache
def _rules_of(cls: Hashable) -> Rules:
    node = mi.type_info(cast(Any, cls))
    assert isinstance(node, mi.StructType)
    return {
        field.encode_name: (
            _takes_null(field.type),
            _number_as_text(field.type),
            _walker(field.type),
        )
        for field in node.fields
    }


def _fields(rules: Rules, value: Any) -> None:
    if not isinstance(value, dict):
        return
    for name in [name for name in value if name in rules]:
        item = value[name]
        takes_null, as_text, walk = rules[name]
        if item is None:
            if not takes_null:
                del value[name]
        elif type(item) is int and as_text:
            value[name] = str(item)
        elif walk is not None:
            walk(item)


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
