"""payout.execution and payout.settlement through HTTP: each outcome, match, times, scope."""

from __future__ import annotations

from tests.http.test_payouts import advance, create, events_of, execute, read

PAYS = "4444333322221111"  # success at once by the test values
DECLINES = "4000000000000002"  # error at once by the test values


async def activate(http, merchant, text: str) -> None:
    loaded = await http.post("/_emulator/scenarios", content=text)
    assert loaded.status_code == 201, loaded.text
    name = loaded.json()["name"]
    body = {"merchant": merchant["company_id"]}
    assert (await http.post(f"/_emulator/scenarios/{name}/activate", json=body)).status_code == 200


def rule(point: str, then: str, match: str = "{}", times: str = "") -> str:
    counted = f"\n    times: {times}" if times else ""
    return f"name: p\nrules:\n  - when: {point}\n    match: {match}\n    then: {then}{counted}\n"


async def test_execution_success_overrides_a_declining_card(http, gw, merchant):
    await activate(http, merchant, rule("payout.execution", "{result: success}"))
    payout = await create(http, gw, merchant)
    response = await execute(http, payout, DECLINES)
    assert response.status_code == 200 and response.json()["status"] == "success"


async def test_execution_error_with_a_code(http, gw, merchant, runtime):
    await activate(
        http, merchant,
        rule("payout.execution", "{result: error, code: card_blocked, message: Blocked by issuer}"),
    )  # fmt: skip
    payout = await create(http, gw, merchant)
    response = await execute(http, payout, PAYS)
    assert response.status_code == 400
    assert response.json()["__all__"] == {"message": "Blocked by issuer", "code": "card_blocked"}
    assert (await read(http, gw, payout["id"]))["status"] == "error"
    assert (await events_of(runtime, payout["id"]))[-1] == "payout.failed"


async def test_pending_then_settlement_as_the_scenario_says(http, gw, merchant):
    text = (
        "name: p\nrules:\n  - when: payout.execution\n    then: {result: pending}\n"
        "  - when: payout.settlement\n"
        "    then: {result: failed, after_seconds: 120, message: Account closed}\n"
    )
    await activate(http, merchant, text)
    payout = await create(http, gw, merchant)
    assert (await execute(http, payout, PAYS)).json()["status"] == "pending"
    await advance(http, 119)
    assert (await read(http, gw, payout["id"]))["status"] == "pending"
    await advance(http, 1)
    settled = await read(http, gw, payout["id"])
    assert settled["status"] == "error"
    assert settled["transaction_data"]["attempts"][0]["error"] == {
        "code": "payout_failed",
        "message": "Account closed",
    }


async def test_settlement_success_sooner_than_the_test_card(http, gw, merchant):
    """5555... settles after 3 days by the test values; the scenario makes it 60 s."""
    await activate(
        http, merchant, rule("payout.settlement", "{result: success, after_seconds: 60}")
    )
    payout = await create(http, gw, merchant)
    assert (await execute(http, payout, "5555555555554444")).json()["status"] == "pending"
    await advance(http, 60)
    assert (await read(http, gw, payout["id"]))["status"] == "success"


async def test_match_times_and_scope(http, gw, merchant):
    await activate(
        http, merchant,
        rule("payout.execution", "{result: error, code: limit}", "{amount: {gt: 1000}}", times="1"),
    )  # fmt: skip
    first, second = await create(http, gw, merchant), await create(http, gw, merchant)
    assert (await execute(http, first, PAYS)).status_code == 400  # 1500 > 1000, the one use
    assert (await execute(http, second, PAYS)).status_code == 200  # used up: test values again
    other = (await http.post("/_emulator/merchants")).json()
    other_gw = {"Authorization": f"Bearer {other['api_key']}"}
    await activate(http, merchant, rule("payout.execution", "{result: error, code: x}"))
    theirs = await create(http, other_gw, other)
    assert (await execute(http, theirs, PAYS)).status_code == 200  # never another merchant's


async def test_the_shipped_payout_failures_scenario(http, gw, merchant):
    body = {"merchant": merchant["company_id"]}
    await http.post("/_emulator/scenarios/payout-failures/activate", json=body)
    payout = await create(http, gw, merchant)  # 1500 minor units: not above 1,000.00
    assert (await execute(http, payout, PAYS)).json()["status"] == "pending"
    await advance(http, 2 * 86_400)
    settled = await read(http, gw, payout["id"])
    assert settled["status"] == "error"
    assert settled["transaction_data"]["attempts"][0]["error"]["message"] == (
        "Recipient bank rejected the transfer"
    )
