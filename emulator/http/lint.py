"""Keys the platform ignores: told, or refused in strict mode (FIDELITY.md).

The platform ignores keys it does not know, so a misspelt key works against it in tests and
loses its value in production. The emulator ignores them too, and tells: each such key becomes
one warning (``unknown key purchase.prodcts (did you mean products?)``, ``misplaced key email
(belongs at client.email)``), the answer carries them in ``X-Emulator-Warnings`` and the request
journal keeps them. ``serve --strict-requests`` (or a merchant's ``strict_requests`` setting)
refuses such a body with a 400 naming each key path, in the interface's dialect.

The gateway's body walker (``emulator/gateway/body.py``) lists the unknown keys as it
walks; the v2 interface's bodies go through ``key_walker``. Both look only at the keys given,
and this module's work (warnings, the schema's index) is done only when one is found.
"""

from __future__ import annotations

import difflib
import functools
import re
from collections.abc import Callable, Collection, Hashable
from functools import cache
from typing import Any, TypeVar, cast

import msgspec.inspect as mi
from starlette.requests import Request

from emulator.core.merchants import service as merchants
from emulator.domain.errors import FieldError, ValidationFailed
from emulator.http.common import CALLER_KEY, runtime

T = TypeVar("T")

WARNINGS_KEY = "emulator.warnings"  # where a request's warnings are left in the ASGI scope
HEADER = b"x-emulator-warnings"
SEPARATOR = "; "
HEADER_WARNINGS = 10  # warnings named in the header; the journal keeps more
HEADER_CHARS = 1000
KEPT = 50  # warnings kept of one request (the rest are counted)
KEY_CHARS = 64  # characters of an unknown key shown

# (the dotted path of the key's parent: "" or "purchase.products.0.", the key, the keys known
# at that level)
Found = list[tuple[str, str, Collection[str]]]
Walk = Callable[[Any, str, Found], None]


# -- the v2 interface's walk -----------------------------------------------------------------


@cache
def key_walker(model: Hashable) -> Walk:
    """What lists the keys of a parsed body that ``model`` (a struct) does not know."""
    walk = _walker(mi.type_info(cast(Any, model)))
    assert walk is not None, "a body is a struct"
    return walk


def _walker(node: mi.Type) -> Walk | None:
    if isinstance(node, mi.Metadata):
        node = node.type
    if isinstance(node, mi.UnionType):
        walks = [walk for member in node.types if (walk := _walker(member)) is not None]
        return walks[0] if len(walks) == 1 else None  # two structs: no telling which is meant
    if isinstance(node, mi.ListType):
        item = _walker(node.item_type)
        return None if item is None else functools.partial(each_item, item)
    if isinstance(node, mi.StructType):
        cls = cast(Hashable, node.cls)  # hashable, whatever the stubs of msgspec say of Struct
        return lambda value, at, found: _keys(_fields_of(cls), value, at, found)
    return None


def each_item(walk: Walk, value: Any, at: str, found: Found) -> None:
    """``walk`` over each item of a list, its path the item's index."""
    if isinstance(value, list):
        for index, item in enumerate(value):
            walk(item, f"{at}{index}.", found)


@cache
def _fields_of(cls: Hashable) -> dict[str, Walk | None]:
    node = mi.type_info(cast(Any, cls))
    assert isinstance(node, mi.StructType)
    return {field.encode_name: _walker(field.type) for field in node.fields}


def _keys(fields: dict[str, Walk | None], value: Any, at: str, found: Found) -> None:
    if not isinstance(value, dict):
        return
    for name, item in value.items():
        if name not in fields:
            found.append((at, name, fields))
        elif item is not None and (walk := fields[name]) is not None:
            walk(item, at + name + ".", found)


# -- warnings --------------------------------------------------------------------------------


def warnings(model: type[Any], found: Found) -> list[str]:
    """One line per key found (at most ``KEPT``, then how many more), ASCII."""
    where = _index(cast(Hashable, model))
    lines = [_warning(at, key, known, where) for at, key, known in found[:KEPT]]
    if len(found) > KEPT:
        lines.append(f"{len(found) - KEPT} more unknown keys")
    return lines


def _warning(at: str, key: str, known: Collection[str], where: dict[str, list[str]]) -> str:
    path = at + shown(key)
    elsewhere = where.get(key)
    if elsewhere:
        return f"misplaced key {path} (belongs at {' or '.join(elsewhere[:2])})"
    close = difflib.get_close_matches(key, list(known), n=1, cutoff=0.8)
    if close:
        return f"unknown key {path} (did you mean {close[0]}?)"
    return f"unknown key {path}"


_PLAIN = re.compile(r"[A-Za-z0-9_-]{1,64}\Z")
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")


def shown(key: str) -> str:
    """A key as a warning shows it: ASCII letters, digits, ``_`` and ``-`` as they are, any
    other character percent-encoded (UTF-8), so that a header can carry it and no key can
    forge a separator; at most ``KEY_CHARS`` characters of the key, then ``...``; the empty
    key as ``""``."""
    if _PLAIN.match(key):
        return key
    if not key:
        return '""'
    cut = key[:KEY_CHARS]
    text = _UNSAFE.sub(lambda m: "".join(f"%{b:02X}" for b in m.group().encode()), cut)
    return text + ("..." if len(key) > KEY_CHARS else "")


@cache
def _index(model: Hashable) -> dict[str, list[str]]:
    """Each key of the schema → where it belongs (``client.email``, ``purchase.products[].name``),
    shortest first."""
    where: dict[str, list[str]] = {}

    def visit(node: mi.Type, at: str, seen: frozenset[object]) -> None:
        if isinstance(node, mi.Metadata):
            node = node.type
        if isinstance(node, mi.UnionType):
            for member in node.types:
                visit(member, at, seen)
        elif isinstance(node, mi.ListType):
            visit(node.item_type, at.removesuffix(".") + "[].", seen)
        elif isinstance(node, mi.StructType) and node.cls not in seen:
            for field in node.fields:
                where.setdefault(field.encode_name, []).append(at + field.encode_name)
                visit(field.type, at + field.encode_name + ".", seen | {node.cls})

    visit(mi.type_info(cast(Any, model)), "", frozenset())
    for paths in where.values():
        paths.sort(key=lambda p: (p.count("."), p))
    return where


def header_value(lines: list[str]) -> bytes:
    """The warnings as one header value: ``; ``-separated, at most ``HEADER_WARNINGS`` of them
    and about ``HEADER_CHARS`` characters, then how many more the journal has."""
    shown_lines: list[str] = []
    size = 0
    for line in lines[:HEADER_WARNINGS]:
        if shown_lines and size + len(line) > HEADER_CHARS:
            break
        shown_lines.append(line)
        size += len(line) + len(SEPARATOR)
    if len(shown_lines) < len(lines):
        shown_lines.append(f"{len(lines) - len(shown_lines)} more in GET /_emulator/requests")
    return SEPARATOR.join(shown_lines).encode("ascii")


# -- a request's report ----------------------------------------------------------------------


async def decoded(request: Request, model: type[Any], found: Found, decode: Callable[[], T]) -> T:
    """``decode()`` (which fills ``found`` as it walks the body), with its unknown keys
    reported whether the body is taken or refused."""
    try:
        value = decode()
    except ValidationFailed as exc:
        if found:
            await report(request, model, found, exc)
        raise
    if found:
        await report(request, model, found)
    return value


async def report(
    request: Request, model: type[Any], found: Found, failed: ValidationFailed | None = None
) -> None:
    """Leave the warnings of ``found`` for the answer's header and the journal; in strict mode
    (the server's, or the caller's merchant's), refuse the body: a 400 naming each key path
    (with ``failed``'s own field errors after them, when the body was refused anyway)."""
    lines = warnings(model, found)
    request.scope[WARNINGS_KEY] = lines
    if not await strict(request):
        return
    errors = [
        FieldError(
            at + shown(key),
            "invalid",
            f"{line[0].upper()}{line[1:]}: the platform ignores it; refused in strict mode.",
        )
        for (at, key, _), line in zip(found[:KEPT], lines, strict=False)
    ]
    raise ValidationFailed(errors + (failed.errors if failed is not None else []))


async def strict(request: Request) -> bool:
    """Whether unknown keys are refused: ``serve --strict-requests``, or the caller's
    merchant's ``strict_requests`` (read only when a body has such keys)."""
    rt = runtime(request)
    if rt.settings.strict_requests:
        return True
    caller = request.scope.get(CALLER_KEY)
    merchant_id = getattr(caller, "merchant_id", None)
    return merchant_id is not None and await merchants.strict_requests(rt, merchant_id)
