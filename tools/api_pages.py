"""``docs/reference/gateway-api.md``, ``bank-api.md`` and ``control-plane.md``: the OpenAPI
documents the emulator serves (``emulator.openapi.document.build`` over the app's route table,
as ``/_emulator/openapi/{name}.json`` builds them), as Markdown tables."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from emulator.openapi import document, words
from emulator.openapi.words import Style
from emulator.serving.app import route_table
from tools.markdown import code, page, prose, table

REF = document.REF
METHODS = ("get", "put", "post", "patch", "delete")

# Document name -> (page title, what the page says of where the document is served).
PAGES = {
    "gateway": "Gateway API (`/api/v1/`)",
    "bank": "Bank API (`/v2/`)",
    "control": "Control plane (`/_emulator/`)",
}


def served() -> list[tuple[str, str]]:
    """(method, path) of every route the app serves, as its router has them."""
    return [
        (m, str(getattr(r, "path", "")))
        for r in route_table()
        for m in (getattr(r, "methods", None) or ())
    ]


MARKDOWN = Style(ref=code, code=code, text=str, alternatives=" or ")


def type_of(schema: Any) -> str:
    """A schema in a few words: component names and values as code, "or" for alternatives."""
    return words.type_of(schema, MARKDOWN)


_LIMITS = (
    ("minLength", "min length"),
    ("maxLength", "max length"),
    ("minimum", "≥"),
    ("maximum", "≤"),
    ("minItems", "min items"),
    ("maxItems", "max items"),
    ("pattern", "pattern"),
    ("default", "default"),
)


def limits(schema: Any) -> str:
    if not isinstance(schema, dict):
        return ""
    return "; ".join(
        f"{label} {code(words.json_text(schema[k]))}" for k, label in _LIMITS if k in schema
    )


def _component(doc: dict[str, Any], schema: Any) -> tuple[str, dict[str, Any]] | None:
    """(name, schema) of the component ``schema`` refers to, if it does."""
    if isinstance(schema, dict) and "$ref" in schema:
        name = schema["$ref"].removeprefix(REF)
        return name, doc["components"]["schemas"][name]
    return None


def fields(schema: dict[str, Any]) -> list[str]:
    """The field table of an object schema (empty when it has no properties)."""
    properties = schema.get("properties") or {}
    if not properties:
        return []
    required = set(schema.get("required", ()))
    rows = [
        [
            code(name),
            type_of(prop),
            "yes" if name in required else "",
            "; ".join(x for x in (limits(prop), prose(prop.get("description", ""))) if x),
        ]
        for name, prop in properties.items()
    ]
    return table(("Field", "Type", "Required", "Notes"), rows)


def _refs(node: Any) -> Iterator[str]:
    if isinstance(node, dict):
        if isinstance(node.get("$ref"), str):
            yield node["$ref"].removeprefix(REF)
        for value in node.values():
            yield from _refs(value)
    elif isinstance(node, list):
        for value in node:
            yield from _refs(value)


def _parameters(op: dict[str, Any]) -> list[str]:
    params = op.get("parameters", [])
    if not params:
        return []
    rows = [
        [
            code(p["name"]),
            p["in"],
            "yes" if p.get("required") else "",
            type_of(p.get("schema")),
            "; ".join(x for x in (limits(p.get("schema")), p.get("description", "")) if x),
        ]
        for p in params
    ]
    return ["**Parameters**", "", *table(("Name", "In", "Required", "Type", "Notes"), rows), ""]


def _request(doc: dict[str, Any], op: dict[str, Any]) -> list[str]:
    body = op.get("requestBody")
    if body is None:
        return []
    need = "required" if body.get("required") else "optional"
    lines: list[str] = []
    for media, content in body.get("content", {}).items():
        schema = content.get("schema")
        note = f" {prose(body['description'])}" if body.get("description") else ""
        lines += [f"**Request body** ({need}, {code(media)}): {type_of(schema)}.{note}", ""]
        found = _component(doc, schema)
        inline = found[1] if found else schema if isinstance(schema, dict) else {}
        if table_lines := fields(inline):
            lines += [*table_lines, ""]
    return lines


def _answers(op: dict[str, Any]) -> list[str]:
    rows = [
        [
            code(status),
            answer.get("description", ""),
            "; ".join(
                f"{type_of(c.get('schema'))} ({code(media)})"
                for media, c in answer.get("content", {}).items()
            ),
        ]
        for status, answer in op.get("responses", {}).items()
    ]
    return ["**Answers**", "", *table(("Status", "When", "Body"), rows), ""]


def _operations(doc: dict[str, Any]) -> dict[str, list[tuple[str, str, dict[str, Any]]]]:
    """tag -> [(METHOD, path, operation)] in the document's order."""
    grouped: dict[str, list[tuple[str, str, dict[str, Any]]]] = {}
    for path, item in doc["paths"].items():
        for method in METHODS:
            if method in item:
                op = item[method]
                tag = (op.get("tags") or ["Other"])[0]
                grouped.setdefault(tag, []).append((method.upper(), path, op))
    return grouped


def _operation(doc: dict[str, Any], method: str, path: str, op: dict[str, Any]) -> list[str]:
    lines = [f"### `{method} {path}`", "", prose(op.get("summary", "")) + "."]
    if op.get("description"):
        lines += ["", prose(op["description"])]
    security = [" and ".join(code(k) for k in req) for req in op.get("security", []) if req]
    if security:
        lines += ["", "Credentials: " + " or ".join(security) + "."]
    return [*lines, "", *_parameters(op), *_request(doc, op), *_answers(op)]


def _nested(doc: dict[str, Any]) -> list[str]:
    """Components request bodies reach through their fields, in name order."""
    tops: list[str] = []
    for item in doc["paths"].values():
        for op in item.values():
            for content in (op.get("requestBody") or {}).get("content", {}).values():
                if (found := _component(doc, content.get("schema"))) is not None:
                    tops.append(found[0])
    schemas = doc["components"]["schemas"]
    seen: set[str] = set()
    todo = [ref for name in tops for ref in _refs(schemas[name])]
    while todo:
        name = todo.pop()
        if name not in seen:
            seen.add(name)
            todo.extend(_refs(schemas[name]))
    return sorted(seen)


def _credentials(doc: dict[str, Any]) -> list[str]:
    schemes = doc["components"].get("securitySchemes", {})
    if not schemes:
        return []
    rows = [
        [code(name), f"{s.get('type', '')} {s.get('scheme', '')}".strip(), s.get("description", "")]
        for name, s in sorted(schemes.items())
    ]
    return ["## Credentials", "", *table(("Name", "Scheme", "What to send"), rows), ""]


def api_page(name: str) -> str:
    doc = document.build(served(), name)
    body = [
        prose(doc["info"]["description"]),
        "",
        f"The emulator serves this document as `GET /_emulator/openapi/{name}.json` (OpenAPI"
        " 3.1) and renders every document at `/_emulator/docs`, with each response schema.",
        "",
        *_credentials(doc),
    ]
    for tag, operations in _operations(doc).items():
        rows = [
            [code(method), code(path), op.get("summary", "")] for method, path, op in operations
        ]
        body += [f"## {tag}", "", *table(("Method", "Path", "Summary"), rows), ""]
        for method, path, op in operations:
            body += _operation(doc, method, path, op)
    nested = _nested(doc)
    if nested:
        body += ["## Request schemas", "", "The objects request bodies hold, field by field.", ""]
        for component in nested:
            schema = doc["components"]["schemas"][component]
            lines = fields(schema) or [f"{type_of(schema)}."]
            body += [f"### `{component}`", "", *lines, ""]
    return page(PAGES[name], f"the OpenAPI document `{name}` (`emulator/openapi/`)", body)
