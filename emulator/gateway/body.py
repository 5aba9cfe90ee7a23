"""Gateway request bodies: JSON read the way the real platform reads what its official clients
send, in one place for every body of ``/api/v1/``.

Before a body is converted to its struct (the struct's types lead the way):

- a key whose value is ``null`` is dropped: the field is absent (its default on POST and PUT,
  unchanged on PATCH), unless the field's own type takes ``None`` (``due``, ``client_id``,
  ``total_override``, ``amount`` of a refund or capture...), where null already means "none";
  a required field given as null is therefore reported as missing (``required``);
- an integer given where the struct says ``validation.Reference`` becomes its decimal string;
- an integer field reads its value as Django REST Framework's ``IntegerField`` does: ``"100"``,
  ``150.0`` and ``"100.0"`` are 100 and 150, ``"1.5"``, ``150.5`` and ``"abc"`` are refused;
- keys the struct does not know are listed (the platform ignores them; ``emulator.http.lint``
  says so, or refuses them in strict mode).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Hashable
from functools import cache
from typing import Any, TypeVar, cast

import msgspec.inspect as mi
from starlette.requests import Request

from emulator.domain.errors import FieldError, ValidationFailed
from emulator.domain.validation import NUMBER_AS_TEXT, uuid_field
from emulator.http import lint
from emulator.http.common import decode_json, read_body

T = TypeVar("T")


def decode(raw: bytes, model: type[T], found: lint.Found | None = None) -> T:
    """A gateway JSON body as ``model``; malformed JSON and wrong types are 400s. Unknown keys
    are added to ``found`` (before the body is converted: a 400 still lists them)."""
    walk = _walker_of(cast(Hashable, model))  # a class is hashable; mypy cannot see it for type[T]
    into: lint.Found = [] if found is None else found
    return decode_json(raw, model, lambda value: walk(value, "", into))


async def read(request: Request, model: type[T], *, optional: bool = False) -> T:
    """The request's JSON body as ``model`` (see ``decode``); with ``optional``, no body (or
    only whitespace) is ``model()``. Unknown keys are reported (``lint.report``)."""
    raw = await read_body(request)
    if optional and not raw.strip():
        return model()
    found: lint.Found = []
    return await lint.decoded(request, model, found, lambda: decode(raw, model, found))


# value (parsed JSON), the dotted path of its keys' parent ("" or "purchase."), what is found
Walk = Callable[[Any, str, lint.Found], None]


@cache  # one entry per body struct: a handful, built once
def _walker_of(model: Hashable) -> Walk:
    walk = _walker(mi.type_info(model))
    assert walk is not None, "a gateway body is a struct"
    return walk


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
        # (no body has a union of two structs: each would list the other's keys as unknown)
        walks = [walk for member in node.types if (walk := _walker(member)) is not None]
        if len(walks) <= 1:
            return walks[0] if walks else None
        return lambda value, at, found: _all(walks, value, at, found)
    if isinstance(node, mi.ListType):
        item = _walker(node.item_type)
        return None if item is None else functools.partial(lint.each_item, item)
    if isinstance(node, mi.StructType):
        cls = cast(Hashable, node.cls)  # hashable, whatever the stubs of msgspec say of Struct
        # built on first use: types nest
        return lambda value, at, found: _fields(_rules_of(cls), value, at, found)
    return None


def _all(walks: list[Walk], value: Any, at: str, found: lint.Found) -> None:
    for walk in walks:
        walk(value, at, found)


# encode name -> (takes null, a number becomes its text, an integer field, what applies to its
# value)
Rules = dict[str, tuple[bool, bool, bool, Walk | None]]


@cache
def _rules_of(cls: Hashable) -> Rules:
    node = mi.type_info(cast(Any, cls))
    assert isinstance(node, mi.StructType)
    return {
        field.encode_name: (
            _takes_null(field.type),
            _number_as_text(field.type),
            _integer(field.type),
            _walker(field.type),
        )
        for field in node.fields
    }


def _fields(rules: Rules, value: Any, at: str, found: lint.Found) -> None:
    if not isinstance(value, dict):
        return
    for name in list(value):  # (keys are dropped on the way)
        rule = rules.get(name)
        if rule is None:
            found.append((at, name, rules))
            continue
        item = value[name]
        takes_null, as_text, integer, walk = rule
        if item is None:
            if not takes_null:
                del value[name]
        elif type(item) is int:
            if as_text:
                value[name] = str(item)
        elif integer:
            value[name] = drf_integer(item, at + name)
        elif walk is not None:
            walk(item, at + name + ".", found)


# Django REST Framework's IntegerField.to_internal_value (rest_framework/fields.py), the
# platform's own reading of an integer field:
#     if isinstance(data, str) and len(data) > self.MAX_STRING_LENGTH:   # 1000
#         self.fail('max_string_length')                   # "String value too large."
#     data = int(self.re_decimal.sub('', str(data)))       # re_decimal = r'\.0*\s*$'
#     (ValueError, TypeError) -> self.fail('invalid')      # "A valid integer is required."
# So "100", " 100 ", "100.0", "+100" and 150.0 are integers; "1.5", 150.5, "1e3", "abc", true
# and 1e16 (str() gives "1e+16") are not. The vendor's own sample sends "price": "100".
_DRF_DECIMAL = re.compile(r"\.0*\s*$")
_DRF_MAX_STRING_LENGTH = 1000


def drf_integer(value: Any, field: str) -> int:
    """``value`` (not an int) of an integer field as DRF reads it, else its 400."""
    if isinstance(value, str) and len(value) > _DRF_MAX_STRING_LENGTH:
        raise ValidationFailed([FieldError(field, "max_string_length", "String value too large.")])
    if isinstance(value, str | float | bool):  # str() of a list or an object is never one
        try:
            return int(_DRF_DECIMAL.sub("", str(value)))
        except ValueError:
            pass
    raise ValidationFailed([FieldError(field, "invalid", "A valid integer is required.")])


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


def _integer(node: mi.Type) -> bool:
    """An integer field (``int``, ``int | None``, with or without constraints)."""
    kinds = {
        type(member.type if isinstance(member, mi.Metadata) else member)
        for member in _members(node)
    }
    return mi.IntType in kinds and kinds <= {mi.IntType, mi.NoneType}


def path_uuid(request: Request, name: str = "id") -> str:
    """The path's ``name`` (a UUID), lower case; 400 naming it when it is not one."""
    value: str = request.path_params[name]
    problem = uuid_field(name, value)
    if problem is not None:
        raise ValidationFailed([problem])
    return value.lower()
