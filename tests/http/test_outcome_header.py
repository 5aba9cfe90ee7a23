"""``X-Emulator-Outcome`` on the gateway's and bank's creating calls (issue 29): each form
forces that object's outcome without a scenario, an unknown value is a 400 in the
interface's dialect naming the allowed ones, and ``serve --no-outcome-header`` ignores it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest

from emulator import resources
from emulator.cli.commands import _parser, banner
from emulator.cli.serve_options import settings_from
from emulator.runtime.runtime import Runtime
from emulator.scenarios import outcomes
from emulator.serving.app import create_app
from tests.conftest import settings_for
from tests.http.bank_helpers import advance, advance_to, debtor, eft_body, fresh_headers
from tests.http.purchase_helpers import CARD, get, pay, purchase_body
from tests.http.test_payouts import body as payout_body
from tests.http.test_payouts import execute, read

HEADER = "X-Emulator-Outcome"


async def purchase(http, gw, merchant, value: str | None) -> dict[str, Any]:
    headers = {**gw, HEADER: value} if value is not None else gw
    made = await http.post("/api/v1/purchases/", json=purchase_body(merchant), headers=headers)
    assert made.status_code == 201, made.text
    answer: dict[str, Any] = made.json()
    return answer


async def collection(http, v2, merchant, value: str, reference: str) -> dict[str, Any]:
    profile = merchant["profiles"][0]["profileCode"]
    body = eft_body(profile, reference, debtor=debtor("62000000001"))
    made = await http.post("/v2/collection/eft", json=body, headers={**v2, HEADER: value})
    assert made.status_code == 201, made.text
    answer: dict[str, Any] = made.json()
    return answer


async def status_of(http, merchant, made: dict[str, Any]) -> dict[str, Any]:
    v2 = await fresh_headers(http, merchant)
    found = await http.get(f"/v2/collection/eft/{made['id']}/status", headers=v2)
    answer: dict[str, Any] = found.json()
    return answer


async def test_decline_with_a_reason_declines_the_approving_card(http, gw, merchant):
    forced = await purchase(http, gw, merchant, "decline:insufficient_funds")
    other = await purchase(http, gw, merchant, None)
    declined = (await pay(http, forced["id"], card_number=CARD)).json()
    assert declined["status"] == "error"
    assert declined["transaction_data"]["attempts"][0]["error"]["code"] == "insufficient_funds"
    assert (await pay(http, other["id"], card_number=CARD)).json()["status"] == "paid"
    # The object's own activation says an outcome header made it; the journal says so too.
    listed = (await http.get("/_emulator/scenarios")).json()
    mine = [s for s in listed["scenarios"] if s["name"] == f"outcome.{forced['id']}"]
    assert mine[0]["origin"] == "outcome_header"
    assert mine[0]["active"][0]["merchant"] == merchant["company_id"]
    assert mine[0]["description"] == (
        "X-Emulator-Outcome: decline:insufficient_funds on POST /api/v1/purchases/"
    )
    journal = (await http.get("/_emulator/requests", params={"limit": 20})).json()["requests"]
    notes = [r["note"] for r in journal if r["path"] == "/api/v1/purchases/" and r["note"]]
    assert notes == [
        f"X-Emulator-Outcome: decline:insufficient_funds forced {forced['id']}"
        f" (scenario activation outcome.{forced['id']})"
    ]


async def test_3ds_failed_fails_the_challenge(http, gw, merchant):
    forced = await purchase(http, gw, merchant, "3ds:failed")
    await pay(http, forced["id"], card_number=CARD)
    failed = await get(http, gw, forced["id"])
    assert failed["status"] == "error"
    assert failed["transaction_data"]["attempts"][0]["error"]["code"] == (
        "3ds_authentication_failed"
    )


@pytest.mark.parametrize(("value", "seconds"), [("payout:failed", 3 * 86_400),
                                                ("payout:failed@+1h", 3600)])  # fmt: skip
async def test_payout_failed_after_its_time(http, gw, merchant, value, seconds):
    made = await http.post(
        "/api/v1/payouts/", json=payout_body(merchant), headers={**gw, HEADER: value}
    )
    assert made.status_code == 201, made.text
    payout = made.json()
    assert (await execute(http, payout, CARD)).json()["status"] == "pending"
    await advance(http, seconds - 1)
    assert (await read(http, gw, payout["id"]))["status"] == "pending"
    await advance(http, 1)
    assert (await read(http, gw, payout["id"]))["status"] == "error"


async def test_unpaid_now_on_the_action_date_and_at_its_time(http, v2, merchant):
    on_date = await collection(http, v2, merchant, "unpaid:02", "O-1")
    later = await collection(http, v2, merchant, "unpaid:18@+2d", "O-2")
    await advance_to(http, "2026-01-06T16:00:00Z")  # the action date, processed at 18:00 SAST
    found = await status_of(http, merchant, on_date)
    assert (found["status"], found["reasonCode"]) == ("UNPAID", "02")
    assert (await status_of(http, merchant, later))["status"] == "PENDING"
    await advance_to(http, "2026-01-07T08:59:59Z")  # submitted at the epoch, 09:00
    assert (await status_of(http, merchant, later))["status"] == "PENDING"
    await advance_to(http, "2026-01-07T09:00:00Z")
    found = await status_of(http, merchant, later)
    assert (found["status"], found["reasonCode"]) == ("UNPAID", "18")


async def test_dispute_days_after_the_completion(http, v2, merchant):
    made = await collection(http, v2, merchant, "dispute:30@+10d", "O-3")
    await advance_to(http, "2026-01-06T16:00:00Z")
    assert (await status_of(http, merchant, made))["status"] == "COMPLETED"
    await advance_to(http, "2026-01-16T16:00:00Z")
    found = await status_of(http, merchant, made)
    assert (found["status"], found["reasonCode"]) == ("DISPUTED", "30")


@pytest.mark.parametrize("value", ["decline:bogus", "unpaid:02", "3ds:passed", "decline:"])
async def test_an_unknown_value_is_a_gateway_400_naming_the_allowed(http, gw, merchant, value):
    made = await http.post(
        "/api/v1/purchases/", json=purchase_body(merchant), headers={**gw, HEADER: value}
    )
    assert made.status_code == 400
    error = made.json()[HEADER]
    assert error["code"] == "invalid"
    assert error["message"].endswith("allowed here: decline:<reason>, 3ds:failed")


@pytest.mark.parametrize(
    ("value", "why"),
    [
        ("decline:insufficient_funds", "is not an outcome of this call"),
        ("unpaid:99", "is refused: reasonCode '99' is not one of the schedule"),
        ("dispute:02", "is refused: a dispute's reasonCode is one of authority"),
        ("unpaid:18@+2x", "has no valid '@+' duration"),
    ],
)
async def test_an_unknown_value_is_a_bank_400_naming_the_allowed(http, v2, merchant, value, why):
    profile = merchant["profiles"][0]["profileCode"]
    made = await http.post(
        "/v2/collection/eft", json=eft_body(profile, "O-9"), headers={**v2, HEADER: value}
    )
    assert made.status_code == 400
    message = made.json()["value"]["Message"]
    assert message.startswith(f"{HEADER}: {value!r} {why}"), message
    assert message.endswith(f"allowed here: {outcomes.allowed('collection')}")


async def test_no_outcome_header_ignores_it(tmp_path: Path):
    async with Runtime(settings_for(tmp_path, outcome_header=False)) as rt:
        transport = httpx.ASGITransport(app=create_app(rt))
        async with httpx.AsyncClient(transport=transport, base_url="http://emulator") as http:
            merchant = (await http.post("/_emulator/merchants")).json()
            gw = {"Authorization": f"Bearer {merchant['api_key']}"}
            forced = await purchase(http, gw, merchant, "decline:whatever")
            assert (await pay(http, forced["id"], card_number=CARD)).json()["status"] == "paid"


def test_the_test_values_list_every_form_the_parser_takes():
    listed = [f["value"] for f in resources.test_values()["outcome_header"]]  # type: ignore[union-attr, index]
    assert listed == [form for forms in outcomes.FORMS.values() for form in forms]


@pytest.mark.parametrize(
    ("flags", "env", "on"),
    [
        ([], {}, True),
        (["--no-outcome-header"], {}, False),
        ([], {"EMULATOR_NO_OUTCOME_HEADER": "1"}, False),
        ([], {"EMULATOR_NO_OUTCOME_HEADER": "off"}, True),
    ],
)
def test_serve_no_outcome_header_and_its_variable(flags, env, on):
    settings = settings_from(_parser().parse_args(["serve", *flags]), env)
    assert settings.outcome_header is on
    assert ("X-Emulator-Outcome: ignored, as the platform would" in banner(settings)) is not on


async def test_a_loaded_scenario_cannot_take_an_objects_name(http):
    text = "name: outcome.mine\nrules:\n  - when: purchase.payment\n    then: {result: paid}\n"
    refused = await http.post("/_emulator/scenarios", content=text)
    assert refused.status_code == 400
    assert refused.json()["error"]["message"].startswith("name: 'outcome....' names an object's")
