"""What one operation of a document says, and the interface that fills in what all its
operations share (authentication, the error dialect, faults, path parameters).

A schema is given as a Python type (``msgspec.json.schema_components`` makes its JSON Schema:
structs become components), a ``Ref`` to a hand-written component (``errors.py``) or a raw
JSON Schema ``dict``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

PATH_PARAM = re.compile(r"{([A-Za-z_][A-Za-z0-9_]*)}")

JSON = "application/json"
FORM = "application/x-www-form-urlencoded"


@dataclass(frozen=True)
class Ref:
    """A hand-written component schema, by name (``errors.COMPONENTS``)."""

    name: str


@dataclass(frozen=True)
class Param:
    name: str
    schema: Any = str
    description: str = ""
    required: bool = False
    where: str = "query"


@dataclass(frozen=True)
class Body:
    schema: Any
    media: str = JSON
    required: bool = True
    description: str = ""


@dataclass(frozen=True)
class Response:
    status: str  # "200", "404", "5XX"
    description: str
    schema: Any = None  # None: no body
    media: str = JSON


@dataclass(frozen=True)
class Operation:
    id: str
    method: str
    path: str  # as served, e.g. /api/v1/clients/{id}/
    summary: str
    tag: str
    interface: str
    responses: tuple[Response, ...]
    body: Body | None = None
    params: tuple[Param, ...] = ()
    description: str = ""
    security: tuple[Mapping[str, list[str]], ...] = ()
    headers: tuple[str, ...] = ()  # response headers (components/headers) on every response

    @property
    def key(self) -> tuple[str, str]:
        return self.method, self.path


Errors = Mapping[Any, str]  # status (404, or "5XX") -> when it is answered


@dataclass(frozen=True)
class Interface:
    """What every operation of one interface shares."""

    name: str
    prefix: str
    error: Callable[[int], Any]  # the dialect's error body for a status
    security: tuple[Mapping[str, list[str]], ...] = ()
    always: Errors = field(default_factory=dict)  # answered by any operation (auth, faults)
    with_body: Errors = field(default_factory=dict)  # answered by any operation with a body
    with_id: Errors = field(default_factory=dict)  # answered by any operation with a path id
    path_params: Mapping[str, Param] = field(default_factory=dict)  # by name
    headers: tuple[str, ...] = ()

    def operation(
        self,
        op_id: str,
        method: str,
        path: str,
        summary: str,
        tag: str,
        ok: Any,
        *,
        status: int = 200,
        body: Any = None,
        query: tuple[Param, ...] = (),
        errors: Errors | None = None,
        description: str = "",
        media: str = JSON,
        secured: bool = True,
        prefixed: bool = True,
    ) -> Operation:
        """One entry of a table: ``ok`` is the success body's type (None: no body, as a 204);
        ``errors`` the statuses this operation answers beyond what the interface adds."""
        full = (self.prefix if prefixed else "") + path
        body_spec = body if isinstance(body, Body) or body is None else Body(body)
        names = PATH_PARAM.findall(full)
        statuses: dict[str, list[str]] = {}

        def add(found: Errors) -> None:
            for code, text in found.items():
                statuses.setdefault(str(code), []).append(text)

        add(errors or {})
        if body_spec is not None and body_spec.media == JSON:
            add(self.with_body)
        if names:
            add(self.with_id)
        add({k: v for k, v in self.always.items() if secured or str(k) not in ("401", "403")})
        responses = [Response(str(status), "Success.", ok, media)]
        for code in sorted(statuses, key=_status_order):
            text = " ".join(dict.fromkeys(statuses[code]))
            responses.append(Response(code, text, self.error(_status_number(code))))
        params = tuple(self.path_params.get(n, Param(n, str, where="path")) for n in names)
        return Operation(
            id=op_id,
            method=method,
            path=full,
            summary=summary,
            tag=tag,
            interface=self.name,
            responses=tuple(responses),
            body=body_spec,
            params=(*_required_path(params), *query),
            description=description,
            security=self.security if secured else (),
            headers=self.headers,
        )


def _required_path(params: tuple[Param, ...]) -> tuple[Param, ...]:
    return tuple(
        Param(p.name, p.schema, p.description, required=True, where="path") for p in params
    )


def _status_number(code: str) -> int:
    return int(code.replace("XX", "00"))


def _status_order(code: str) -> tuple[int, str]:
    return _status_number(code), code


def outcome_header(forms: str) -> Param:
    """The ``X-Emulator-Outcome`` header of a creating call (``emulator/http/outcome.py``)."""
    return Param(
        "X-Emulator-Outcome",
        str,
        f"Emulator addition: force this object's outcome ({forms}; the forms at"
        " GET /_emulator/test-values); another value is a 400; ignored under"
        " `serve --no-outcome-header`",
        where="header",
    )
