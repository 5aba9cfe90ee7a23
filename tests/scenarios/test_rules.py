"""The scenario file format: every refusal says where; matchers apply each operator."""

from __future__ import annotations

import pytest

from emulator.scenarios.points import (
    COLLECTION_OUTCOME,
    HTTP_REQUEST,
    PURCHASE_CHARGE,
    REGISTRY,
    BankOutcome,
    HttpRequest,
    PurchasePayment,
)
from emulator.scenarios.rules import InvalidScenario, compile_match, parse

DESIGN_EXAMPLE = """
name: unpaid-large-debit-orders
description: EFT collections above R500 come back UNPAID; each callback is delivered twice.
rules:
  - when: collection.outcome
    match: {amountCents: {gt: 50000}}
    then: {status: UNPAID, reasonCode: "12"}
  - when: callback.delivery
    match: {callbackType: EFT_COLLECTION}
    then: {copies: 2}
  - when: http.request
    match: {method: POST, path: /api/v1/purchases/}
    then: {status: 503}
    times: 1
"""


def one_rule(rule: str) -> str:
    return "name: s\nrules:\n  - " + rule.strip().replace("\n", "\n    ") + "\n"


def test_the_design_example_loads_into_typed_outcomes():
    scenario = parse(DESIGN_EXAMPLE)
    assert scenario.name == "unpaid-large-debit-orders"
    assert [r.point for r in scenario.rules] == [
        "collection.outcome",
        "callback.delivery",
        "http.request",
    ]
    assert scenario.rules[0].outcome == BankOutcome(status="UNPAID", reasonCode="12")
    assert scenario.rules[2].outcome == HttpRequest(status=503)
    assert [r.times for r in scenario.rules] == [None, None, 1]
    assert scenario.rules[0].matcher({"amountCents": 50001})
    assert not scenario.rules[0].matcher({"amountCents": 50000})


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (one_rule("when: collection.outcome\nthen: {status: PAID}"),
         "rules[0].then.status: Invalid enum value 'PAID'; expected one of COMPLETED, DISPUTED, REJECTED, UNPAID"),
        (one_rule("when: collection.outcome\nthen: {status: UNPAID, reasonCode: '01'}"),
         "rules[0].then: reasonCode '01' is not one of the schedule: 02, 03, 04, 06, 08, 10, 12, 14, 16, 18, 22, 26, 28, 30, 32, 34, 36, 56"),
        (one_rule("when: collection.outcome\nthen: {status: DISPUTED, reasonCode: '02'}"),
         "rules[0].then: a dispute's reasonCode is one of authority: 30, 32, 34, 36"),
        (one_rule("when: payment.outcome\nthen: {status: REJECTED, reasonCode: '02'}"),
         "rules[0].then: reasonCode goes with UNPAID or DISPUTED, not REJECTED"),
        (one_rule("when: collection.outcome\nthen: {status: UNPAID, dispute_after_days: 3}"),
         "rules[0].then: dispute_after_days goes with status: DISPUTED"),
        (one_rule("when: collection.outcome\nthen: {status: DISPUTED, dispute_after_days: 41}"),
         "rules[0].then.dispute_after_days: Expected `int` <= 40"),
        (one_rule("when: collection.outcome\nthen: {status: UNPAID, reasonCode: '22', funds_on_day: 2}"),
         "rules[0].then: funds_on_day goes with status: UNPAID and reasonCode 02"),
        (one_rule("when: purchase.payment\nthen: {result: declined, reason: broke}"),
         "rules[0].then.reason: Invalid enum value 'broke'; expected one of do_not_honour, exceeds_withdrawal_limit, expired_card, insufficient_funds, invalid_card_number, issuer_not_available, lost_card, stolen_card, suspected_fraud, validation_cvc_invalid"),
        (one_rule("when: payout.sent\nthen: {}"),
         "rules[0].when: unknown decision point 'payout.sent'; expected one of " + ", ".join(REGISTRY)),
        (one_rule("when: http.request\nmatch: {verb: GET}\nthen: {status: 503}"),
         "rules[0].match.verb: unknown match field for http.request; expected one of method, path, interface, query"),
        (one_rule("when: http.request\nmatch: {path: {gt: 3}}\nthen: {status: 503}"),
         "rules[0].match.path.gt: unknown operator 'gt' for a string field; expected one of eq, in, prefix"),
        (one_rule("when: collection.outcome\nmatch: {amountCents: {between: [1, 2]}}\nthen: {status: UNPAID}"),
         "rules[0].match.amountCents.between: unknown operator 'between' for a number field; expected one of eq, in, gt, gte, lt, lte"),
        (one_rule("when: collection.outcome\nmatch: {amountCents: {gt: lots}}\nthen: {status: UNPAID}"),
         "rules[0].match.amountCents.gt: expected a finite number, got 'lots'"),
        (one_rule("when: collection.outcome\nmatch: {amountCents: {in: 5}}\nthen: {status: UNPAID}"),
         "rules[0].match.amountCents.in: expected a list of number values"),
        (one_rule("when: collection.outcome\nmatch: {amountCents: {}}\nthen: {status: UNPAID}"),
         "rules[0].match.amountCents: an empty condition matches nothing"),
        (one_rule("when: http.request\nthen: {status: 503, colour: red}"),
         "rules[0].then: Object contains unknown field `colour`; expected one of status, delay_ms, drop, retry_after_seconds, rate_limit"),
        (one_rule("when: http.request\nthen: {status: 418}"),
         "rules[0].then.status: Invalid enum value 418; expected one of 429, 500, 502, 503, 504"),
        (one_rule("when: http.request\nthen: {}"),
         "rules[0].then: give at least one of status, delay_ms, drop or rate_limit"),
        (one_rule("when: http.request\nthen: {status: 503, rate_limit: {limit: 5}}"),
         "rules[0].then: rate_limit answers 429 itself when over the limit: drop status"),
        (one_rule("when: http.request\nthen: {delay_ms: 5, retry_after_seconds: 5}"),
         "rules[0].then: retry_after_seconds goes with a status"),
        (one_rule("when: http.request\nthen: {drop: true, status: 502}"),
         "rules[0].then: drop closes the connection: it cannot also answer with a status"),
        (one_rule("when: http.request\nthen: {status: 503}\ntimes: 0"),
         "rules[0].times: Expected `int` >= 1"),
        (one_rule("when: http.request\nthen: {status: 503}\nonce: true"),
         "rules[0]: Object contains unknown field `once`"),
        (one_rule("when: http.request"), "rules[0]: Object missing required field `then`"),
        (one_rule("when: webhook.delivery\nthen: {copies: 0}"), "rules[0].then.copies: Expected `int` >= 1"),
        (one_rule("when: purchase.charge\nthen: {result: paid, reason: lost_stolen}"),
         "rules[0].then: reason applies only to result: declined"),
        (one_rule("when: payout.settlement\nthen: {result: failed, after_seconds: -1}"),
         "rules[0].then.after_seconds: Expected `int` >= 0"),
        ("name: s\nrules: []\n", "rules: at least one rule is needed"),
        ("name: Bad Name\nrules: []\n", "name: must be 1-64 characters of a-z, 0-9, '.', '_' or '-', starting with a letter or digit"),
        ("rules: []\n", "Object missing required field `name`"),
        ("name: s\nrules: []\nauthor: me\n", "Object contains unknown field `author`"),
        ("- just\n- a list\n", "Expected `object`, got `array`"),
        ("name: s\nrules:\n  - when: http.request\n    then: {status: 503}\n  - when: nope\n    then: {}\n",
         "rules[1].when: unknown decision point 'nope'; expected one of " + ", ".join(REGISTRY)),
    ],
)  # fmt: skip
def test_refusals_say_where(text, message):
    with pytest.raises(InvalidScenario) as refused:
        parse(text)
    assert str(refused.value) == message


def test_yaml_that_does_not_parse_is_refused():
    with pytest.raises(InvalidScenario, match=r"^not valid YAML: "):
        parse("name: s\nrules: [\n")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        # a few hundred bytes of aliases would expand to gigabytes
        ("name: s\nx: &a [1, 1]\ny: [*a, *a]\nrules: []\n", "line 3: aliases (*name) are not allowed"),
        ("name: a\nname: b\nrules: []\n", "line 2: duplicate key 'name'"),
        ('{"name": "s", "rules": "\\ud800\\udc00"}', "a string is not valid text: '\\ud800\\udc00'"),
        ("name: s\nrules: " + "[" * 20000 + "]" * 20000 + "\n", "nested more than 32 levels deep"),
        (b"name: s\ndescription: caf\xe9\nrules: []\n", "not UTF-8 text (byte 24)"),
        ("name: s\nrules: []\n" + "#" * 300_000, "a scenario is at most 256 KiB"),
        (one_rule("when: http.request\nmatch: {1: 2}\nthen: {status: 503}"),
         "rules[0].match: a key: Expected `str`, got `int`"),
        (one_rule("when: http.request\nthen: {rate_limit: {limt: 5}}"),
         "rules[0].then.rate_limit: Object contains unknown field `limt`; expected one of limit, window_seconds"),
        (one_rule("when: http.request\nthen: {status: PAID}"),
         "rules[0].then.status: Expected `int | null`, got `str`; expected one of 429, 500, 502, 503, 504"),
        (one_rule("when: collection.outcome\nmatch: {amountCents: {gt: .nan}}\nthen: {status: UNPAID}"),
         "rules[0].match.amountCents.gt: expected a finite number, got nan"),
        (one_rule("when: collection.outcome\nmatch: {amountCents: {in: []}}\nthen: {status: UNPAID}"),
         "rules[0].match.amountCents.in: an empty list matches nothing"),
        (one_rule("when: http.request\nmatch: {path: " + "x" * 500 + "1}\nthen: {status: 503}")
         .replace("x" * 500 + "1", "[" + ", ".join(["1"] * 200) + "]"),
         "rules[0].match.path: expected a string, got [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,..."),
    ],
)  # fmt: skip
def test_hostile_or_odd_yaml_is_refused_cheaply(text, message):
    with pytest.raises(InvalidScenario) as refused:
        parse(text)
    assert str(refused.value) == message


@pytest.mark.parametrize(
    ("match", "subject", "expected"),
    [
        ({"method": "POST"}, {"method": "POST"}, True),
        ({"method": "POST"}, {"method": "GET"}, False),
        ({"method": {"in": ["PUT", "PATCH"]}}, {"method": "PATCH"}, True),
        ({"path": {"prefix": "/v2/"}}, {"path": "/v2/collection/eft"}, True),
        ({"path": {"prefix": "/v2/"}}, {"path": "/api/v1/purchases/"}, False),
        ({"method": "GET", "path": {"prefix": "/v2/"}}, {"method": "POST", "path": "/v2/x"}, False),
        ({}, {"method": "GET"}, True),
        ({"method": "GET"}, {}, False),  # a field the subject lacks never matches
    ],
)
def test_string_matchers(match, subject, expected):
    assert compile_match(HTTP_REQUEST, match, "m")(subject) is expected


@pytest.mark.parametrize(
    ("condition", "amount", "expected"),
    [
        (100, 100, True),
        ({"gt": 100}, 100, False),
        ({"gte": 100}, 100, True),
        ({"lt": 100}, 99, True),
        ({"lte": 100}, 101, False),
        ({"gte": 100, "lt": 200}, 150, True),
        ({"gte": 100, "lt": 200}, 200, False),
        ({"in": [1, 2, 3]}, 2, True),
        ({"gt": 100}, "1000", False),  # a string is not a number
        ({"gt": 100}, True, False),  # nor is a boolean
    ],
)
def test_number_matchers(condition, amount, expected):
    matcher = compile_match(COLLECTION_OUTCOME, {"amountCents": condition}, "m")
    assert matcher({"amountCents": amount}) is expected


def test_boolean_matchers_take_equality_only():
    matcher = compile_match(PURCHASE_CHARGE, {"is_subscription": True}, "m")
    assert matcher({"is_subscription": True})
    assert not matcher({"is_subscription": 1})
    with pytest.raises(InvalidScenario, match="unknown operator 'in' for a boolean field"):
        compile_match(PURCHASE_CHARGE, {"is_subscription": {"in": [True]}}, "m")


def test_a_declined_payment_without_reason_is_allowed():
    (rule,) = parse(one_rule("when: purchase.payment\nthen: {result: declined}")).rules
    assert rule.outcome == PurchasePayment(result="declined")


@pytest.mark.parametrize(
    ("then", "outcome", "note"),
    [
        ("{result: declined, reason: invalid_card}",
         PurchasePayment(result="declined", reason="invalid_card_number"),
         "rules[0].then.reason: 'invalid_card' is an older code; loaded as the platform's"
         " 'invalid_card_number', preferred"),
        ("{result: declined, reason: lost_stolen}",
         PurchasePayment(result="declined", reason="lost_card"),
         "rules[0].then.reason: 'lost_stolen' is an older code; loaded as the platform's"
         " 'lost_card', preferred"),
    ],
)  # fmt: skip
def test_older_decline_codes_load_as_the_platforms_with_a_note(then, outcome, note):
    scenario = parse(one_rule(f"when: purchase.payment\nthen: {then}"))
    assert scenario.rules[0].outcome == outcome
    assert scenario.notes == (note,)


@pytest.mark.parametrize(
    ("then", "outcome", "note"),
    [
        ("{status: UNPAID, reason: broke}", BankOutcome(status="UNPAID", reason="broke"),
         "rules[0].then.reason: UNPAID without reasonCode is an older form; loaded as"
         " reasonCode '02' with this reason as its text; reasonCode is preferred"),
        ("{status: DISPUTED, reason: said no}", BankOutcome(status="DISPUTED", reason="said no"),
         "rules[0].then.reason: DISPUTED without reasonCode is an older form; loaded as"
         " reasonCode '30' with this reason as its text; reasonCode is preferred"),
        ("{status: UNPAID, reasonCode: '22', reason: later}",
         BankOutcome(status="UNPAID", reason="later", reasonCode="22"),
         "rules[0].then.reason: replaces the text of reasonCode '22'"),
    ],
)  # fmt: skip
def test_unpaid_with_a_reason_loads_with_a_note(then, outcome, note):
    """As before unpaid reason codes: the code is the default unless given, the text kept."""
    scenario = parse(one_rule(f"when: collection.outcome\nthen: {then}"))
    assert scenario.rules[0].outcome == outcome
    assert scenario.notes == (note,)


def test_current_forms_have_no_notes():
    assert parse(DESIGN_EXAMPLE).notes == ()
    rejected = one_rule("when: payment.outcome\nthen: {status: REJECTED, reason: said no}")
    assert parse(rejected).notes == ()


def test_every_point_has_fields_and_an_outcome_that_refuses_unknown_keys():
    for name, point in REGISTRY.items():
        assert point.name == name and point.fields and point.doc
        assert point.outcome.__struct_config__.forbid_unknown_fields


# One rule per decision point of DESIGN.md, with the outcome fields its table names.
DESIGN_OUTCOMES = {
    "http.request": [{"status": 429}, {"status": 500}, {"delay_ms": 250}, {"drop": True}],
    "purchase.payment": [{"result": "paid"}, {"result": "declined", "reason": "lost_card"},
                         {"result": "3ds_failed"}],
    "purchase.capture": [{"result": "paid"}, {"result": "pending_capture", "delay_seconds": 600},
                         {"result": "error"}],
    "purchase.charge": [{"result": "paid"}, {"result": "pending_charge", "delay_seconds": 60},
                        {"result": "declined", "reason": "expired_card"}],
    "payout.execution": [{"result": "success"}, {"result": "pending"},
                         {"result": "error", "code": "card_blocked"}],
    "payout.settlement": [{"result": "success", "after_seconds": 10}, {"result": "failed"}],
    "collection.outcome": [
        *({"status": s, "reason": "r", "after_seconds": 40} for s in ("COMPLETED", "REJECTED")),
        {"status": "UNPAID", "reasonCode": "22"},
        {"status": "UNPAID", "reasonCode": "02", "funds_on_day": 2},
        {"status": "DISPUTED", "reasonCode": "34", "dispute_after_days": 40},
    ],
    "payment.outcome": [{"status": "REJECTED", "after_seconds": 0}],
    "mandate.authorisation": [{"status": s, "after_seconds": 5}
                              for s in ("AUTHENTICATED", "REJECTED", "EXPIRED")],
    "account.verification": [{"valid": False, "details": {"accountExists": "No"}}, {"valid": True}],
    "webhook.delivery": [{"copies": 2}, {"delay_seconds": 30}, {"fail_attempts": 3},
                         {"reorder": True}],
    "callback.delivery": [{"copies": 3, "delay_seconds": 5, "fail_attempts": 1, "reorder": True}],
}  # fmt: skip


def test_the_registry_is_exactly_the_design_points():
    assert set(REGISTRY) == set(DESIGN_OUTCOMES)


@pytest.mark.parametrize("point", sorted(DESIGN_OUTCOMES))
def test_each_design_outcome_loads(point):
    import json

    for then in DESIGN_OUTCOMES[point]:
        (rule,) = parse(one_rule(f"when: {point}\nthen: {json.dumps(then)}")).rules
        for field, value in then.items():
            assert getattr(rule.outcome, field) == value
