"""The ``regex`` matchers are bounded: a pattern's length, nested quantifiers (the shape of
catastrophic backtracking) refused with the key path, and values longer than a pattern reads
left unmatched, with the reason in the report."""

from __future__ import annotations

import json

import pytest

from emulator.sandbox.expectations.model import parse_set
from emulator.sandbox.expectations.model_records import Records, RequestRecord
from emulator.sandbox.expectations.rules_match import evaluate
from emulator.sandbox.expectations.rules_patterns import MAX_PATTERN, MAX_TEXT, nested_repeat
from emulator.sandbox.expectations.rules_times import ExpectationError


def _set(pattern: str) -> dict[str, object]:
    return {"expect": [{"request": {"body": {"note": {"regex": pattern}}}}]}


@pytest.mark.parametrize(
    "pattern",
    ["(a+)+", r"(\w*)*b", "((ab)+c)*", "(a{2,3})+", "(x|y+)*z", "(?:[a-z]+,?)+$", "(a*){2,}"],
)
def test_nested_quantifiers_are_refused(pattern: str):
    with pytest.raises(ExpectationError) as refused:
        parse_set(_set(pattern))
    assert str(refused.value).startswith("expect[0].request.body.note.regex: repeats a group")


@pytest.mark.parametrize(
    "pattern",
    [r"payer\d@.*", r"^\w+@\w+\.\w+$", "(ab){2}", "(a+)?", "[(a+)]+", r"\(a+\)+", "(a|b)+",
     "ORDER-[0-9]{4,8}", "(a+){1}"],
)  # fmt: skip
def test_plain_patterns_pass(pattern: str):
    assert not nested_repeat(pattern)
    parse_set(_set(pattern))


def test_a_long_pattern_is_refused():
    with pytest.raises(ExpectationError, match=f"longer than {MAX_PATTERN} characters"):
        parse_set(_set("a" * (MAX_PATTERN + 1)))
    parse_set(_set("a" * MAX_PATTERN))


def test_a_long_value_is_not_matched_and_the_report_says_why():
    long = "a" * (MAX_TEXT + 1)
    records = Records(
        requests=[
            RequestRecord(1, 0, "gateway", "POST", "/api/v1/x/", 201, json.dumps({"note": long})),
            RequestRecord(2, 1, "gateway", "POST", "/api/v1/x/", 201, json.dumps({"note": "aa"})),
        ]
    )
    report = evaluate(parse_set({**_set("a+"), "expect": [{**_set("a+")["expect"][0],
                                                          "count": 2}]}), records, 0)  # fmt: skip
    [result] = report.results
    assert not result.ok and result.matched == 1 and [m.id for m in result.matches] == [2]
    missed = evaluate(parse_set({"expect": [{"request": {"path": "/api/v1/x/", "body": {
        "note": {"regex": "b+"}}}}]}), records, 0).results[0]  # fmt: skip
    assert f"body.note is {MAX_TEXT + 1} characters long, more than a pattern reads" in (
        missed.message or ""
    )
