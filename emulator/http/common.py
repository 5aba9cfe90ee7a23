"""Pieces every interface uses: JSON responses, bounded body reading and decoding."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

import msgspec
from starlette.requests import ClientDisconnect, Request
from starlette.responses import Response

from emulator.domain.errors import BodyTooLarge, FieldError, MalformedBody, ValidationFailed
from emulator.domain.validation import split_located

if TYPE_CHECKING:
    from emulator.runtime.runtime import Runtime

T = TypeVar("T")

CALLER_KEY = "emulator.caller"  # where the caller is left in the ASGI scope (request journal)
NOTE_KEY = "emulator.note"  # why a request was refused (a 401's reason), for the journal

BODY_LIMIT = 1024 * 1024  # bytes of a JSON or form body; more is a 400 in the interface's dialect

_encoder = msgspec.json.Encoder()


class JSON(Response):
    media_type = "application/json"

    def render(self, content: Any) -> bytes:
        return _encoder.encode(content)


class RawJSON(Response):
    """A body that is already JSON bytes (objects are stored as JSON: no re-encoding)."""

    media_type = "application/json"


def runtime(request: Request) -> Runtime:
    """The app's runtime. Read from the app itself (``EmulatorApp.runtime``) where it has one:
    ``app.state`` answers through a failed attribute look-up, an AttributeError made and
    dropped on every call."""
    app = request.scope["app"]
    rt: Runtime = getattr(app, "runtime", None) or app.state.runtime
    return rt


_DECIMAL = re.compile(r"^-?[0-9]{1,18}\Z")


def parse_int(raw: str | None) -> int | None:
    """A plain ASCII decimal integer (no '²', '1_000' or spaces), else None."""
    if raw is None or not _DECIMAL.match(raw):
        return None
    return int(raw)


def header(request: Request, name: bytes) -> str | None:
    """The first header ``name`` (lower case, as ASGI gives them) as text: what
    ``request.headers.get`` answers, without building the headers' mapping, whose ``get`` of
    a header not sent raised and caught a KeyError (three look-ups a request)."""
    for key, value in request.scope["headers"]:
        if key == name:
            text: str = value.decode("latin-1")
            return text
    return None


async def read_body(request: Request, limit: int = BODY_LIMIT) -> bytes:
    declared = header(request, b"content-length")
    size_declared = parse_int(declared)
    if size_declared is not None and size_declared > limit:
        raise BodyTooLarge(f"Request body is too large (limit {limit} bytes).")
    chunks: list[bytes] = []
    size = 0
    while True:  # the ASGI messages themselves: Request.stream() costs a generator per request
        message = await request.receive()
        if message["type"] == "http.disconnect":
            raise ClientDisconnect()
        chunk: bytes = message.get("body", b"")
        size += len(chunk)
        if size > limit:
            raise BodyTooLarge(f"Request body is too large (limit {limit} bytes).")
        chunks.append(chunk)
        if not message.get("more_body", False):
            return chunks[0] if len(chunks) == 1 else b"".join(chunks)


_PATH_PART = re.compile(r"\.([A-Za-z_][A-Za-z0-9_]*)|\[(\d+)\]")


def json_path_to_field(path: str) -> str:
    """msgspec's ``$.cc[1]`` becomes the gateway's dotted ``cc.1``."""
    parts = [m.group(1) or m.group(2) for m in _PATH_PART.finditer(path.removeprefix("$"))]
    return ".".join(parts) or "__all__"


_MISSING = re.compile(r"^Object missing required field `([^`]+)`")


def decode_json(body: bytes, model: type[T], prepare: Callable[[Any], None] | None = None) -> T:
    """Decode a JSON body into ``model``: malformed JSON and wrong types become 400s.
    ``prepare`` first sees the parsed JSON (dicts, lists...) and may change it in place
    before it is converted (the gateway's reading of what real clients send)."""
    if not body or body.isspace():
        raise MalformedBody("Request body is empty; a JSON object is expected.")
    try:
        if prepare is None:
            value: T = parse_json(body, model)
        else:
            try:
                parsed = parse_json(body)
            except msgspec.ValidationError:  # a number out of range: the typed decode names
                parse_json(body, model)  # its field ("$.price", not "$[...]"), else this one
                raise
            prepare(parsed)
            value = msgspec.convert(parsed, model)
    except msgspec.ValidationError as exc:
        raise _validation_failed(str(exc)) from exc
    return value


def parse_json(body: bytes, model: Any = Any) -> Any:
    """msgspec's decode, with every way bytes can fail to be JSON as ``MalformedBody``
    (``msgspec.ValidationError``, a JSON of the wrong shape, is left to the caller)."""
    try:
        return msgspec.json.decode(body, type=model)
    except msgspec.ValidationError:
        raise
    except (msgspec.DecodeError, UnicodeDecodeError, RecursionError) as exc:
        raise MalformedBody(f"JSON parse error - {not_json(exc)}") from exc


# msgspec's account of malformed JSON: what it found and at which byte.
_AT_BYTE = re.compile(r"^(?:[^:]*: )?(?P<what>.+?) \(byte (?P<at>\d+)\)$")


def not_json(exc: Exception) -> str:
    """Why bytes are not JSON, in the emulator's words whatever msgspec's version says: the same
    bytes get the same answer on any day's install. Bad UTF-8 inside a string is a
    ``UnicodeDecodeError`` up to msgspec 0.22 and a ``DecodeError`` of its own words since; only
    malformed JSON keeps msgspec's few words of what it found, with the byte where it did."""
    text = str(exc)
    if isinstance(exc, UnicodeDecodeError) or "utf-8" in text.lower():
        return "the body is not valid UTF-8"
    if isinstance(exc, RecursionError):  # msgspec recurses once per nesting level
        return "nested too deeply"
    if "truncated" in text.lower():
        return "the body ends before its JSON does"
    found = _AT_BYTE.search(text)
    if found:
        return f"JSON is malformed: {found['what']} (byte {found['at']})"
    return "the body is not JSON"


def _validation_failed(text: str) -> ValidationFailed:
    message, where, _ = split_located(text)
    path = "$" + (where or "")
    missing = _MISSING.match(message)
    if missing:
        prefix = json_path_to_field(path)
        field = missing.group(1) if prefix == "__all__" else f"{prefix}.{missing.group(1)}"
        return ValidationFailed([FieldError(field, "required", "This field is required.")])
    if path == "$":
        return ValidationFailed([FieldError("__all__", "invalid", message)])
    return ValidationFailed([FieldError(json_path_to_field(path), "invalid", message + ".")])


# (table, lowercased object id, its owner or None) of the object a request names, when it
# was read before the request was served (the flow recorder's moves read it for themselves).
OWNER_KEY = "emulator.owner"


async def on_clock_of(request: Request, table: str) -> None:
    """Serve this request on the clock of the merchant that owns the object its path names
    (``{id}``): pages and control-plane actions name an object, not a merchant."""
    object_id = request.path_params.get("id")
    if isinstance(object_id, str) and 0 < len(object_id) <= 64:
        rt, object_id = runtime(request), object_id.lower()
        known = request.scope.get(OWNER_KEY)
        if known is not None and known[:2] == (table, object_id):  # read once
            if known[2] is not None:
                await rt.enter(known[2])
            return
        await rt.enter_object(table, object_id)


# -- credentials: both interfaces take ``Authorization: Bearer <token>`` --------------------


def no_bearer(request: Request, what: str) -> str:
    """Why there is no usable ``Bearer`` credential (for the request journal)."""
    header = request.headers.get("authorization")
    if header is None:
        return f"no Authorization header; expected 'Bearer <{what}>'"
    scheme = header.partition(" ")[0]
    if scheme.lower() != "bearer":
        return f"Authorization scheme {scheme[:20]!r}; expected 'Bearer <{what}>'"
    return f"a malformed Bearer credential (empty, or with spaces); expected <{what}>"


def bearer(request: Request) -> str | None:
    """The token of a well-formed ``Bearer`` header, else None."""
    scheme, _, token = (header(request, b"authorization") or "").partition(" ")
    token = token.strip()
    if scheme.lower() != "bearer" or not token or " " in token:
        return None
    return token
