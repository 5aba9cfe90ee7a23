"""The engine on a real database: newest wins, scopes, counted uses, restarts."""

from __future__ import annotations

import asyncio

from emulator.core.merchants import service as merchants
from emulator.runtime.runtime import Runtime
from emulator.sandbox.scenarios import service as scenarios
from emulator.scenarios.points import COLLECTION_OUTCOME, PAYOUT_EXECUTION, BankOutcome
from tests.conftest import settings_for

UNPAID_ABOVE_500 = """
name: unpaid-above-500
rules:
  - when: collection.outcome
    match: {amountCents: {gt: 50000}}
    then: {status: UNPAID, reasonCode: "12"}
"""
DISPUTED_ONCE = """
name: disputed-once
rules:
  - when: collection.outcome
    then: {status: DISPUTED}
    times: 1
  - when: collection.outcome
    then: {status: REJECTED}
    times: 2
"""


async def decide(rt: Runtime, merchant: str | None, amount: int) -> BankOutcome | None:
    return await rt.db.write(
        lambda tx: rt.scenarios.decide(tx, COLLECTION_OUTCOME, merchant, {"amountCents": amount})
    )


async def new_merchant(rt: Runtime) -> str:
    return str((await merchants.create(rt, None))["company_id"])


async def test_nothing_active_decides_nothing(runtime):
    assert await decide(runtime, None, 100_000) is None
    assert not runtime.scenarios.has(COLLECTION_OUTCOME)


async def test_a_global_rule_applies_to_every_merchant_when_it_matches(runtime):
    await scenarios.define(runtime, UNPAID_ABOVE_500)
    await scenarios.activate(runtime, "unpaid-above-500", None)
    a, b = await new_merchant(runtime), await new_merchant(runtime)
    expected = BankOutcome(status="UNPAID", reasonCode="12")
    assert await decide(runtime, a, 50_001) == expected
    assert await decide(runtime, b, 50_001) == expected
    assert await decide(runtime, a, 50_000) is None
    assert await decide(runtime, None, 60_000) == expected


async def test_a_scoped_rule_never_touches_another_merchant(runtime):
    await scenarios.define(runtime, UNPAID_ABOVE_500)
    a, b = await new_merchant(runtime), await new_merchant(runtime)
    await scenarios.activate(runtime, "unpaid-above-500", a)
    assert (await decide(runtime, a, 60_000)) is not None
    assert await decide(runtime, b, 60_000) is None
    assert await decide(runtime, None, 60_000) is None


async def test_the_newest_activation_wins_and_deactivation_uncovers_the_older(runtime):
    await scenarios.define(runtime, UNPAID_ABOVE_500)
    await scenarios.define(
        runtime,
        "name: all-completed\nrules:\n  - when: collection.outcome\n    then: {status: COMPLETED}\n",
    )
    await scenarios.activate(runtime, "unpaid-above-500", None)
    await scenarios.activate(runtime, "all-completed", None)
    assert (await decide(runtime, None, 60_000)).status == "COMPLETED"
    await scenarios.activate(runtime, "unpaid-above-500", None)  # again: now the newest
    assert (await decide(runtime, None, 60_000)).status == "UNPAID"
    assert (await decide(runtime, None, 100)).status == "COMPLETED"  # the newest that matches
    await scenarios.deactivate(runtime, "unpaid-above-500", None)
    assert (await decide(runtime, None, 60_000)).status == "COMPLETED"


async def test_counted_rules_are_used_up_in_order_then_nothing(runtime):
    await scenarios.define(runtime, DISPUTED_ONCE)
    await scenarios.activate(runtime, "disputed-once", None)
    seen = [await decide(runtime, None, 1) for _ in range(4)]
    assert [o.status if o else None for o in seen] == ["DISPUTED", "REJECTED", "REJECTED", None]
    listing = await scenarios.listing(runtime)
    (entry,) = [s for s in listing["scenarios"] if s["name"] == "disputed-once"]
    assert entry["active"][0]["uses_left"] == {"0": 0, "1": 0}


async def test_concurrent_decisions_never_take_the_same_last_use(runtime):
    await scenarios.define(
        runtime,
        "name: three\nrules:\n  - when: collection.outcome\n    then: {status: UNPAID}\n    times: 3\n",
    )
    await scenarios.activate(runtime, "three", None)
    results = await asyncio.gather(*(decide(runtime, None, 1) for _ in range(40)))
    assert sum(r is not None for r in results) == 3


async def test_a_use_is_spent_only_if_its_unit_of_work_commits(runtime):
    await scenarios.define(
        runtime,
        "name: once\nrules:\n  - when: collection.outcome\n    then: {status: UNPAID}\n    times: 1\n",
    )
    await scenarios.activate(runtime, "once", None)

    def failing(tx):
        assert runtime.scenarios.decide(tx, COLLECTION_OUTCOME, None, {"amountCents": 1})
        raise RuntimeError("the unit fails after deciding")

    try:
        await runtime.db.write(failing)
    except RuntimeError:
        pass
    assert (await decide(runtime, None, 1)) is not None  # the use was still there
    assert await decide(runtime, None, 1) is None


async def test_reactivating_starts_the_count_over(runtime):
    await scenarios.define(
        runtime,
        "name: once\nrules:\n  - when: collection.outcome\n    then: {status: UNPAID}\n    times: 1\n",
    )
    await scenarios.activate(runtime, "once", None)
    assert await decide(runtime, None, 1) is not None
    assert await decide(runtime, None, 1) is None
    await scenarios.activate(runtime, "once", None)
    assert await decide(runtime, None, 1) is not None


async def test_activations_and_counts_survive_a_restart(tmp_path):
    async with Runtime(settings_for(tmp_path)) as rt:
        merchant = await new_merchant(rt)
        await scenarios.define(rt, DISPUTED_ONCE)
        await scenarios.activate(rt, "disputed-once", merchant)
        assert (await decide(rt, merchant, 1)).status == "DISPUTED"
    async with Runtime(settings_for(tmp_path)) as rt:
        assert (await decide(rt, merchant, 1)).status == "REJECTED"
        assert (await decide(rt, merchant, 1)).status == "REJECTED"
        assert await decide(rt, merchant, 1) is None


async def test_an_activation_keeps_the_definition_it_was_made_with(runtime):
    await scenarios.define(runtime, UNPAID_ABOVE_500)
    await scenarios.activate(runtime, "unpaid-above-500", None)
    await scenarios.define(runtime, UNPAID_ABOVE_500.replace("gt: 50000", "gt: 1"))
    assert await decide(runtime, None, 100) is None  # still the activated definition
    await scenarios.activate(runtime, "unpaid-above-500", None)
    assert await decide(runtime, None, 100) is not None


async def test_a_point_asks_only_its_own_rules(runtime):
    await scenarios.activate(runtime, "payout-failures", None)
    assert await decide(runtime, None, 10**9) is None
    outcome = await runtime.db.write(
        lambda tx: runtime.scenarios.decide(tx, PAYOUT_EXECUTION, None, {"amount": 100_001})
    )
    assert outcome is not None and outcome.result == "error"


async def test_reset_wipes_activations(runtime):
    from emulator.sandbox.control import service as control

    await scenarios.activate(runtime, "unpaid-debit-orders", None)
    assert await decide(runtime, None, 1) is not None
    await control.reset(runtime)
    assert await decide(runtime, None, 1) is None


async def test_scenarios_given_at_start_are_active_again_after_a_reset(tmp_path):
    settings = settings_for(tmp_path, scenarios=("unpaid-debit-orders",))
    async with Runtime(settings) as rt:
        from emulator.sandbox.control import service as control

        assert await decide(rt, None, 1) is not None
        await scenarios.deactivate(rt, "unpaid-debit-orders", None)
        await control.reset(rt)
        assert await decide(rt, None, 1) is not None


async def test_start_scenarios_keep_counts_across_restarts_and_outlive_their_file(tmp_path):
    """`serve --scenario` files are read once; a restart leaves an activation of the same
    definition as it is (counts go on); a reset activates it afresh even if the file is gone."""
    from emulator.sandbox.control import service as control

    path = tmp_path / "twice.yaml"
    path.write_text(
        "name: twice\nrules:\n  - when: collection.outcome\n    then: {status: UNPAID}\n    times: 2\n"
    )
    settings = settings_for(tmp_path, scenarios=(str(path),))
    async with Runtime(settings) as rt:
        assert await decide(rt, None, 1) is not None
    async with Runtime(settings) as rt:
        assert await decide(rt, None, 1) is not None
        assert await decide(rt, None, 1) is None  # two uses in all, across the restart
        path.unlink()
        await control.reset(rt)
        assert await decide(rt, None, 1) is not None
