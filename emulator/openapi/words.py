"""A schema in a few words, for the two readers of the documents: the HTML reference page
(``render``) and the Markdown reference of the manual (``tools/api_pages.py``). One walk of the
schema; a ``Style`` says how a component link, a value in code and plain text are written."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from emulator.openapi.document import REF


@dataclass(frozen=True)
class Style:
    ref: Callable[[str], str]  # a component, by name
    code: Callable[[str], str]  # a literal value
    text: Callable[[str], str]  # a type's name and format
    alternatives: str  # between the branches of anyOf


def type_of(schema: Any, style: Style) -> str:
    """Components by name, literal values as code, the alternatives of ``anyOf``."""
    if not isinstance(schema, dict) or not schema:
        return "any"
    if "$ref" in schema:
        return style.ref(schema["$ref"].removeprefix(REF))
    if "anyOf" in schema:  # null last, in whichever order msgspec's version lists the branches
        branches = sorted(schema["anyOf"], key=lambda s: s == {"type": "null"})
        return style.alternatives.join(type_of(s, style) for s in branches)
    if "enum" in schema:
        return "one of " + ", ".join(style.code(json_text(v)) for v in schema["enum"])
    if "const" in schema:
        return style.code(json_text(schema["const"]))
    kind = schema.get("type", "any")
    if isinstance(kind, list):
        kinds = sorted(kind, key=lambda k: k == "null")
        return style.alternatives.join(type_of({**schema, "type": k}, style) for k in kinds)
    if kind == "array":
        return "array of " + type_of(schema.get("items", {}), style)
    if kind == "object" and isinstance(schema.get("additionalProperties"), dict):
        return "map of " + type_of(schema["additionalProperties"], style)
    text = style.text(str(kind))
    if "format" in schema:
        text += f" ({style.text(str(schema['format']))})"
    return text


def json_text(value: Any) -> str:
    """A value as JSON writes it (strings quoted, ``null``, ``true``)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f'"{value}"'
    return str(value)
