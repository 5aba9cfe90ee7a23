"""``${name.path.to.field}`` in a flow's values: resolved against what the run knows.

A string that is one whole reference becomes the value it names, of its JSON type (an int
stays an int); references inside a longer string are replaced by their text. A name is a
saved answer (``save: payout``), ``merchant`` (the run's merchant: company_id, brand_id,
api_key, client_id, client_secret, profiles, ...), ``run`` (``run.id``), or ``i`` / ``item``
inside a ``repeat`` / ``for_each``. A segment that is a number indexes a list. A reference to
a missing key is a :class:`ReferenceProblem` that names it.

Pure: no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any

REF = re.compile(r"\$\{([^{}]*)\}")
NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_-]*\Z")
BUILT_IN = ("merchant", "run", "i", "item")


class ReferenceProblem(ValueError):
    """A reference that cannot be resolved; ``str()`` says which and why."""


def heads(value: Any) -> Iterator[tuple[str, str]]:
    """(the expression, its first name) of every reference in ``value``, depth first."""
    if isinstance(value, str):
        for found in REF.finditer(value):
            expression = found[1].strip()
            yield expression, expression.split(".", 1)[0]
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from heads(key)
            yield from heads(item)
    elif isinstance(value, list):
        for item in value:
            yield from heads(item)


def resolve(value: Any, scope: Mapping[str, Any]) -> Any:
    """``value`` with its references replaced (dicts and lists walked, keys included)."""
    if isinstance(value, str):
        return _string(value, scope)
    if isinstance(value, dict):
        return {_text(resolve(k, scope)): resolve(v, scope) for k, v in value.items()}
    if isinstance(value, list):
        return [resolve(item, scope) for item in value]
    return value


def _string(text: str, scope: Mapping[str, Any]) -> Any:
    whole = REF.fullmatch(text)
    if whole is not None:
        return lookup(whole[1], scope)
    return REF.sub(lambda found: _text(lookup(found[1], scope)), text)


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    return str(value)


def lookup(expression: str, scope: Mapping[str, Any]) -> Any:
    """The value ``a.b.0.c`` names in ``scope``."""
    expression = expression.strip()
    segments = expression.split(".")
    if not expression or any(not s for s in segments):
        raise ReferenceProblem(f"${{{expression}}} is not a reference: give ${{name.key}}")
    head = segments[0]
    if head not in scope:
        known = ", ".join(sorted(scope)) or "none"
        raise ReferenceProblem(f"${{{expression}}}: no {head!r} saved yet (known: {known})")
    value = scope[head]
    walked = head
    for segment in segments[1:]:
        if isinstance(value, dict):
            if segment not in value:
                keys = ", ".join(sorted(str(k) for k in value)[:20]) or "none"
                raise ReferenceProblem(
                    f"${{{expression}}}: {walked} has no key {segment!r} (keys: {keys})"
                )
            value = value[segment]
        elif isinstance(value, list):
            if not segment.isdigit() or int(segment) >= len(value):
                raise ReferenceProblem(
                    f"${{{expression}}}: {walked} is a list of {len(value)}; {segment!r} is"
                    " not an index of it"
                )
            value = value[int(segment)]
        else:
            raise ReferenceProblem(
                f"${{{expression}}}: {walked} is {_text(value)!r}, which has no key {segment!r}"
            )
        walked = f"{walked}.{segment}"
    return value
