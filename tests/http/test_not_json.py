"""Bytes that are not JSON get the emulator's own sentence, whichever way msgspec reports them:
the same bytes, the same answer, on any day's install (issue 41: msgspec 0.23 turned bad UTF-8
inside a string from a ``UnicodeDecodeError`` into a ``DecodeError`` with words of its own)."""

from __future__ import annotations

import msgspec
import pytest

from emulator.domain.errors import MalformedBody
from emulator.http.common import not_json, parse_json
from tests.conftest import DEFAULT_KEY

GW = {"Authorization": f"Bearer {DEFAULT_KEY}"}
BAD_UTF8 = b'{"email": "\xff\xfe@example.com"}'


@pytest.mark.parametrize(
    "exc",
    [
        UnicodeDecodeError("utf-8", b"\xff", 0, 1, "invalid start byte"),  # msgspec <= 0.22
        msgspec.DecodeError("Invalid UTF-8 encoded string"),  # msgspec 0.23
    ],
    ids=["UnicodeDecodeError", "DecodeError"],
)
def test_bad_utf8_is_one_sentence_whichever_exception(exc: Exception) -> None:
    assert not_json(exc) == "the body is not valid UTF-8"


def test_the_installed_msgspec_gives_that_sentence() -> None:
    with pytest.raises(MalformedBody) as raised:
        parse_json(BAD_UTF8)
    assert raised.value.detail == "JSON parse error - the body is not valid UTF-8"


@pytest.mark.parametrize(
    ("exc", "sentence"),
    [
        (msgspec.DecodeError("Input data was truncated"), "the body ends before its JSON does"),
        (RecursionError("maximum recursion depth exceeded"), "nested too deeply"),
        (msgspec.DecodeError("something msgspec never said"), "the body is not JSON"),
        # what was found, and where: the position a client needs, kept
        (
            msgspec.DecodeError("JSON is malformed: expected ':' (byte 5)"),
            "JSON is malformed: expected ':' (byte 5)",
        ),
        (
            msgspec.DecodeError("Malformed JSON: trailing comma (byte 3)"),
            "JSON is malformed: trailing comma (byte 3)",
        ),
    ],
)
def test_other_failures_in_the_emulators_words(exc: Exception, sentence: str) -> None:
    assert not_json(exc) == sentence


async def test_the_same_bytes_get_one_answer_served(http) -> None:
    """Through the gateway and the control plane alike."""
    answer = await http.post("/api/v1/clients/", content=BAD_UTF8, headers=GW)
    assert answer.status_code == 400
    assert answer.json() == {
        "__all__": {
            "message": "JSON parse error - the body is not valid UTF-8",
            "code": "parse_error",
        }
    }
    control = await http.post("/_emulator/merchants", content=BAD_UTF8)
    assert control.status_code == 400
    assert control.json()["error"]["message"] == "JSON parse error - the body is not valid UTF-8"
    malformed = await http.post("/api/v1/clients/", content=b'{"email" 1}', headers=GW)
    message = malformed.json()["__all__"]["message"]
    assert message.startswith("JSON parse error - JSON is malformed: ") and "(byte 9)" in message
