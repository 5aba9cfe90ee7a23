"""The reference page: an OpenAPI document as one server-rendered HTML page.

Operations are grouped by interface, then by tag, each with its parameters, request body and
responses; every component schema follows as a table of its properties. The style sheet and
the small filter script are files of this package (``static/``), inlined: no CDN, nothing
else to fetch.
"""

from __future__ import annotations

import re
from functools import cache
from html import escape
from importlib.resources import files
from typing import Any

from emulator.openapi import words
from emulator.openapi.words import Style

# Interfaces, by the prefix of their paths, in the page's order.
SECTIONS = (
    ("gateway", "The gateway", ("/api/v1/", "/payouts/")),
    ("oauth", "OAuth 2.0", ("/oauth2/",)),
    ("bank", "The bank interface", ("/v2/",)),
    ("control", "The control plane", ("/_emulator/",)),
)
METHODS = ("get", "put", "post", "delete", "patch")


@cache
def asset(name: str) -> str:
    return files("emulator.openapi").joinpath("static", name).read_text(encoding="utf-8")


def _e(value: object) -> str:
    return escape(str(value), quote=True)


_CODE = re.compile(r"`([^`]+)`")


def _text(value: object) -> str:
    """Prose of the document: escaped, with `code` spans as <code>."""
    return _CODE.sub(r"<code>\1</code>", _e(value))


def _anchor(name: str) -> str:
    return "schema-" + "".join(c if c.isalnum() or c in "-_" else "-" for c in name)


def _link(name: str) -> str:
    return f'<a class="ref" href="#{_anchor(name)}">{_e(name)}</a>'


HTML = Style(ref=_link, code=lambda s: f"<code>{_e(s)}</code>", text=_e, alternatives=" | ")


def type_of(schema: Any) -> str:
    """A schema in a few words of HTML: links for components, ``|`` for alternatives."""
    return words.type_of(schema, HTML)


def _limits(schema: dict[str, Any]) -> str:
    shown = []
    for key, label in (
        ("minLength", "min length"),
        ("maxLength", "max length"),
        ("minimum", "≥"),
        ("maximum", "≤"),
        ("default", "default"),
    ):
        if key in schema:
            shown.append(f"{label} <code>{_e(words.json_text(schema[key]))}</code>")
    return "; ".join(shown)


def _section_of(path: str) -> str:
    for key, _, prefixes in SECTIONS:
        if path.startswith(prefixes):
            return key
    return "other"


def _operations(doc: dict[str, Any]) -> dict[str, dict[str, list[tuple[str, str, Any]]]]:
    """section -> tag -> [(method, path, operation)], in the document's order."""
    grouped: dict[str, dict[str, list[tuple[str, str, Any]]]] = {}
    for path, item in doc.get("paths", {}).items():
        for method in METHODS:
            if method in item:
                op = item[method]
                tag = (op.get("tags") or ["Other"])[0]
                section = grouped.setdefault(_section_of(path), {})
                section.setdefault(tag, []).append((method, path, op))
    return grouped


def _params(op: dict[str, Any]) -> str:
    params = op.get("parameters", [])
    if not params:
        return ""
    rows = "".join(
        f"<tr><td><code>{_e(p['name'])}</code></td><td>{_e(p['in'])}</td>"
        f"<td>{'yes' if p.get('required') else ''}</td><td>{type_of(p.get('schema'))}"
        f" {_limits(p.get('schema', {}))}</td><td>{_text(p.get('description', ''))}</td></tr>"
        for p in params
    )
    return (
        "<h4>Parameters</h4><table><thead><tr><th>Name</th><th>In</th><th>Required</th>"
        f"<th>Type</th><th>Description</th></tr></thead><tbody>{rows}</tbody></table>"
    )


def _content(content: dict[str, Any]) -> str:
    return "<br>".join(
        f"<code>{_e(media)}</code>: {type_of(body.get('schema'))}"
        for media, body in content.items()
    )


def _body(op: dict[str, Any]) -> str:
    body = op.get("requestBody")
    if body is None:
        return ""
    need = "required" if body.get("required") else "optional"
    note = f" {_text(body['description'])}" if body.get("description") else ""
    return f"<h4>Request body ({need})</h4><p>{_content(body.get('content', {}))}{note}</p>"


def _responses(op: dict[str, Any]) -> str:
    rows = "".join(
        f'<tr><td class="status s{_e(str(status)[0])}">{_e(status)}</td>'
        f"<td>{_text(r.get('description', ''))}</td><td>{_content(r.get('content', {}))}</td></tr>"
        for status, r in op.get("responses", {}).items()
    )
    return (
        "<h4>Responses</h4><table><thead><tr><th>Status</th><th>When</th><th>Body</th></tr>"
        f"</thead><tbody>{rows}</tbody></table>"
    )


def _security(op: dict[str, Any]) -> str:
    names = [" + ".join(req) or "none" for req in op.get("security", [])]
    if not names:
        return '<p class="auth">Authentication: none</p>'
    return f'<p class="auth">Authentication: {_e(" or ".join(names))}</p>'


def _operation(method: str, path: str, op: dict[str, Any]) -> str:
    op_id = op.get("operationId", f"{method}-{path}")
    description = f"<p>{_text(op['description'])}</p>" if op.get("description") else ""
    return (
        f'<article class="op" id="op-{_e(op_id)}" data-search="{_e(f"{method} {path} ")}'
        f'{_e(op.get("summary", ""))}"><h3><span class="method {method}">{method.upper()}'
        f'</span> <code>{_e(path)}</code></h3><p class="summary">{_e(op.get("summary", ""))}'
        f"</p>{description}{_security(op)}{_params(op)}{_body(op)}{_responses(op)}</article>"
    )


def _schema(name: str, schema: dict[str, Any]) -> str:
    required = set(schema.get("required", []))
    props = schema.get("properties", {})
    description = schema.get("description", "")
    head = f'<article class="schema" id="{_anchor(name)}" data-search="{_e(name)}">'
    head += f"<h3>{_e(name)}</h3>"
    if description:
        head += f"<p>{_text(description)}</p>"
    if not props:
        return (
            f"{head}<p>{type_of({k: v for k, v in schema.items() if k != 'title'})}</p></article>"
        )
    rows = "".join(
        f"<tr><td><code>{_e(field)}</code></td><td>{'yes' if field in required else ''}</td>"
        f"<td>{type_of(spec)}</td><td>{_text(spec.get('description', ''))}"
        f"{' ' + _limits(spec) if _limits(spec) else ''}</td></tr>"
        for field, spec in props.items()
    )
    return (
        f"{head}<table><thead><tr><th>Field</th><th>Required</th><th>Type</th>"
        f"<th>Notes</th></tr></thead><tbody>{rows}</tbody></table></article>"
    )


def _nav(grouped: dict[str, dict[str, list[tuple[str, str, Any]]]]) -> str:
    parts = []
    for key, title, _ in SECTIONS:
        if key not in grouped:
            continue
        tags = "".join(
            f'<li><a href="#tag-{key}-{_anchor(tag)}">{_e(tag)}</a></li>' for tag in grouped[key]
        )
        parts.append(f'<li><a href="#section-{key}">{_e(title)}</a><ul>{tags}</ul></li>')
    parts.append('<li><a href="#schemas">Schemas</a></li>')
    return f"<nav><ul>{''.join(parts)}</ul></nav>"


def page(doc: dict[str, Any]) -> str:
    """The whole reference page of ``doc``."""
    info = doc.get("info", {})
    grouped = _operations(doc)
    body = []
    for key, title, _ in SECTIONS:
        if key not in grouped:
            continue
        body.append(f'<section id="section-{key}"><h2>{_e(title)}</h2>')
        for tag, ops in grouped[key].items():
            body.append(f'<section class="tag" id="tag-{key}-{_anchor(tag)}"><h2>{_e(tag)}</h2>')
            body.extend(_operation(m, p, op) for m, p, op in ops)
            body.append("</section>")
        body.append("</section>")
    schemas = doc.get("components", {}).get("schemas", {})
    body.append('<section id="schemas"><h2>Schemas</h2>')
    body.extend(_schema(name, schema) for name, schema in schemas.items())
    body.append("</section>")
    links = " · ".join(
        f'<a href="{path}">{_e(path)}</a>'
        for path in (
            "openapi.json",
            "openapi/gateway.json",
            "openapi/bank.json",
            "openapi/control.json",
        )
    )
    return (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{_e(info.get('title', 'API reference'))}</title>"
        f"<style>{asset('docs.css')}</style></head><body>"
        f"<header><h1>{_e(info.get('title', 'API reference'))} "
        f"<small>{_e(info.get('version', ''))}</small></h1>"
        f"<p>{_text(info.get('description', ''))}</p><p>OpenAPI 3.1: {links}</p>"
        '<input id="filter" type="search" placeholder="Filter operations and schemas"'
        ' aria-label="Filter operations and schemas" accesskey="f"></header>'
        f'<div class="layout">{_nav(grouped)}<main>{"".join(body)}</main></div>'
        f"<script>{asset('docs.js')}</script></body></html>"
    )
