"""Expectations, pure: parsing with errors that name the key path, each kind's criteria, the
count forms, ``within``/``after``, ``in_order``, and the failure sentences with the closest
candidates (issue 26)."""

from __future__ import annotations

from typing import Any

import pytest

from emulator.sandbox.expectations.model import Count, parse_set
from emulator.sandbox.expectations.model_records import (
    DeliveryRecord,
    EventRecord,
    Records,
    RequestRecord,
    path_pattern,
)
from emulator.sandbox.expectations.rules_match import evaluate
from emulator.sandbox.expectations.rules_times import ExpectationError, parse_duration, span_text

S = 1_000_000
M = 60 * S
REFUND = "/api/v1/purchases/{id}/refund/"
SINK_URL = "http://emulator/_emulator/sink/shop"


def req(id: int, at: int, path: str = "/api/v1/purchases/p1/refund/", **kw: Any) -> RequestRecord:
    values: dict[str, Any] = {"interface": "gateway", "method": "POST", "status": 200, "body": ""}
    values.update(kw)
    return RequestRecord(id, at, path=path, **values)


def attempt(id: int, at: int, n: int, status: int, event: str = "purchase.paid") -> DeliveryRecord:
    ok = 200 <= status < 300
    return DeliveryRecord(
        id, at, 7, event, "purchase", "p1", "webhook", SINK_URL, n, status, None, ok
    )


def event(seq: int, at: int, type_: str, status: str, object_id: str = "p1") -> EventRecord:
    raw = f'{{"id": "{object_id}", "status": "{status}", "reference": "R-{object_id}"}}'
    return EventRecord(seq, f"e{seq}", at, type_, "purchase", object_id, status, raw.encode())


def run(body: dict[str, Any], records: Records, start: int = 0) -> Any:
    return evaluate(parse_set(body), records, start)


def bad(body: Any) -> str:
    with pytest.raises(ExpectationError) as caught:
        parse_set(body)
    return str(caught.value)


# -- parsing ---------------------------------------------------------------------------------


def test_a_bad_duration_names_its_key_path():
    body = {"expect": [{"request": {}}, {"request": {}}, {"request": {}, "within": "5x"}]}
    assert bad(body) == 'expect[2].within: "5x" is not a duration (such as "5m", "3d")'


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({}, "expect: must be a non-empty list of expectations"),
        ({"expect": [{}]}, "expect[0]: needs exactly one of: request, delivery, transition, event"),
        ({"expect": [{"request": {}, "event": {}}]}, "got request, event"),
        ({"expect": [{"request": {"verb": "GET"}}]}, "expect[0].request.verb: is not a field"),
        ({"expect": [{"request": {}, "count": -1}]}, "expect[0].count: must be an integer"),
        ({"expect": [{"request": {}, "count": 1, "at_most": 2}]}, "cannot go with 'at_most'"),
        ({"expect": [{"request": {}, "never": False}]}, "expect[0].never: must be true"),
        ({"expect": [{"request": {}, "at_least": 3, "at_most": 2}]}, "is less than at_least"),
        ({"expect": [{"request": {"api": "control"}}]}, "the control plane is not journaled"),
        ({"expect": [{"request": {"body": {"a": {"any": "thing"}}}}]}, "body.a.any: must be one"),
        ({"expect": [{"request": {"body": {"a": {"regex": "("}}}}]}, "body.a.regex: is not a"),
        ({"expect": [{"delivery": {"outcome": "maybe"}}]}, "expect[0].delivery.outcome"),
        ({"expect": [{"transition": {"object_id": "x"}}]}, "transition.status: is required"),
        ({"expect": [{"event": {}, "after": "nobody"}]}, "'nobody' is neither an ISO instant"),
        ({"expect": [{"event": {}, "id": "a"}, {"event": {}, "id": "a"}]}, "'a' is used twice"),
        ({"expect": [{"event": {}, "within": {"fortnights": 1}}]}, "within.fortnights: is not a"),
        ({"expect": [{"event": {}}], "in_order": "yes"}, "in_order: must be true or false"),
    ],
)
def test_bad_input_is_refused_with_its_path(body: dict[str, Any], message: str):
    assert message in bad(body)


def test_durations():
    assert parse_duration("d", "5m") == 5 * M
    assert parse_duration("d", "1h30m") == 90 * M
    assert parse_duration("d", "500ms") == 500_000
    assert parse_duration("d", {"days": 3, "hours": 1}) == (3 * 24 + 1) * 60 * M
    assert parse_duration("d", 1.5) == 1_500_000
    assert span_text(7 * M) == "+7m"
    assert span_text(3 * 86_400 * S + 2 * 3600 * S + 5 * S) == "+3d 2h"


def test_count_forms():
    assert parse_set({"expect": [{"event": {}}]}).items[0].count == Count(1, None)
    assert parse_set({"expect": [{"event": {}, "count": 2}]}).items[0].count == Count(2, 2)
    assert parse_set({"expect": [{"event": {}, "at_most": 2}]}).items[0].count == Count(0, 2)
    assert parse_set({"expect": [{"event": {}, "never": True}]}).items[0].count == Count(0, 0)


def test_path_templates_and_globs():
    assert path_pattern(REFUND).fullmatch("/api/v1/purchases/abc/refund/")
    assert not path_pattern(REFUND).fullmatch("/api/v1/purchases/abc/def/refund/")
    assert path_pattern("/api/v1/purchases/*/refund").fullmatch("/api/v1/purchases/abc/refund/")
    assert path_pattern("/api/v1/**").fullmatch("/api/v1/purchases/abc/refund/")
    assert not path_pattern("/api/v1/*").fullmatch("/api/v1/purchases/abc/")


# -- matching --------------------------------------------------------------------------------


def test_exactly_one_refund_fails_with_both_named():
    records = Records(requests=[req(41, 10 * S), req(44, 11 * S)])
    report = run({"expect": [{"request": {"method": "POST", "path": REFUND}, "count": 1}]}, records)
    assert not report.ok
    assert report.results[0].message == (
        "expected exactly 1 POST /api/v1/purchases/{id}/refund/, saw 2:"
        " #41 at 1970-01-01T00:00:10Z, #44 at 1970-01-01T00:00:11Z"
    )
    assert [m.id for m in report.results[0].matches] == [41, 44]


def test_count_forms_against_records():
    records = Records(requests=[req(1, 0), req(2, S)])
    item = {"request": {"path": REFUND}}
    assert run({"expect": [item]}, records).ok
    assert run({"expect": [{**item, "at_least": 2}]}, records).ok
    assert not run({"expect": [{**item, "at_least": 3}]}, records).ok
    assert run({"expect": [{**item, "at_most": 2}]}, records).ok
    assert not run({"expect": [{**item, "at_most": 1}]}, records).ok
    never = run({"expect": [{**item, "never": True}]}, records)
    assert not never.ok
    assert never.results[0].message is not None
    assert never.results[0].message.startswith(
        "expected no request to /api/v1/purchases/{id}/refund/, saw 2: #1 at"
    )
    assert run({"expect": [{"request": {"path": "/v2/*"}, "never": True}]}, records).ok


def test_body_subset_with_matchers_and_closest_candidates():
    records = Records(
        requests=[
            req(1, 0, body='{"amount": 500, "reason": "dup"}'),
            req(2, S, status=400, body='{"amount": "x"}'),
            req(3, 2 * S, path="/api/v1/clients/", body="{}"),
        ]
    )
    body = {"amount": {"any": "integer"}, "reason": {"regex": "du.*"}}
    ok = run({"expect": [{"request": {"path": REFUND, "body": body}}]}, records)
    assert ok.ok and [m.id for m in ok.results[0].matches] == [1]
    failed = run({"expect": [{"request": {"path": REFUND, "status": 201}}]}, records)
    result = failed.results[0]
    assert not result.ok
    assert [c.id for c in result.candidates][:2] == [2, 1]  # the newest of the nearest first
    assert result.candidates[0].differs == ["status 400"]
    assert "closest: #2 at 1970-01-01T00:00:01Z (status 400)" in (result.message or "")
    form = Records(requests=[req(1, 0, body="amount=500&reason=dup")])
    assert run({"expect": [{"request": {"body": {"amount": 500}}}]}, form).ok


def test_a_late_delivery_says_when_and_which_attempts_failed():
    records = Records(
        deliveries=[attempt(1, 1 * M, 1, 503), attempt(2, 3 * M, 2, 503), attempt(3, 7 * M, 3, 200)]
    )
    body = {"expect": [{"delivery": {"event": "purchase.paid", "sink": "shop"}, "within": "5m"}]}
    report = run(body, records)
    assert report.results[0].message == (
        "expected at least 1 purchase.paid delivered to sink 'shop' within 5m, saw none in time;"
        " it was delivered at +7m (delivery #3, attempt 3; attempts 1-2 failed with 503)"
    )
    assert run({"expect": [{**body["expect"][0], "within": "7m"}]}, records).ok
    failed = {"delivery": {"event": "purchase.*", "outcome": "failed"}, "count": 2}
    assert run({"expect": [failed]}, records).ok
    assert run({"expect": [{"delivery": {"attempt": 3, "url": SINK_URL}}]}, records).ok


def test_transitions_are_read_from_the_events_of_an_object():
    records = Records(
        events=[
            event(1, 0, "purchase.created", "created"),
            event(2, S, "purchase.paid", "paid"),
            event(3, 2 * S, "purchase.updated", "paid"),  # no change of status
            event(4, 3 * S, "purchase.refunded", "refunded"),
            event(5, 4 * S, "purchase.paid", "paid", object_id="p2"),
        ]
    )
    paid = {"transition": {"object_id": "p1", "status": "paid"}, "count": 1}
    report = run({"expect": [paid]}, records)
    assert report.ok and [m.id for m in report.results[0].matches] == ["e2"]
    by_field = {"transition": {"object_type": "purchase", "fields": {"reference": "R-p2"},
                               "status": "paid"}}  # fmt: skip
    assert [m.id for m in run({"expect": [by_field]}, records).results[0].matches] == ["e5"]
    events = {"event": {"event": "purchase.paid"}, "count": 2}
    assert run({"expect": [events]}, records).ok
    missing = run({"expect": [{"transition": {"object_id": "p1", "status": "cancelled"}}]}, records)
    assert "closest:" in (missing.results[0].message or "")


def test_within_after_another_item():
    records = Records(
        requests=[req(1, 10 * S, path="/api/v1/purchases/")],
        deliveries=[attempt(5, 10 * S + 30 * S, 1, 200)],
    )
    made = {"id": "made", "request": {"path": "/api/v1/purchases/"}}
    quick = {"delivery": {"sink": "shop"}, "after": "made", "within": "1m"}
    assert run({"expect": [made, quick]}, records).ok
    slow = {**quick, "within": "10s"}
    assert not run({"expect": [made, slow]}, records).ok
    nothing = run({"expect": [{"id": "made", "request": {"path": "/v2/x"}}, quick]}, records)
    assert "it comes after 'made', which has not happened" in (nothing.results[1].message or "")
    late_start = {"delivery": {"sink": "shop"}, "after": "1970-01-01T00:01:00Z"}
    assert not run({"expect": [late_start]}, records).ok


def test_within_counts_from_the_start_of_the_set():
    records = Records(requests=[req(1, 100 * S)])
    assert run({"expect": [{"request": {}, "within": "2m"}]}, records, start=0).ok
    assert not run({"expect": [{"request": {}, "within": "1m"}]}, records, start=0).ok
    assert run({"expect": [{"request": {}, "within": "1m"}]}, records, start=60 * S).ok


def test_in_order():
    records = Records(requests=[req(1, 0, path="/a/"), req(2, S, path="/b/")])
    forward = {
        "expect": [{"request": {"path": "/a"}}, {"request": {"path": "/b"}}],
        "in_order": True,
    }
    assert run(forward, records).ok
    backward = {
        "expect": [{"request": {"path": "/b"}}, {"request": {"path": "/a"}}],
        "in_order": True,
    }
    report = run(backward, records)
    assert [r.ok for r in report.results] == [True, False]
    assert "(in_order), but its matches came before" in (report.results[1].message or "")
    backward["in_order"] = False
    assert run(backward, records).ok
