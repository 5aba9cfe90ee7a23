"""The schedule's view of pending jobs: real objects made through the API, their jobs read
from the scheduler and described (public kind, object, one line); odd jobs never raise."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import httpx
import pytest

import emulator
from emulator.kernel.jobs import Job, pending_jobs
from emulator.runtime.runtime import Runtime
from emulator.sandbox.schedule.service import KINDS, describe, describe_all
from tests.conftest import EPOCH_S
from tests.http.bank_helpers import debicheck_body, eft_body
from tests.http.billing_helpers import add_subscriber, create_template
from tests.http.purchase_helpers import create as create_purchase

DOWN = "http://127.0.0.1:9/hook"  # the discard port: nothing listens, connections are refused
CARD = {"cardholder_name": "Jane Doe", "expiry_month": "12", "expiry_year": "30"}
UNKNOWN = "00000000-0000-4000-8000-000000000000"


def short(object_id: str) -> str:
    return object_id[:8] + "…"


async def schedule(
    runtime: Runtime, merchant: dict[str, Any], object_id: str | None = None
) -> list[dict[str, Any]]:
    """The merchant's pending jobs, described."""
    return await runtime.db.read(
        lambda tx: describe_all(tx, pending_jobs(tx, merchant["company_id"]), object_id)
    )


async def described(runtime: Runtime, job: Job) -> dict[str, Any]:
    return await runtime.db.read(lambda tx: describe(tx, job))


def job(kind: str, payload: dict[str, Any], merchant_id: str | None = None) -> Job:
    return Job(
        id=1, kind=kind, due_us=EPOCH_S * 1_000_000, merchant_id=merchant_id, payload=payload
    )


async def pending_payout(
    http: httpx.AsyncClient, gw: dict[str, str], merchant: dict[str, Any]
) -> dict[str, Any]:
    """A payout executed with 5555 5555 5555 4444: pending, settled by a job in 3 days."""
    body = {
        "client": {"email": "payee@example.com"},
        "payment": {"amount": 1500, "currency": "ZAR"},
        "brand_id": merchant["brand_id"],
    }
    payout = (await http.post("/api/v1/payouts/", json=body, headers=gw)).json()
    path = httpx.URL(payout["execution_url"]).path
    response = await http.post(path, json={"card_number": "5555555555554444", **CARD})
    assert (response.status_code, response.json()["status"]) == (200, "pending")
    executed: dict[str, Any] = response.json()
    return executed


# -- real objects ------------------------------------------------------------------------------


async def test_a_pending_payout_settles_and_its_window_no_longer_matters(
    http, gw, merchant, runtime
):
    """The settlement says how it ends; the execution window's job says it has nothing to do."""
    payout = await pending_payout(http, gw, merchant)
    assert await schedule(runtime, merchant) == [
        {
            "due": "2026-01-05T09:15:00Z",
            "kind": "payout.expiry",
            "object_type": "payout",
            "object_id": payout["id"],
            "description": f"payout {short(payout['id'])} expires (error) if not executed by then"
            " (no effect: the payout is pending)",
        },
        {
            "due": "2026-01-08T09:00:00Z",
            "kind": "payout.settlement",
            "object_type": "payout",
            "object_id": payout["id"],
            "description": f"payout {short(payout['id'])} settles as success",
        },
    ]


async def test_an_eft_collection_completes(http, v2, merchant, runtime):
    """Test account 110000001: COMPLETED 40 seconds later."""
    profile = merchant["profiles"][0]["profileCode"]
    created = (await http.post("/v2/collection/eft", json=eft_body(profile), headers=v2)).json()
    assert await schedule(runtime, merchant, created["id"]) == [
        {
            "due": "2026-01-05T09:00:40Z",
            "kind": "collection.outcome",
            "object_type": "collection",
            "object_id": created["id"],
            "description": f"collection {short(created['id'])} completes (COMPLETED)",
        }
    ]


async def test_a_later_step_the_first_leads_to_is_not_idle(http, v2, merchant, runtime):
    """Test account 210000001: completes, then is disputed (reachable from PENDING)."""
    profile = merchant["profiles"][0]["profileCode"]
    body = eft_body(profile, debtor={**eft_body(profile)["debtor"], "accountNumber": "210000001"})
    created = (await http.post("/v2/collection/eft", json=body, headers=v2)).json()
    lines = [d["description"] for d in await schedule(runtime, merchant, created["id"])]
    assert lines == [
        f"collection {short(created['id'])} completes (COMPLETED)",
        f"collection {short(created['id'])} is disputed (DISPUTED: no authority to debit)",
    ]


async def test_an_eft_payment_completes_on_its_action_date(http, v2, merchant, runtime):
    """A SAMEDAY payment completes at 16:00Z of its action date."""
    body = {
        "debtor": {"accountNumber": "4052218811", "branchCode": "051001", "name": "Us"},
        "abbreviatedName": "PAYROLL",
        "contractReference": "INV-1",
        "creditor": {"accountNumber": "62000000001", "branchCode": "250655", "name": "Supplier"},
        "amountCents": 250_000,
        "paymentDate": "2026-01-05T00:00:00Z",
        "profileCode": merchant["profiles"][0]["profileCode"],
        "serviceType": "SAMEDAY",
        "externalReference": "PAY-1",
    }
    response = await http.post("/v2/payment/eft", json=body, headers=v2)
    assert response.status_code == 201, response.text
    created = response.json()
    [step] = await schedule(runtime, merchant, created["id"])
    assert step == {
        "due": "2026-01-05T16:00:00Z",
        "kind": "payment.outcome",
        "object_type": "payment",
        "object_id": created["id"],
        "description": f"payment {short(created['id'])} completes (COMPLETED)",
    }


@pytest.mark.parametrize(
    ("strict", "outcome"),
    [
        pytest.param(False, "becomes overdue", id="overdue"),
        pytest.param(True, "expires (due_strict)", id="due-strict"),
    ],
)
async def test_a_purchase_reaches_its_due_date(http, gw, merchant, runtime, strict, outcome):
    """purchase.due is public purchase.expiry; due_strict decides what it does."""
    details = {"currency": "ZAR", "products": [{"name": "W", "price": 100}], "due_strict": strict}
    p = await create_purchase(http, gw, merchant, purchase=details, due=EPOCH_S + 3600)
    assert await schedule(runtime, merchant, p["id"]) == [
        {
            "due": "2026-01-05T10:00:00Z",
            "kind": "purchase.expiry",
            "object_type": "purchase",
            "object_id": p["id"],
            "description": f"purchase {short(p['id'])} reaches its due date and {outcome}"
            " if still unpaid",
        }
    ]


async def test_a_token_expiry_names_the_client_never_the_token(http, merchant, runtime):
    """oauth.token_expiry is token.expiry of the OAuth client; the token's value is nowhere."""
    response = await http.post(
        "/oauth2/token",
        auth=(merchant["client_id"], merchant["client_secret"]),
        data={"grant_type": "client_credentials"},
    )
    token = response.json()["access_token"]
    [expiry] = await schedule(runtime, merchant)
    assert expiry == {
        "due": "2026-01-06T09:00:00Z",
        "kind": "token.expiry",
        "object_type": "token",
        "object_id": merchant["client_id"],
        "description": f"an access token of client {merchant['client_id']} expires",
    }
    assert token not in repr(expiry)


async def test_a_subscriber_is_billed_with_its_cycle(http, gw, merchant, runtime):
    """A trial subscriber: billing.bill is billing.charge of the billing_template_client."""
    fields = {"subscription_trial_periods": 2, "subscription_period_units": "weeks"}
    t = await create_template(http, gw, merchant, **fields)
    s = (await add_subscriber(http, gw, t["id"]))["billing_template_client"]
    assert await schedule(runtime, merchant, s["id"]) == [
        {
            "due": "2026-01-19T00:00:00Z",
            "kind": "billing.charge",
            "object_type": "billing_template_client",
            "object_id": s["id"],
            "description": f"subscriber {short(s['id'])} is billed (cycle 2): sent an invoice",
        }
    ]


async def test_a_webhook_retry_names_the_object_of_its_event(http, gw, merchant, runtime):
    """After a refused first attempt, attempt 2 is due a minute later; it belongs to the
    payout whose payout.pending it delivers."""
    hook = {"title": "down", "all_events": True, "callback": DOWN}
    response = await http.post("/api/v1/webhooks/", json=hook, headers=gw)
    assert response.status_code == 201, response.text
    payout = await pending_payout(http, gw, merchant)
    await runtime.deliveries.flush()
    found = await schedule(runtime, merchant, payout["id"])
    assert [d["kind"] for d in found] == ["delivery.attempt", "payout.expiry", "payout.settlement"]
    assert found[0] == {
        "due": "2026-01-05T09:01:00Z",
        "kind": "delivery.attempt",
        "object_type": "payout",
        "object_id": payout["id"],
        "description": f"attempt 2 of 9 of the payout.pending webhook to {DOWN}",
    }


async def test_a_debicheck_window_and_its_answers(http, v2, merchant, runtime):
    """The window ends in EXPIRED; an answer for that window is described, one for a window
    a reset replaced does nothing."""
    profile = merchant["profiles"][0]["profileCode"]
    response = await http.post("/v2/mandate/debicheck", json=debicheck_body(profile), headers=v2)
    mandate = response.json()
    name = f"mandate {short(mandate['id'])}"
    [window] = await schedule(runtime, merchant, mandate["id"])
    assert window == {
        "due": "2026-01-05T09:02:00Z",
        "kind": "mandate.window",
        "object_type": "mandate",
        "object_id": mandate["id"],
        "description": f"{name} expires (EXPIRED) if the debtor has not authenticated by then",
    }
    answer = {"id": mandate["id"], "deadline": "2026-01-05T09:02:00Z", "status": "REJECTED"}
    decided = await described(runtime, job("bank.mandate_decision", answer))
    assert (decided["kind"], decided["description"]) == (
        "mandate.authorisation",
        f"{name} gets the debtor's answer (REJECTED)",
    )
    stale = await described(
        runtime, job("bank.mandate_decision", {**answer, "deadline": "2026-01-01T00:00:00Z"})
    )
    assert stale["description"].endswith("(no effect: a reset opened a new window)")


async def test_purchase_jobs_that_find_nothing_to_do_say_so(http, gw, merchant, runtime):
    """A capture, charge or hold job on a purchase not in that state, or on none at all."""
    p = await create_purchase(http, gw, merchant)
    name = f"purchase {short(p['id'])}"
    expected = {
        "purchase.capture_settles": f"the slow capture of {name} completes (paid)",
        "purchase.charge_settles": f"the slow charge of {name} completes (paid)",
        "purchase.hold_expires": f"the 7-day hold on {name} lapses (released)",
    }
    for kind, line in expected.items():
        seen = await described(runtime, job(kind, {"purchase_id": p["id"]}))
        assert seen["description"] == line + " (no effect: the purchase is created)", kind
    gone = await described(runtime, job("purchase.hold_expires", {"purchase_id": UNKNOWN}))
    assert gone["description"].endswith("(no effect: the purchase is gone)")


async def test_a_statement_step_after_a_cancel_says_it_does_nothing(http, gw, runtime):
    """A generation step of a cancelled statement, or one already past that step."""
    statement = (await http.post("/api/v1/company_statements/", headers=gw)).json()
    sid = statement["id"]
    begin = await described(
        runtime, job("company_statement.generate", {"id": sid, "trigger": "begin"})
    )
    assert (begin["kind"], begin["object_type"], begin["object_id"], begin["description"]) == (
        "company_statement.generation",
        "company_statement",
        sid,
        f"statement {short(sid)} starts being generated (processing)",
    )
    finish = await described(
        runtime, job("company_statement.generate", {"id": sid, "trigger": "finish"})
    )
    assert finish["description"] == (
        f"statement {short(sid)} is generated (success): its file is ready"
        " (no effect: the statement is pending)"
    )
    await http.post(f"/api/v1/company_statements/{sid}/cancel/", headers=gw)
    after = await described(
        runtime, job("company_statement.generate", {"id": sid, "trigger": "begin"})
    )
    assert after["description"].endswith("(no effect: the statement is cancelled)")


# -- odd and unknown jobs ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "payload",
    [
        pytest.param({}, id="empty"),
        pytest.param(
            {k: [1] for k in ("payout", "purchase_id", "subscriber", "token", "id", "message")},
            id="wrong-types",
        ),
        pytest.param(
            {
                "payout": UNKNOWN,
                "purchase_id": UNKNOWN,
                "subscriber": UNKNOWN,
                "token": "x",
                "id": UNKNOWN,
                "message": 10**9,
                "period": 3,
                "attempt": 2,
                "status": "COMPLETED",
            },
            id="gone",
        ),
    ],
)
async def test_an_odd_job_still_gets_a_description(runtime, merchant, payload):
    """Missing keys, wrong types, objects gone: every kind gets its public kind and a line,
    never an error; a job on an object that is gone says it will do nothing."""
    for kind in KINDS:
        seen = await described(runtime, job(kind, payload, merchant["company_id"]))
        assert set(seen) == {"due", "kind", "object_type", "object_id", "description"}, kind
        assert (seen["kind"], seen["due"]) == (KINDS[kind].public, "2026-01-05T09:00:00Z"), kind
        assert isinstance(seen["description"], str) and seen["description"], kind
        gone = "(no effect: the " in seen["description"] and " is gone)" in seen["description"]
        acts_on_an_object = kind != "retention.prune"  # housekeeping acts on tables
        assert gone == (acts_on_an_object and payload.get("id") == UNKNOWN), (kind, seen)


async def test_an_unknown_kind_maps_to_itself(runtime):
    """A job kind the table does not know is shown under its own name."""
    assert await described(runtime, job("something.new", {"x": 1})) == {
        "due": "2026-01-05T09:00:00Z",
        "kind": "something.new",
        "object_type": None,
        "object_id": None,
        "description": "something.new job runs",
    }


async def test_a_describer_that_fails_falls_back_to_a_plain_line(runtime, monkeypatch):
    """A describer tripping over a row it did not expect still leaves the job listed."""

    def trips(tx: Any, job: Job) -> Any:
        raise KeyError("payout")

    monkeypatch.setitem(
        KINDS, "payout.settlement", KINDS["payout.settlement"]._replace(describe=trips)
    )
    seen = await described(runtime, job("payout.settlement", {"payout": UNKNOWN}))
    assert (seen["kind"], seen["object_type"], seen["description"]) == (
        "payout.settlement",
        "payout",
        "payout.settlement job runs",
    )


# -- the table -----------------------------------------------------------------------------------


def test_every_job_kind_of_the_code_has_one_public_kind():
    """Each ``*_JOB = "..."`` constant of the package is in the table, and no two internal
    kinds share a public one."""
    defined = {
        m.group(1)
        for path in Path(emulator.__file__).parent.rglob("*.py")
        for m in re.finditer(r'^\w*_JOB = "([^"]+)"', path.read_text(), re.MULTILINE)
    }
    assert defined == set(KINDS)
    publics = [k.public for k in KINDS.values()]
    assert len(publics) == len(set(publics))
