"""Checks an HTTP answer against the OpenAPI document of everything served.

``ResponseCheck.problems(method, path, status, headers, body)`` finds the operation (a documented
path and method; anything else, like an unknown path or a wrong method, is not an operation and
is not checked), the response documented for the status (exact, then ``4XX``/``5XX``, then
``default``), and validates the content type, the documented headers and the JSON body against
the schema (JSON Schema 2020-12, ``jsonschema``).
"""

from __future__ import annotations

import json
import re
from functools import cache
from typing import Any

import jsonschema

from emulator.openapi import document
from emulator.serving.app import route_table


def served() -> list[tuple[str, str]]:
    return [(m, r.path) for r in route_table() for m in (getattr(r, "methods", None) or ())]


@cache
def the_document() -> dict[str, Any]:
    return document.build(served())


class ResponseCheck:
    def __init__(self, doc: dict[str, Any]) -> None:
        self.doc = doc
        self._paths: list[tuple[int, re.Pattern[str], str]] = []
        for path in doc["paths"]:
            pattern = re.sub(r"\\{[A-Za-z_][A-Za-z0-9_]*\\}", "[^/]+", re.escape(path))
            self._paths.append((path.count("{"), re.compile(f"^{pattern}$"), path))
        self._paths.sort(key=lambda entry: entry[0])  # literal paths win over templates
        self._validators: dict[int, jsonschema.protocols.Validator] = {}

    def operation(self, method: str, path: str) -> tuple[str, dict[str, Any]] | None:
        for _, pattern, template in self._paths:
            if pattern.match(path):
                op = self.doc["paths"][template].get(method.lower())
                if op is not None and not op.get("x-undocumented"):
                    return template, op
                return None
        return None

    def response_of(self, op: dict[str, Any], status: int) -> dict[str, Any] | None:
        responses = op["responses"]
        for key in (str(status), f"{str(status)[0]}XX", "default"):
            if key in responses:
                found: dict[str, Any] = responses[key]
                return found
        return None

    def _validator(self, schema: dict[str, Any]) -> jsonschema.protocols.Validator:
        key = id(schema)
        if key not in self._validators:
            root = {**schema, "components": self.doc["components"]}
            self._validators[key] = jsonschema.Draft202012Validator(root)
        return self._validators[key]

    def problems(
        self, method: str, path: str, status: int, headers: dict[str, str], body: bytes
    ) -> list[str]:
        found = self.operation(method, path)
        if found is None:
            return []
        _, op = found
        where = f"{method} {path} ({op['operationId']}) answered {status}"
        response = self.response_of(op, status)
        if response is None:
            return [f"{where}: status not documented (documented: {sorted(op['responses'])})"]
        out = []
        for name, spec in response.get("headers", {}).items():
            header = self._header(spec)
            if header.get("required") and name.lower() not in headers:
                out.append(f"{where}: header {name} missing")
        content = response.get("content")
        if not content:
            if body:
                out.append(f"{where}: a body where none is documented: {body[:200]!r}")
            return out
        media = headers.get("content-type", "").split(";")[0].strip()
        if media not in content:
            return [*out, f"{where}: content type {media!r}, documented {sorted(content)}"]
        if media != "application/json":
            return out
        try:
            instance = json.loads(body)
        except ValueError:
            return [*out, f"{where}: body is not JSON: {body[:200]!r}"]
        schema = content[media]["schema"]
        errors = sorted(self._validator(schema).iter_errors(instance), key=lambda e: e.path)
        for error in errors[:3]:
            at = "/".join(str(p) for p in error.absolute_path) or "(root)"
            out.append(f"{where}: body at {at}: {error.message[:300]}")
        return out

    def _header(self, spec: dict[str, Any]) -> dict[str, Any]:
        ref = spec.get("$ref")
        if ref is None:
            return spec
        found: dict[str, Any] = self.doc["components"]["headers"][ref.rsplit("/", 1)[-1]]
        return found


@cache
def checker() -> ResponseCheck:
    return ResponseCheck(the_document())
