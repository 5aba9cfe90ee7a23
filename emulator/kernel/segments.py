"""Names and ids as URL path segments, checked before any request: the standard library only,
for the command line's verbs (which start without the test helpers) as for the test helpers
(``emulator.testing.records`` re-exports them)."""

from __future__ import annotations

from urllib.parse import quote


class BadPathSegment(ValueError):
    """A name or id that cannot be one segment of a URL path (empty, ``.``, ``..``, or with
    control characters): refused before any request is made."""


def has_control(text: str) -> bool:
    """Whether ``text`` holds a control character (C0, DEL or C1)."""
    return any(ord(c) < 0x20 or 0x7F <= ord(c) < 0xA0 for c in text)


def path_segment(value: object, what: str = "name") -> str:
    """``value`` (a name or an id) as exactly one segment of a URL path: percent-encoded, ``/``,
    ``?``, ``#`` and ``%`` included, so no name reaches another endpoint (``../reset``) or
    adds a query. ``BadPathSegment`` for an empty name, ``.``, ``..`` or control characters."""
    text = str(value)
    if text in ("", ".", ".."):
        raise BadPathSegment(f"{what} {text!r} cannot name anything: give a real name")
    if has_control(text):
        raise BadPathSegment(f"{what} {text!r} holds control characters")
    return quote(text, safe="")
