"""The flow file (docs/flows.md): read and checked without running, each error located by
line, column and key path; references resolved with their JSON types."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from emulator.flows import library
from emulator.flows.parse import FlowError, parse
from emulator.flows.references import ReferenceProblem, lookup, resolve
from emulator.serving.app import route_table

ROUTES = library.routes_of(route_table())
LIBRARY = Path(__file__).parents[2] / "flows"


def refused(text: str) -> FlowError:
    with pytest.raises(FlowError) as caught:
        parse(text, ROUTES)
    return caught.value


def test_the_shipped_flows_read():
    found = library.listing(LIBRARY, ROUTES)
    assert found and all("error" not in f for f in found), found


def test_a_flow_with_every_kind_reads():
    flow = parse(
        """
name: every-kind
merchant: {start: "2026-03-02T08:00:00Z"}
steps:
  - call: {api: gateway, method: POST, path: /api/v1/purchases/, save: p, body: {a: 1}}
  - act: {pay: "${p.id}", card: "4444333322221111"}
  - advance: 3d
  - advance: {to: next}
  - advance: {until: [{transition: {object_id: "${p.id}", status: paid}}], up_to: 30d}
  - expect: [{event: {event: purchase.paid}}]
  - expect: {wait: [{event: {event: purchase.paid}}], timeout: 2s}
  - repeat: 2
    steps: [{call: {api: control, method: GET, path: "/_emulator/merchants/${merchant.company_id}/clock"}}]
  - for_each: [a, b]
    continue_on_failure: true
    steps: [{call: {api: bank, method: GET, path: "/v2/mandate/eft", query: {externalReference: "${item}"}}}]
""",
        ROUTES,
    )
    kinds = [s.kind for s in flow.spec.steps]
    assert kinds == ["call", "act", "advance", "advance", "advance", "expect", "expect",
                     "repeat", "for_each"]  # fmt: skip
    assert flow.spec.steps[-1].continue_on_failure is True


@pytest.mark.parametrize(
    ("text", "where"),
    [
        # an unknown key: where the key is
        ("name: x\nsteps:\n  - call: {api: gateway, method: GET, path: /api/v1/clients/, bdy: 1}\n",
         "line 3, column 63: steps[0].call.bdy: Object contains unknown field `bdy`"),
        # a value of the wrong kind
        ("name: x\nsteps:\n  - call: {api: gatway, method: GET, path: /api/v1/clients/}\n",
         "line 3, column 17: steps[0].call.api: Invalid enum value 'gatway'"),
        # two kinds in one step
        ("name: x\nsteps:\n  - advance: 1d\n    expect: []\n",
         "line 3, column 5: steps[0]: give exactly one of call, act, advance, expect, repeat,"
         " for_each (given: advance, expect)"),
        # an act option its verb does not take
        ("name: x\nsteps:\n  - act: {authorise_mandate: '1', card: '4444'}\n",
         "line 3, column 41: steps[0].act.card: authorise_mandate takes nothing more"),
        ("name: x\nsteps:\n  - advance: 3x\n",
         'line 3, column 14: steps[0].advance: "3x" is not a duration (such as "5m", "3d")'),
        ("name: x\nsteps:\n  - expect: [{transition: {status: paid}}]\n",
         "line 3, column 27: steps[0].expect[0].transition: needs 'object_id', or"
         " 'object_type' (with 'fields')"),
        ("name: x\nsteps:\n  - expect: {wait: [{event: {event: 3}}]}\n",
         "line 3, column 37: steps[0].expect.wait[0].event.event: must be a non-empty string"),
        ("name: x\nsteps:\n  - advance: {until: [{event: {event: 3}}]}\n",
         "line 3, column 39: steps[0].advance.until[0].event.event: must be a non-empty string"),
        # a reference to a step not yet run, and one to a name only a loop has
        ("name: x\nsteps:\n  - act: {pay: '${p.id}'}\n  - call: {api: gateway, method: POST, path: /api/v1/purchases/, save: p}\n",
         "line 3, column 10: steps[0].act: ${p.id}: no earlier step saves 'p'"),
        ("name: x\nsteps:\n  - call: {api: gateway, method: GET, path: '/api/v1/purchases/${i}/'}\n",
         "line 3, column 11: steps[0].call: ${i}: 'i' is only known inside a repeat or for_each"),
        ("name: x\nsteps:\n  - repeat: 10001\n    steps: [{advance: 1d}]\n",
         "line 3, column 13: steps[0].repeat: 10,001 is more than 10,000 repeats"),
        ("name: x\nsteps:\n  - repeat: 1000\n    steps:\n      - repeat: 1000\n        steps: [{advance: 1d}]\n",
         "line 6, column 17: steps[0].steps[0].steps[0]: the flow would run more than 100,000 steps"),
        # paths the API does not serve, or not with that method
        ("name: x\nsteps:\n  - call: {api: gateway, method: POST, path: /api/v1/payout/}\n",
         "line 3, column 46: steps[0].call.path: /api/v1/payout/ is not a path of the gateway API"),
        ("name: x\nsteps:\n  - call: {api: bank, method: DELETE, path: /v2/collection/eft}\n",
         "line 3, column 45: steps[0].call.path: /v2/collection/eft takes POST, not DELETE"),
        ("name: Not A Name\nsteps: [{advance: 1d}]\n", "line 1, column 7: name: must be"),
        ("name: x\nsteps: []\n", "line 2, column 8: steps: at least one step is needed"),
        ("name: x\nscenarios: [ok, ../x]\nsteps: [{advance: 1d}]\n",
         "line 2, column 17: scenarios[1]: '../x' cannot be a scenario's name"),
        ("name: x\nsteps:\n  - [a\n", "line 4, column 1: not valid YAML"),
        ("name: x\nmerchant: {use: abc, start: '2026-01-01T00:00:00Z'}\nsteps: [{advance: 1d}]\n",
         "line 2, column 11: merchant: 'use' takes an existing merchant"),
    ],
)  # fmt: skip
def test_each_error_names_its_line_column_and_key_path(text: str, where: str):
    assert str(refused(text)).startswith(where), str(refused(text))


def test_saves_in_a_loop_are_known_after_it():
    parse(
        "name: x\nsteps:\n  - repeat: 2\n    steps: [{call: {api: gateway, method: POST,"
        " path: /api/v1/clients/, save: c}}]\n  - act: {pay: '${c.id}'}\n",
        ROUTES,
    )


SCOPE: dict[str, Any] = {
    "p": {"id": "abc", "amount": 5000, "items": [{"name": "x"}], "paid": True},
    "merchant": {"company_id": "m1"},
    "i": 3,
}


def test_a_whole_reference_keeps_its_type_a_partial_one_is_text():
    assert resolve({"amount": "${p.amount}", "paid": "${p.paid}", "n": "${i}"}, SCOPE) == {
        "amount": 5000, "paid": True, "n": 3,
    }  # fmt: skip
    assert resolve("/x/${p.id}/${p.items.0.name}?n=${i}", SCOPE) == "/x/abc/x?n=3"
    assert resolve(["${merchant.company_id}", 7, None], SCOPE) == ["m1", 7, None]


@pytest.mark.parametrize(
    ("expression", "message"),
    [
        ("p.status", "${p.status}: p has no key 'status' (keys: amount, id, items, paid)"),
        ("q.id", "${q.id}: no 'q' saved yet (known: i, merchant, p)"),
        ("p.items.4", "${p.items.4}: p.items is a list of 1; '4' is not an index of it"),
        ("p.id.x", "${p.id.x}: p.id is 'abc', which has no key 'x'"),
        ("p..id", "${p..id} is not a reference"),
    ],
)
def test_a_reference_to_a_missing_key_names_it(expression: str, message: str):
    with pytest.raises(ReferenceProblem) as caught:
        lookup(expression, SCOPE)
    assert str(caught.value).startswith(message), str(caught.value)
