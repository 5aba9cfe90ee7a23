"""The runner through the real app in process (httpx's ASGI transport, a real SQLite file):
each step kind, references at run time, repeats, failures, parallel runs kept apart."""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any

import httpx

from emulator.flows import batch, library
from emulator.flows.parse import parse
from emulator.flows.report import Report, text
from emulator.flows.runner import Runner
from emulator.serving.app import route_table

ROUTES = library.routes_of(route_table())
OWN = "http://127.0.0.1:8400"  # the emulator's own address: deliveries to it stay in process
START = "merchant: {clock: {mode: frozen, now: '2026-03-02T08:00:00Z'}}\n"
PURCHASE = (
    "{api: gateway, method: POST, path: /api/v1/purchases/, save: p, expect_status: 201,"
    " body: {brand_id: '${merchant.brand_id}', client: {email: a@example.com},"
    " purchase: {products: [{name: x, price: 100}]}}}"
)
PAYOUT = (
    "{api: gateway, method: POST, path: /api/v1/payouts/, save: payout, expect_status: 201,"
    " body: {brand_id: '${merchant.brand_id}', client: {email: payee@example.com},"
    " payment: {amount: 5000, currency: ZAR, description: x}}}"
)
DEBTOR = "{accountNumber: '110000001', branchCode: '051001', accountType: CURRENT, name: J Doe}"
EFT = (
    "{api: bank, method: POST, path: /v2/collection/eft, save: c, expect_status: [200, 201],"
    f" body: {{debtor: {DEBTOR}, amountCents: 12345, currency: ZAR, serviceType: ONEDAY,"
    " profileCode: '${merchant.profiles.0.profileCode}', externalReference: REF-1,"
    " abbreviatedName: GYM, contractReference: C-1, frequency: MONTHLY, entryClass: '35'}}"
)
DEBICHECK = (
    "{api: bank, method: POST, path: /v2/mandate/debicheck, save: m, expect_status: [200, 201],"
    " body: {debtor: {accountNumber: '62000000001', branchCode: '250655', accountType: CURRENT,"
    " name: J Doe}, profileCode: '${merchant.profiles.0.profileCode}', externalReference: DC-1,"
    " contractReference: C-9, authenticationType: REALTIME, maxAmountCents: 50000,"
    " debitSequence: RCUR, trackingEnabled: true}}"
)


async def run(http: httpx.AsyncClient, flow: str, **options: Any) -> Report:
    return await Runner(http, url=OWN, **options).run(parse(flow, ROUTES), "run-test")


def outcomes(report: Report) -> list[str]:
    return [s.outcome for s in report.steps]


async def merchants(http: httpx.AsyncClient) -> set[str]:
    listed = (await http.get("/_emulator/merchants")).json()["merchants"]
    return {m["company_id"] for m in listed}


async def test_a_payout_story_runs_on_its_own_merchant_and_clock(http):
    """call (gateway, saved), act execute_payout, advance a duration, expect: each step's
    outcome, time and the merchant's instant after it; the merchant is deleted at the end."""
    before = await merchants(http)
    report = await run(
        http,
        f"""
name: payout
{START}steps:
  - call: {{api: gateway, method: POST, path: /api/v1/webhooks/, expect_status: 201,
           body: {{title: app, all_events: true, callback: "${{run.url}}/_emulator/sink/${{run.id}}"}}}}
  - call: {PAYOUT}
  - act: {{execute_payout: "${{payout.id}}", card: "5555555555554444", save: executed}}
  - expect: [{{transition: {{object_id: "${{payout.id}}", status: pending}}}}]
  - advance: 3d
  - expect: [{{transition: {{object_id: "${{executed.id}}", status: success}}}},
             {{delivery: {{event: payout.success, sink: "${{run.id}}"}}, count: 1}}]
""",
    )
    assert report.state == "passed", text(report)
    assert [s.kind for s in report.steps] == ["call", "call", "act", "expect", "advance", "expect"]
    assert [s.instant for s in report.steps] == ["2026-03-02T08:00:00Z"] * 4 + [
        "2026-03-05T08:00:00Z"] * 2  # fmt: skip
    assert all(s.ms > 0 for s in report.steps)
    assert report.merchant not in await merchants(http) and await merchants(http) == before


async def test_the_other_side_acts_pay_settle_payout_and_advance_until(http):
    report = await run(
        http,
        f"""
name: acts
{START}steps:
  - call: {PURCHASE}
  - act: {{pay: "${{p.id}}", card: "5555555555554444"}}
  - expect: [{{transition: {{object_id: "${{p.id}}", status: paid}}}}]
  - call: {PAYOUT}
  - act: {{execute_payout: "${{payout.id}}", card: "4000000000009995"}}
  - act: {{settle_payout: "${{payout.id}}", status: failed}}
  - expect: [{{transition: {{object_id: "${{payout.id}}", status: error}}}}]
  - call: {PURCHASE.replace("save: p,", "save: q,")}
  - act: {{pay: "${{q.id}}", card: "4000008400001629"}}
  - expect: [{{transition: {{object_id: "${{q.id}}", status: paid}}, never: true}}]
  - call: {PURCHASE.replace("save: p,", "save: due,")}
  - advance: {{until: [{{transition: {{object_id: "${{due.id}}", status: overdue}}}}], up_to: 30d}}
""",
    )
    assert report.state == "passed", text(report)
    assert report.steps[-1].instant != "2026-03-02T08:00:00Z"


async def test_the_bank_acts_and_calls_with_an_oauth_token(http):
    report = await run(
        http,
        f"""
name: bank
{START}steps:
  - call: {EFT}
  - act: {{settle_collection: "${{c.id}}", status: UNPAID, reasonCode: "02"}}
  - expect: [{{transition: {{object_id: "${{c.id}}", status: UNPAID}}}}]
  - call: {EFT.replace("save: c,", "save: d,").replace("REF-1", "REF-2")}
  - act: {{settle_collection: "${{d.id}}"}}
  - act: {{dispute_collection: "${{d.id}}", reasonCode: "30"}}
  - expect: [{{transition: {{object_id: "${{d.id}}", status: DISPUTED}}}}]
  - call: {DEBICHECK}
  - act: {{authorise_mandate: "${{m.id}}"}}
  - call: {DEBICHECK.replace("save: m,", "save: n,").replace("DC-1", "DC-2")}
  - act: {{reject_mandate: "${{n.id}}"}}
  - call: {{api: control, method: GET, path: "/_emulator/merchants/${{merchant.company_id}}/clock", save: clock}}
  - advance: {{to: next}}
""",
    )
    assert report.state == "passed", text(report)


async def test_repeat_and_for_each_with_i_and_item(http):
    report = await run(
        http,
        f"""
name: loops
{START}steps:
  - repeat: 3
    steps:
      - call: {{api: gateway, method: POST, path: /api/v1/clients/, expect_status: 201,
               body: {{email: "r${{i}}@example.com"}}}}
  - for_each: [{{who: a}}, {{who: b}}]
    steps:
      - call: {{api: gateway, method: POST, path: /api/v1/clients/, expect_status: 201,
               save: last, body: {{email: "${{item.who}}${{i}}@example.com"}}}}
  - expect: {{wait: [{{request: {{method: POST, path: /api/v1/clients/, status: 201}}, count: 5}},
                     {{request: {{body: {{email: b1@example.com}}}}}}], timeout: 2s}}
  - call: {{api: gateway, method: GET, path: "/api/v1/clients/${{last.id}}/", expect_status: 200}}
""",
    )
    assert report.state == "passed", text(report)
    assert [s.iteration for s in report.steps[:5]] == [[0], [1], [2], [0], [1]]
    assert report.steps[3].where == "steps[1].steps[0]"


async def test_a_failed_step_stops_its_run_unless_told_to_go_on(http):
    """The failure keeps the request and answer; an expectation's failure its sentences; a
    reference to a missing key names it; what follows is skipped."""
    report = await run(
        http,
        f"""
name: failing
{START}steps:
  - call: {{api: gateway, method: POST, path: /api/v1/clients/, body: {{email: nope}}}}
    continue_on_failure: true
  - expect: [{{request: {{path: /api/v1/purchases/}}}}]
    continue_on_failure: true
  - call: {{api: gateway, method: POST, path: /api/v1/clients/, save: c, body: {{email: c@example.com}}}}
  - call: {{api: gateway, method: GET, path: "/api/v1/clients/${{c.nothing}}/"}}
  - advance: 1d
""",
    )
    assert report.state == "failed"
    assert outcomes(report) == ["failed", "failed", "passed", "failed", "skipped"]
    bad = report.steps[0]
    assert bad.error == "expected a 2xx, got 400"
    assert bad.request == {"api": "gateway", "method": "POST", "path": "/api/v1/clients/",
                           "body": {"email": "nope"}}  # fmt: skip
    assert bad.answer is not None and bad.answer["status"] == 400 and "email" in bad.answer["body"]
    assert report.steps[1].report == ["expected at least 1 request to /api/v1/purchases/, saw none"]
    assert report.steps[3].error is not None and "has no key 'nothing'" in report.steps[3].error
    assert "step steps[3] (call) failed" in text(report)


async def test_parallel_runs_never_see_each_other(http):
    flow = parse(f"""
name: isolated
{START}steps:
  - call: {{api: gateway, method: POST, path: /api/v1/clients/, body: {{email: x@example.com}}}}
  - advance: 1d
  - expect: [{{request: {{path: /api/v1/clients/}}, count: 1}}]
""", ROUTES)  # fmt: skip
    reports = await batch.run_all([flow] * 4, http, parallel=4, url=OWN)
    assert [r.state for r in reports] == ["passed"] * 4, [text(r) for r in reports]
    assert len({r.merchant for r in reports}) == 4


async def test_keep_keeps_the_merchant_and_use_takes_one(http, merchant):
    kept = await run(http, f"name: kept\n{START}steps: [{{advance: 1h}}]\n", keep=True)
    assert kept.kept and kept.merchant in await merchants(http)
    used = await run(http, f"name: used\nmerchant: {{use: {merchant['company_id']}}}\nsteps:"
                     " [{call: {api: gateway, method: GET, path: /api/v1/clients/}}]\n")  # fmt: skip
    assert used.state == "passed" and used.merchant == merchant["company_id"]
    assert merchant["company_id"] in await merchants(http)


async def test_a_short_flow_takes_milliseconds(http):
    """The figure: a 5-step flow through the runner (printed, not asserted: -s shows it)."""
    flow = parse(f"""
name: short
{START}steps:
  - call: {PURCHASE}
  - act: {{pay: "${{p.id}}"}}
  - advance: 1d
  - expect: [{{transition: {{object_id: "${{p.id}}", status: paid}}}}]
  - call: {{api: gateway, method: GET, path: "/api/v1/purchases/${{p.id}}/"}}
""", ROUTES)  # fmt: skip
    await Runner(http, url=OWN).run(flow, "warm-up")
    started = time.perf_counter()
    report = await Runner(http, url=OWN).run(flow, "run-figure")
    took = (time.perf_counter() - started) * 1000
    assert report.state == "passed", text(report)
    print(f"\na 5-step flow: {took:.1f} ms (steps: {sum(s.ms for s in report.steps):.1f} ms)")


async def test_the_examples_of_the_manual_pass(http):
    """Every flow of docs/flows.md reads and passes (they are the page's examples)."""
    page = (Path(__file__).parents[2] / "docs" / "flows.md").read_text()
    flows = [parse(block, ROUTES) for block in re.findall(r"```yaml\n(name:.*?)```", page, re.S)]
    assert len(flows) == 3
    reports = await batch.run_all(flows, http, parallel=3, url=OWN)
    assert [r.state for r in reports] == ["passed"] * 3, [text(r) for r in reports]


async def test_a_flow_after_a_deleted_merchant_still_gets_its_webhooks(http):
    """Each run deletes its merchant, the newest events of the outbox with it: the next run's
    webhooks are still dispatched (the delivery cursor does not stay past reused seqs)."""
    flow = parse((Path(__file__).parents[2] / "flows" / "payout-settles-after-three-days.yaml")
                 .read_text(), ROUTES)  # fmt: skip
    for attempt in ("run-first", "run-second"):
        report = await Runner(http, url=OWN).run(flow, attempt)
        assert report.state == "passed", text(report)


async def test_nested_loops_keep_their_own_i_and_a_failing_loop_can_go_on(http):
    report = await run(
        http,
        f"""
name: nested
{START}steps:
  - repeat: 2
    steps:
      - for_each: [x, y]
        steps:
          - call: {{api: gateway, method: GET, path: /api/v1/clients/,
                   query: {{email: "${{item}}${{i}}@example.com"}}}}
      - call: {{api: gateway, method: POST, path: /api/v1/clients/, expect_status: 201,
               body: {{email: "outer${{i}}@example.com"}}}}
  - repeat: 3
    continue_on_failure: true
    steps:
      - call: {{api: gateway, method: POST, path: /api/v1/clients/, body: {{email: "bad${{i}}"}}}}
  - expect: [{{request: {{body: {{email: outer1@example.com}}}}}},
             {{request: {{method: GET, path: /api/v1/clients/}}, count: 4}}]
""",
    )
    assert outcomes(report) == ["passed"] * 6 + ["failed", "passed"], text(report)
    assert [s.iteration for s in report.steps[:3]] == [[0, 0], [0, 1], [0]]


async def test_scenarios_are_active_for_the_runs_merchant_only(http):
    report = await run(
        http,
        f"""
name: declined
{START}scenarios: [insufficient-funds]
steps:
  - call: {PURCHASE}
  - act: {{pay: "${{p.id}}"}}
  - expect: [{{transition: {{object_id: "${{p.id}}", status: paid}}, never: true}}]
""",
    )
    assert report.state == "passed", text(report)  # the default card pays without it
    other = await run(http, f"name: paid\n{START}steps:\n  - call: {PURCHASE}\n"
                      '  - act: {pay: "${p.id}"}\n'
                      '  - expect: [{transition: {object_id: "${p.id}", status: paid}}]\n')  # fmt: skip
    assert other.state == "passed", text(other)  # and not for another merchant
