"""The codes a paying payer sees are the platform's, through HTTP: every test card, a wrong
CVC, an unknown card, 3-D Secure's failure, every decline a scenario can name; and a scenario
file naming a decline code of an earlier release still loads, as the platform's code, and the
load answer says so."""

from __future__ import annotations

from typing import Any, get_args

import pytest

from emulator import resources
from emulator.domain import cards
from tests.http.purchase_helpers import CARD, THREE_DS_FAIL, create, get, pay
from tests.http.scenario_helpers import activate

PLATFORM = resources.platform_error_codes()


async def attempt_error(http, gw, merchant, number: str, **fields: Any) -> dict[str, Any]:
    p = await create(http, gw, merchant)
    response = await pay(http, p["id"], card_number=number, **fields)
    assert response.status_code == 200, response.text
    purchase = await get(http, gw, p["id"])
    assert purchase["status"] == "error", number
    error: dict[str, Any] = purchase["transaction_data"]["attempts"][0]["error"]
    return error


async def test_every_failing_test_card_gives_a_code_of_the_platform(http, merchant, gw):
    values = (await http.get("/_emulator/test-values")).json()
    failing = [c["number"] for c in values["cards"] if "card_declined" in c["purchase"]]
    assert len(failing) == 10
    for number in [*failing, THREE_DS_FAIL, "4242424242424242"]:
        error = await attempt_error(http, gw, merchant, number)
        assert error["code"] in PLATFORM, (number, error)
        assert error["message"]
    wrong_cvc = await attempt_error(http, gw, merchant, CARD, cvc="999")
    assert wrong_cvc["code"] == "do_not_honour"


@pytest.mark.parametrize("code", get_args(cards.DeclineCode))
async def test_every_scenario_decline_is_a_code_of_the_platform(http, merchant, gw, code):
    await activate(http, merchant, "purchase.payment", {"result": "declined", "reason": code})
    error = await attempt_error(http, gw, merchant, CARD)
    assert error["code"] == code and code in PLATFORM


OLDER = """\
name: older-decline-codes
rules:
  - when: purchase.payment
    match: {reference: {prefix: lost}}
    then: {result: declined, reason: lost_stolen}
  - when: purchase.payment
    then: {result: declined, reason: invalid_card}
"""


async def test_a_file_naming_older_decline_codes_loads_with_the_platforms(http, merchant, gw):
    loaded = await http.post("/_emulator/scenarios", content=OLDER)
    assert loaded.status_code == 201, loaded.text
    assert loaded.json()["notes"] == [
        "rules[0].then.reason: 'lost_stolen' is an older code; loaded as the platform's"
        " 'lost_card', preferred",
        "rules[1].then.reason: 'invalid_card' is an older code; loaded as the platform's"
        " 'invalid_card_number', preferred",
    ]
    scope = {"merchant": merchant["company_id"]}
    activated = await http.post("/_emulator/scenarios/older-decline-codes/activate", json=scope)
    assert activated.status_code == 200, activated.text
    p = await create(http, gw, merchant, reference="lost-1")
    await pay(http, p["id"], card_number=CARD)
    lost = (await get(http, gw, p["id"]))["transaction_data"]["attempts"][0]["error"]
    assert lost["code"] == "lost_card"
    assert (await attempt_error(http, gw, merchant, CARD))["code"] == "invalid_card_number"


async def test_a_file_of_current_forms_loads_without_notes(http):
    loaded = await http.post(
        "/_emulator/scenarios",
        content="name: current\nrules:\n  - when: purchase.payment\n"
        "    then: {result: declined, reason: stolen_card}\n",
    )
    assert loaded.status_code == 201, loaded.text
    assert loaded.json()["notes"] == []


async def test_the_shipped_declines_by_reference_keep_the_older_prefixes(http, merchant, gw):
    """``decline:invalid_card`` and ``decline:lost_stolen`` references still decline, with
    the platform's codes; the new codes have their own prefixes."""
    scope = {"merchant": merchant["company_id"]}
    name = "card-declines-by-reference"
    assert (await http.post(f"/_emulator/scenarios/{name}/activate", json=scope)).is_success
    expected = {
        "decline:invalid_card": "invalid_card_number",
        "decline:lost_stolen": "lost_card",
        "decline:stolen_card": "stolen_card",
        "decline:issuer_not_available": "issuer_not_available",
    }
    for reference, code in expected.items():
        p = await create(http, gw, merchant, reference=f"{reference}:1")
        await pay(http, p["id"], card_number=CARD)
        error = (await get(http, gw, p["id"]))["transaction_data"]["attempts"][0]["error"]
        assert error["code"] == code, reference
