"""Scenario files that were valid stay valid: every shape an earlier release documented
(``tests/scenarios/old_shapes/``, each file saying where and when) loads through the control
plane, its older forms named in the load answer's ``notes``, and behaves as it did."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from tests.http.bank_helpers import advance, debtor, eft_body, fresh_headers
from tests.http.purchase_helpers import CARD, create, get, pay
from tests.http.scenario_helpers import activate

SHAPES = Path(__file__).resolve().parents[1] / "scenarios" / "old_shapes"
FILES = sorted(SHAPES.glob("*.yaml"))
_refs = itertools.count(1)

# How many notes each file's load answer has: one per older form it uses.
NOTES = {
    "design-every-point.yaml": 5,
    "design-unpaid-large-debit-orders.yaml": 1,
    "library-card-declines-by-reference.yaml": 2,
    "library-unpaid-debit-orders.yaml": 1,
    "readme-reason-codes.yaml": 0,
}


def test_every_shape_has_its_count_of_notes():
    assert sorted(NOTES) == [f.name for f in FILES]


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
async def test_every_documented_shape_loads_and_activates(http, merchant, path):
    loaded = await http.post("/_emulator/scenarios", content=path.read_bytes())
    assert loaded.status_code == 201, loaded.text
    answer = loaded.json()
    assert len(answer["notes"]) == NOTES[path.name], answer["notes"]
    for note in answer["notes"]:
        assert note.startswith("rules[") and "preferred" in note
    scope = {"merchant": merchant["company_id"]}
    activated = await http.post(f"/_emulator/scenarios/{answer['name']}/activate", json=scope)
    assert activated.status_code == 200, activated.text
    listed = (await http.get("/_emulator/scenarios")).json()["scenarios"]
    (mine,) = [s for s in listed if s["name"] == answer["name"]]
    assert "error" not in mine and mine["rules"] == answer["rules"]


async def load_and_activate(http, merchant, name: str) -> None:
    loaded = await http.post("/_emulator/scenarios", content=(SHAPES / name).read_bytes())
    assert loaded.status_code == 201, loaded.text
    scope = {"merchant": merchant["company_id"]}
    response = await http.post(f"/_emulator/scenarios/{loaded.json()['name']}/activate", json=scope)
    assert response.status_code == 200, response.text


async def collect(http, v2, merchant, amount: int) -> dict:
    profile = merchant["profiles"][0]["profileCode"]
    reference = f"OLD-{next(_refs)}"
    body = eft_body(profile, reference, debtor=debtor("62000000001"), amountCents=amount)
    response = await http.post("/v2/collection/eft", json=body, headers=v2)
    assert response.status_code == 201, response.text
    return dict(response.json())


async def status_of(http, v2, collection: dict) -> dict:
    response = await http.get(f"/v2/collection/eft/{collection['id']}/status", headers=v2)
    assert response.status_code == 200, response.text
    return dict(response.json())


async def test_unpaid_with_a_reason_is_code_02_with_that_reason(http, v2, merchant):
    """The library's older unpaid-debit-orders: UNPAID two minutes after submission, with
    code 02 (not provided for) and the file's own text."""
    await load_and_activate(http, merchant, "library-unpaid-debit-orders.yaml")
    created = await collect(http, v2, merchant, 12_345)
    await advance(http, 119)
    assert (await status_of(http, v2, created))["status"] == "PENDING"
    await advance(http, 1)
    final = await status_of(http, v2, created)
    assert (final["status"], final["reasonCode"], final["reason"]) == (
        "UNPAID",
        "02",
        "insufficient funds",
    )


async def test_the_design_example_unpaid_on_the_action_date(http, v2, merchant):
    """DESIGN.md's example: collections above R500 are UNPAID 02 with its text, on the action
    date; smaller ones complete."""
    await load_and_activate(http, merchant, "design-unpaid-large-debit-orders.yaml")
    large = await collect(http, v2, merchant, 60_000)
    small = await collect(http, v2, merchant, 10_000)
    await advance(http, 3 * 86_400)
    v2 = await fresh_headers(http, merchant)  # the first token lived 24 hours
    final = await status_of(http, v2, large)
    assert (final["status"], final["reasonCode"], final["reason"]) == (
        "UNPAID",
        "02",
        "insufficient funds",
    )
    assert (await status_of(http, v2, small))["status"] == "COMPLETED"


async def test_disputed_with_a_reason_is_code_30_with_that_reason(http, v2, merchant):
    then = {"status": "DISPUTED", "reason": "debtor says no", "after_seconds": 40}
    await activate(http, merchant, "collection.outcome", then)
    created = await collect(http, v2, merchant, 12_345)
    await advance(http, 40)
    final = await status_of(http, v2, created)
    assert (final["status"], final["reasonCode"], final["reason"]) == (
        "DISPUTED",
        "30",
        "debtor says no",
    )


async def test_the_older_declines_by_reference_decline_with_the_platforms_codes(http, merchant, gw):
    await load_and_activate(http, merchant, "library-card-declines-by-reference.yaml")
    for reference, code in [
        ("decline:invalid_card", "invalid_card_number"),
        ("decline:lost_stolen", "lost_card"),
        ("decline:do_not_honour", "do_not_honour"),
    ]:
        p = await create(http, gw, merchant, reference=reference)
        assert (await pay(http, p["id"], card_number=CARD)).status_code == 200
        error = (await get(http, gw, p["id"]))["transaction_data"]["attempts"][0]["error"]
        assert error["code"] == code, reference
