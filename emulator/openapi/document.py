"""OpenAPI 3.1 documents: the operation tables joined with the routes the app serves.

Schemas come from ``msgspec.json.schema_components`` over every type the tables name (one call,
so a component has the same name in every document), plus the hand-written error dialects
(``errors.COMPONENTS``). A document holds the components its operations reach.

A served route that no table documents still appears (``x-undocumented``), and a table entry
that nothing serves is left out: the document never claims what the app does not do, and
``tests/openapi/test_documents.py`` names both kinds of gap.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterable, Iterator
from functools import cache
from typing import Any

import msgspec

from emulator import ROLES, __version__
from emulator.openapi import bank, console, control, delivery_ops, errors, flows, gateway, oauth
from emulator.openapi.model import Body, Operation, Param, Ref, Response

REF = "#/components/schemas/"

OPERATIONS: list[Operation] = [
    *gateway.OPERATIONS,
    *oauth.OPERATIONS,
    *bank.OPERATIONS,
    *control.OPERATIONS,
    *console.OPERATIONS,
    *delivery_ops.OPERATIONS,
    *flows.OPERATIONS,
]
ENUMS = {**gateway.ENUMS, **bank.ENUMS, **oauth.ENUMS, **control.ENUMS}

# Each document: the path prefixes of the routes it covers, its title and what it says first.
DOCUMENTS: dict[str, tuple[tuple[str, ...], str, str]] = {
    "gateway": (
        ("/api/v1/", "/payouts/", "/oauth2/"),
        "Payments emulator: the gateway",
        "The card and billing gateway (`/api/v1/`), the payout execution URL it hands out, and"
        " the token endpoint (an OAuth access token works on the gateway too).",
    ),
    "bank": (
        ("/v2/", "/oauth2/"),
        "Payments emulator: the bank collections interface",
        "The South African bank collections interface (`/v2/`) and its token endpoint.",
    ),
    "control": (
        ("/_emulator/",),
        "Payments emulator: the control plane",
        "The emulator's own control plane (`/_emulator/`): clocks, merchants, scenarios,"
        " snapshots, the journal, deliveries and the sink. JSON in and out.",
    ),
}
ALL = (
    ("/api/v1/", "/payouts/", "/v2/", "/oauth2/", "/_emulator/"),
    "Payments emulator",
    "Everything the emulator serves: the gateway (`/api/v1/`), the bank collections interface"
    " (`/v2/`), the token endpoint (`/oauth2/token`) and the control plane (`/_emulator/`).",
)


def _types() -> Iterator[Any]:
    for op in OPERATIONS:
        if op.body is not None:
            yield op.body.schema
        for response in op.responses:
            yield response.schema
        for param in op.params:
            yield param.schema
    yield from (cls for cls, _ in ENUMS)


def _is_type(value: Any) -> bool:
    return value is not None and not isinstance(value, Ref | dict)


_GENERIC = re.compile(r"^([A-Za-z0-9]+)_(.+)_$")


def _short(name: str) -> str:
    """msgspec names clashing structs by module path (``emulator.gateway.payouts.rules.Attempt``):
    keep the module's namespace (``payouts.Attempt``); ``Page_Client_`` is ``ClientPage``."""
    generic = _GENERIC.match(name)
    if generic:
        return _short(generic.group(2)).replace(".", "_") + generic.group(1)
    module, _, struct = name.rpartition(".")
    return f"{_namespace(module)}.{struct}" if module else name


def _namespace(module: str) -> str:
    """A slice's role module publishes under the slice's name (``payouts`` for
    ``emulator.gateway.payouts.rules``), any other module under its own last part; a module's
    ``OPENAPI_NAMESPACE`` overrides both, so that a published component keeps its name."""
    loaded = sys.modules.get(module)
    given = getattr(loaded, "OPENAPI_NAMESPACE", None)
    if isinstance(given, str):
        return given
    parts = module.split(".")
    if len(parts) > 1 and parts[-1].split("_")[0] in ROLES:
        return parts[-2]
    return parts[-1]


def _renamed(node: Any, names: dict[str, str]) -> Any:
    if isinstance(node, dict):
        out = {k: _renamed(v, names) for k, v in node.items()}
        ref = out.get("$ref")
        if isinstance(ref, str) and ref.startswith(REF):
            out["$ref"] = REF + names.get(ref[len(REF) :], ref[len(REF) :])
        return out
    if isinstance(node, list):
        return [_renamed(v, names) for v in node]
    return node


class Schemas:
    """Every schema of every table, made once: ``of(value)`` is a schema or a $ref."""

    def __init__(self) -> None:
        types = list(dict.fromkeys(t for t in _types() if _is_type(t)))
        found, components = msgspec.json.schema_components(types, ref_template=REF + "{name}")
        names = {name: _short(name) for name in components}
        self.components: dict[str, Any] = {
            names[k]: _renamed(v, names) for k, v in components.items()
        }
        self.components.update(errors.COMPONENTS)
        self._by_type = {t: _renamed(s, names) for t, s in zip(types, found, strict=True)}
        for (cls, field), values in ENUMS.items():
            self._enum(self._by_type[cls]["$ref"][len(REF) :], field, values)

    def _enum(self, component: str, field: str, values: tuple[str, ...]) -> None:
        prop = self.components[component]["properties"][field]
        if prop.get("type") == "array":
            prop["items"] = {"enum": list(values)}
        else:
            prop.pop("type", None)
            prop["enum"] = list(values)

    def of(self, value: Any) -> dict[str, Any]:
        if isinstance(value, Ref):
            return {"$ref": REF + value.name}
        if isinstance(value, dict):
            return value
        schema: dict[str, Any] = self._by_type[value]
        return schema


@cache
def schemas() -> Schemas:
    return Schemas()


def _param(p: Param, s: Schemas) -> dict[str, Any]:
    out: dict[str, Any] = {"name": p.name, "in": p.where, "required": p.required}
    if p.description:
        out["description"] = p.description
    out["schema"] = s.of(p.schema)
    return out


def _body(body: Body, s: Schemas) -> dict[str, Any]:
    out: dict[str, Any] = {"required": body.required}
    if body.description:
        out["description"] = body.description
    out["content"] = {m: {"schema": s.of(body.schema)} for m in body.media.split(",")}
    return out


def _response(r: Response, headers: tuple[str, ...], s: Schemas) -> dict[str, Any]:
    out: dict[str, Any] = {"description": r.description}
    if headers:
        out["headers"] = {h: {"$ref": f"#/components/headers/{h}"} for h in headers}
    if r.schema is not None:
        # media: one type, or several separated by commas (the same schema in each)
        out["content"] = {m: {"schema": s.of(r.schema)} for m in r.media.split(",")}
    return out


def operation(op: Operation, s: Schemas | None = None) -> dict[str, Any]:
    s = s or schemas()
    out: dict[str, Any] = {"operationId": op.id, "summary": op.summary, "tags": [op.tag]}
    if op.description:
        out["description"] = op.description
    if op.params:
        out["parameters"] = [_param(p, s) for p in op.params]
    if op.body is not None:
        out["requestBody"] = _body(op.body, s)
    out["responses"] = {r.status: _response(r, op.headers, s) for r in op.responses}
    out["security"] = [dict(req) for req in op.security]
    return out


def _undocumented(method: str, path: str) -> dict[str, Any]:
    return {
        "operationId": f"undocumented_{method.lower()}_{re.sub(r'[^A-Za-z0-9]+', '_', path)}",
        "summary": "Served, not documented yet",
        "tags": ["Undocumented"],
        "x-undocumented": True,
        "responses": {"default": {"description": "Not documented yet."}},
    }


def _refs(node: Any) -> Iterator[str]:
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith(REF):
            yield ref[len(REF) :]
        for value in node.values():
            yield from _refs(value)
    elif isinstance(node, list):
        for value in node:
            yield from _refs(value)


def _reachable(paths: dict[str, Any], components: dict[str, Any]) -> dict[str, Any]:
    seen: dict[str, Any] = {}
    todo = list(_refs(paths))
    while todo:
        name = todo.pop()
        if name not in seen:
            seen[name] = components[name]
            todo.extend(_refs(components[name]))
    return dict(sorted(seen.items()))


def build(
    served: Iterable[tuple[str, str]], name: str | None = None, server: str = "/"
) -> dict[str, Any]:
    """The document of ``name`` (gateway, bank, control; None: everything) for the routes
    ``served`` (method, path as the app's router has them)."""
    prefixes, title, description = ALL if name is None else DOCUMENTS[name]
    wanted = {(m, p) for m, p in served if m != "HEAD" and p.startswith(prefixes)}
    by_key = {op.key: op for op in OPERATIONS}
    s = schemas()
    paths: dict[str, dict[str, Any]] = {}
    tags: dict[str, None] = {}
    used: set[str] = set()
    for op in OPERATIONS:  # the tables' order, then what they do not know
        if op.key in wanted:
            paths.setdefault(op.path, {})[op.method.lower()] = operation(op, s)
            tags[op.tag] = None
            used.update(k for req in op.security for k in req)
    for method, path in sorted(wanted, key=lambda key: (key[1], key[0])):
        if (method, path) not in by_key:
            paths.setdefault(path, {})[method.lower()] = _undocumented(method, path)
            tags["Undocumented"] = None
    headers = {h for op in OPERATIONS if op.key in wanted for h in op.headers}
    components: dict[str, Any] = {"schemas": _reachable(paths, s.components)}
    if headers:
        components["headers"] = {h: errors.HEADERS[h] for h in sorted(headers)}
    components["securitySchemes"] = {k: v for k, v in errors.SECURITY_SCHEMES.items() if k in used}
    return {
        "openapi": "3.1.0",
        "info": {"title": title, "version": __version__, "description": description},
        "servers": [{"url": server}],
        "tags": [{"name": t} for t in tags],
        "paths": paths,
        "components": components,
    }


def documented(name: str | None = None) -> set[tuple[str, str]]:
    """(method, path) of every operation the tables document (for ``name``, or all)."""
    prefixes = (ALL if name is None else DOCUMENTS[name])[0]
    return {op.key for op in OPERATIONS if op.path.startswith(prefixes)}
