"""Merchants' own clocks through the control plane (issue 13): creating a merchant with a clock,
reading, giving and moving it, the 409s and 404s; durations and "next"; the schedule; the
X-Emulator-Time header; two merchants' time moving independently (purchase due dates, token
lifetimes, billing, collection outcomes) and never waiting for each other; snapshots, reset and
restart. Every clock is frozen and every instant explicit."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from emulator.runtime.runtime import Runtime
from emulator.serving.app import create_app
from tests.conftest import settings_for
from tests.delivery.test_deliveries import DOWN, SINK, attempts, paid_out, webhook
from tests.http.bank_helpers import debicheck_body, eft_body
from tests.http.billing_helpers import add_subscriber, create_template, get_subscriber, pay_purchase
from tests.http.clock_helpers import (
    SERVER_NOW,
    Receiver,
    advance,
    clock_of,
    clock_path,
    error,
    follower,
    gw_of,
    later,
    merchant_with_clock,
    now_of,
    schedule,
    sink_messages,
    unix,
    until,
    v2_of,
)
from tests.http.scenario_helpers import activate

A_START = "2026-03-02T08:00:00Z"  # a Monday, 10:00 SAST
B_START = "2026-06-01T12:00:00Z"
UNKNOWN = "00000000-0000-4000-8000-000000000000"


async def purchase_due_in(
    http: httpx.AsyncClient, merchant: dict[str, Any], seconds: int
) -> dict[str, Any]:
    """A due_strict purchase of ``merchant``, due ``seconds`` after its merchant's now."""
    due = unix(await now_of(http, merchant)) + seconds
    body = {
        "client": {"email": "payer@example.com"},
        "purchase": {
            "currency": "ZAR",
            "products": [{"name": "Widget", "price": 1000}],
            "due_strict": True,
        },
        "brand_id": merchant["brand_id"],
        "due": due,
    }
    response = await http.post("/api/v1/purchases/", json=body, headers=gw_of(merchant))
    assert response.status_code == 201, response.text
    created: dict[str, Any] = response.json()
    assert created["due"] == due
    return created


async def purchase_status(
    http: httpx.AsyncClient, merchant: dict[str, Any], purchase: dict[str, Any]
) -> str:
    response = await http.get(f"/api/v1/purchases/{purchase['id']}/", headers=gw_of(merchant))
    assert response.status_code == 200, response.text
    status: str = response.json()["status"]
    return status


async def collection(
    http: httpx.AsyncClient, v2: dict[str, str], merchant: dict[str, Any], account: str, **extra
) -> dict[str, Any]:
    profile = merchant["profiles"][0]["profileCode"]
    body = eft_body(profile, debtor={"accountNumber": account, "branchCode": "051001"}, **extra)
    response = await http.post("/v2/collection/eft", json=body, headers=v2)
    assert response.status_code == 201, response.text
    created: dict[str, Any] = response.json()
    return created


async def collection_status(
    http: httpx.AsyncClient, v2: dict[str, str], created: dict[str, Any]
) -> str:
    response = await http.get(f"/v2/collection/eft/{created['id']}/status", headers=v2)
    assert response.status_code == 200, response.text
    status: str = response.json()["status"]
    return status


def pick(answer: dict[str, Any], *keys: str) -> tuple[Any, ...]:
    return tuple(answer[key] for key in keys)


# -- creating, reading and giving a clock ---------------------------------------------------------


async def test_a_merchant_created_with_a_clock_owns_it(http):
    """mode and now as given; both optional (frozen, the server clock's instant); without
    "clock" the merchant follows the server clock."""
    given = await merchant_with_clock(http, now=A_START, mode="frozen")
    assert given["clock"] == {"now": A_START, "mode": "frozen", "own": True}
    assert await clock_of(http, given) == given["clock"]
    defaults = await merchant_with_clock(http)
    assert defaults["clock"] == {"now": SERVER_NOW, "mode": "frozen", "own": True}
    following = await follower(http)
    assert following["clock"] == {"now": SERVER_NOW, "mode": "frozen", "own": False}
    assert await clock_of(http, following) == following["clock"]
    listed = (await http.get("/_emulator/merchants")).json()["merchants"]
    clocks = {m["company_id"]: m["clock"] for m in listed}
    assert clocks[given["company_id"]] == given["clock"]
    assert clocks[following["company_id"]] == following["clock"]


async def test_a_real_clock_runs_from_the_instant_given(http):
    """mode real: the merchant's time is the instant given plus the wall time since (bounded)."""
    started = time.monotonic()
    real = await merchant_with_clock(http, now=B_START, mode="real")
    assert (real["clock"]["mode"], real["clock"]["own"]) == ("real", True)
    elapsed = time.monotonic() - started
    assert unix(B_START) <= unix(real["clock"]["now"]) <= unix(B_START) + elapsed + 1
    read = await clock_of(http, real)
    assert unix(B_START) <= unix(read["now"]) <= unix(B_START) + time.monotonic() - started + 1
    assert await now_of(http) == SERVER_NOW  # the server clock stays frozen


@pytest.mark.parametrize(
    "clock",
    [
        pytest.param("frozen", id="not-an-object"),
        pytest.param({"mode": "slow"}, id="mode"),
        pytest.param({"now": "yesterday"}, id="now-not-iso"),
        pytest.param({"now": 1772438400}, id="now-a-number"),
        pytest.param({"now": "9999-01-01T00:00:00Z"}, id="now-out-of-range"),
        pytest.param({"speed": 2}, id="unknown-key"),
    ],
)
async def test_clock_settings_that_are_refused(http, clock):
    created = await http.post("/_emulator/merchants", json={"clock": clock})
    assert error(created) == (400, "invalid")
    if isinstance(clock, dict):
        someone = await follower(http)
        put = await http.put(clock_path(someone), json=clock)
        assert error(put) == (400, "invalid")
        assert (await clock_of(http, someone))["own"] is False


async def test_an_unknown_merchant_is_404_everywhere(http):
    path = f"/_emulator/merchants/{UNKNOWN}"
    for method, suffix, body in (
        ("GET", "/clock", None),
        ("PUT", "/clock", {"now": A_START}),
        ("POST", "/clock/advance", {"seconds": 1}),
        ("POST", "/clock/advance", {"to": "next"}),
        ("POST", "/clock/freeze", {}),
        ("POST", "/clock/resume", {}),
        ("GET", "/schedule", None),
    ):
        response = await http.request(method, path + suffix, json=body)
        assert error(response) == (404, "merchant_not_found"), (method, suffix)


async def test_a_merchant_that_follows_the_server_clock_cannot_move_alone(http):
    """advance, freeze and resume of its clock are 409 clock_not_own; nothing moves."""
    following = await follower(http)
    for action, body in (
        ("advance", {"seconds": 60}),
        ("advance", {"to": "next"}),
        ("freeze", {"at": A_START}),
        ("resume", {}),
    ):
        response = await http.post(clock_path(following, action), json=body)
        assert error(response) == (409, "clock_not_own"), action
        assert "clock" in response.json()["error"]["message"]
    assert await clock_of(http, following) == {"now": SERVER_NOW, "mode": "frozen", "own": False}
    assert await now_of(http) == SERVER_NOW


async def test_put_gives_a_clock_and_takes_the_merchants_pending_jobs_onto_it(http):
    """A follower's purchase due in an hour is on the server's schedule; once the merchant has
    its own clock it is on the merchant's, the server clock passing its due does nothing, and
    the merchant's own advance expires it."""
    merchant = await follower(http)
    purchase = await purchase_due_in(http, merchant, 3600)
    due = later(SERVER_NOW, hours=1)
    on_server = await schedule(http, object_id=purchase["id"])
    assert [(j["kind"], j["due"]) for j in on_server["jobs"]] == [("purchase.expiry", due)]
    given = await http.put(clock_path(merchant), json={})
    assert given.status_code == 200, given.text
    assert given.json() == {"now": SERVER_NOW, "mode": "frozen", "own": True}
    assert (await schedule(http, object_id=purchase["id"]))["jobs"] == []
    mine = await schedule(http, merchant, object_id=purchase["id"])
    assert [(j["kind"], j["due"]) for j in mine["jobs"]] == [("purchase.expiry", due)]
    await advance(http, hours=2)
    assert await purchase_status(http, merchant, purchase) == "created"
    assert await now_of(http, merchant) == SERVER_NOW
    moved = await advance(http, merchant, hours=1)
    assert moved["now"] == due and moved["jobs_run"] >= 1
    assert await purchase_status(http, merchant, purchase) == "expired"


async def test_put_on_a_merchant_that_owns_a_clock_sets_it_anew(http):
    merchant = await merchant_with_clock(http, now=A_START)
    reset = await http.put(clock_path(merchant), json={"now": B_START, "mode": "frozen"})
    assert reset.json() == {"now": B_START, "mode": "frozen", "own": True}
    assert await clock_of(http, merchant) == {"now": B_START, "mode": "frozen", "own": True}
    assert await now_of(http) == SERVER_NOW


async def test_freeze_and_resume_act_on_the_merchants_clock_alone(http):
    merchant = await merchant_with_clock(http, now=A_START)
    other = await merchant_with_clock(http, now=A_START)
    frozen = await http.post(clock_path(merchant, "freeze"), json={"at": B_START})
    assert frozen.status_code == 200, frozen.text
    assert pick(frozen.json(), "now", "mode") == (B_START, "frozen")
    started = time.monotonic()
    resumed = await http.post(clock_path(merchant, "resume"), json={})
    assert resumed.json()["mode"] == "real"
    assert unix(B_START) <= unix(resumed.json()["now"]) <= unix(B_START) + 2
    again = await http.post(clock_path(merchant, "freeze"), json={})
    assert again.json()["mode"] == "frozen"
    assert (
        unix(B_START) <= unix(again.json()["now"]) <= unix(B_START) + time.monotonic() - started + 1
    )
    assert await clock_of(http, other) == {"now": A_START, "mode": "frozen", "own": True}
    assert await now_of(http) == SERVER_NOW
    assert (await http.get("/_emulator/clock")).json()["mode"] == "frozen"


async def test_a_jump_of_a_merchants_clock_runs_what_it_passes(http):
    """freeze with "at" past a due date: the purchase expires; the other merchant's does not."""
    merchant = await merchant_with_clock(http, now=A_START)
    other = await merchant_with_clock(http, now=A_START)
    mine, theirs = (
        await purchase_due_in(http, merchant, 3600),
        await purchase_due_in(http, other, 3600),
    )
    jumped = await http.post(clock_path(merchant, "freeze"), json={"at": later(A_START, hours=2)})
    assert pick(jumped.json(), "now", "mode") == (later(A_START, hours=2), "frozen")
    assert await purchase_status(http, merchant, mine) == "expired"
    assert await purchase_status(http, other, theirs) == "created"


# -- advance bodies -------------------------------------------------------------------------------


async def test_durations_add_up_on_a_merchants_clock_and_the_servers(http):
    merchant = await merchant_with_clock(http, now=A_START)
    body = {"days": 1, "hours": 2, "minutes": 3, "seconds": 4.5}
    moved = await advance(http, merchant, **body)
    assert pick(moved, "now", "mode", "jobs_run") == ("2026-03-03T10:03:04.500000Z", "frozen", 0)
    assert await now_of(http) == SERVER_NOW
    server = await advance(http, **body)
    # the one job: the server's daily retention (it prunes nothing here)
    assert pick(server, "now", "mode", "jobs_run") == ("2026-01-06T11:03:04.500000Z", "frozen", 1)
    assert await now_of(http, merchant) == "2026-03-03T10:03:04.500000Z"
    for unit, seconds in (("seconds", 1), ("minutes", 60), ("hours", 3600), ("days", 86_400)):
        before = await now_of(http, merchant)
        moved = await advance(http, merchant, **{unit: 2})
        assert moved["now"] == later(before, seconds=2 * seconds), unit
    to = await advance(http, merchant, to="2026-04-01T00:00:00+02:00")
    assert to["now"] == "2026-03-31T22:00:00Z"


@pytest.mark.parametrize(
    "body",
    [
        pytest.param({}, id="empty"),
        pytest.param({"seconds": 1, "to": "2026-04-01T00:00:00Z"}, id="duration-and-to"),
        pytest.param({"to": "2026-03-01T00:00:00Z"}, id="backwards"),
        pytest.param({"to": "soon"}, id="to-not-iso"),
        pytest.param({"seconds": -1}, id="negative"),
        pytest.param({"hours": "2"}, id="a-string"),
        pytest.param({"weeks": 1}, id="unknown-unit"),
        pytest.param({"days": 10**9}, id="out-of-range"),
    ],
)
async def test_advance_bodies_that_are_refused(http, body):
    merchant = await merchant_with_clock(http, now=A_START)
    response = await http.post(clock_path(merchant, "advance"), json=body)
    assert error(response) == (400, "invalid")
    server = await http.post("/_emulator/clock/advance", json=body)
    if body.get("to") != "2026-03-01T00:00:00Z":  # after the server's now: not backwards there
        assert error(server) == (400, "invalid")
    assert await now_of(http, merchant) == A_START


async def test_to_next_moves_exactly_to_the_next_job_and_says_which(http):
    """A pending payout (execution window 15 min, settlement 3 days) and a purchase due in an
    hour: each "next" stops at one due time; then nothing is scheduled: 409."""
    merchant = await merchant_with_clock(http, now=A_START)
    gw = gw_of(merchant)
    payout = await paid_out(http, gw, merchant, "5555555555554444")
    assert payout["status"] == "pending"
    purchase = await purchase_due_in(http, merchant, 3600)
    steps = [
        (later(A_START, minutes=15), "payout.expiry", "payout", payout["id"]),
        (later(A_START, hours=1), "purchase.expiry", "purchase", purchase["id"]),
        (later(A_START, days=3), "payout.settlement", "payout", payout["id"]),
    ]
    for due, kind, object_type, object_id in steps:
        moved = await advance(http, merchant, to="next")
        assert moved["now"] == due and moved["mode"] == "frozen", kind
        assert moved["jobs_run"] >= 1
        described = moved["next"]
        assert set(described) == {"due", "kind", "object_type", "object_id", "description"}
        assert (described["due"], described["kind"]) == (due, kind)
        assert (described["object_type"], described["object_id"]) == (object_type, object_id)
        assert object_id[:8] in described["description"]
    assert await purchase_status(http, merchant, purchase) == "expired"
    got = await http.get(f"/api/v1/payouts/{payout['id']}/", headers=gw)
    assert got.json()["status"] == "success"
    nothing = await http.post(clock_path(merchant, "advance"), json={"to": "next"})
    assert error(nothing) == (409, "nothing_scheduled")
    assert await now_of(http, merchant) == later(A_START, days=3)
    assert await now_of(http) == SERVER_NOW


async def test_to_next_on_the_server_clock_ignores_merchants_with_their_own(http):
    own = await merchant_with_clock(http)
    await purchase_due_in(http, own, 600)
    nothing = await http.post("/_emulator/clock/advance", json={"to": "next"})
    assert error(nothing) == (409, "nothing_scheduled")
    following = await follower(http)
    purchase = await purchase_due_in(http, following, 1800)
    moved = await advance(http, to="next")
    assert moved["now"] == later(SERVER_NOW, minutes=30)
    assert (moved["next"]["kind"], moved["next"]["object_id"]) == (
        "purchase.expiry",
        purchase["id"],
    )


# -- the schedule ---------------------------------------------------------------------------------


async def test_the_schedule_lists_a_merchants_jobs_soonest_first(http):
    """One of each: token expiry, a payout's window and settlement, a purchase's due date, an
    EFT collection's outcome, a DebiCheck mandate's answer and window, a subscriber's billing
    day, a delivery retry. ?object_id= narrows to one object, ?limit= to the first ones."""
    merchant = await merchant_with_clock(http, now=A_START)
    gw, v2 = gw_of(merchant), await v2_of(http, merchant)
    await activate(http, merchant, "mandate.authorisation", {"status": "AUTHENTICATED",
                                                             "after_seconds": 60})  # fmt: skip
    await webhook(http, gw, DOWN, all_events=False, events=["payout.pending"])
    payout = await paid_out(http, gw, merchant, "5555555555554444")
    await attempts(http, object_id=payout["id"])  # the first attempt has been made (and failed)
    purchase = await purchase_due_in(http, merchant, 7200)
    eft = await collection(http, v2, merchant, "110000001")
    profile = merchant["profiles"][0]["profileCode"]
    mandate = (await http.post("/v2/mandate/debicheck", json=debicheck_body(profile),
                               headers=v2)).json()  # fmt: skip
    template = await create_template(http, gw, merchant, subscription_trial_periods=1)
    subscriber = (await add_subscriber(http, gw, template["id"]))["billing_template_client"]
    assert subscriber["subscription_billing_scheduled_on"] == "2026-04-02"
    expected = [
        (later(A_START, seconds=40), "collection.outcome", "collection", eft["id"]),
        (later(A_START, minutes=1), "delivery.attempt", "payout", payout["id"]),
        (later(A_START, minutes=1), "mandate.authorisation", "mandate", mandate["id"]),
        (later(A_START, minutes=2), "mandate.window", "mandate", mandate["id"]),
        (later(A_START, minutes=15), "payout.expiry", "payout", payout["id"]),
        (later(A_START, hours=2), "purchase.expiry", "purchase", purchase["id"]),
        (later(A_START, days=1), "token.expiry", "token", merchant["client_id"]),
        (later(A_START, days=3), "payout.settlement", "payout", payout["id"]),
        ("2026-04-02T00:00:00Z", "billing.charge", "billing_template_client", subscriber["id"]),
    ]
    listed = await schedule(http, merchant)
    assert (listed["now"], listed["mode"]) == (A_START, "frozen")
    jobs = listed["jobs"]
    assert [j["due"] for j in jobs] == sorted(j["due"] for j in jobs)
    assert sorted((j["due"], j["kind"], j["object_type"], j["object_id"]) for j in jobs) == sorted(
        expected
    )
    for job in jobs:
        assert set(job) == {"due", "kind", "object_type", "object_id", "description"}
        assert isinstance(job["description"], str) and job["description"]
    [retry] = [j for j in jobs if j["kind"] == "delivery.attempt"]
    assert "attempt 2" in retry["description"] and DOWN in retry["description"]
    [settles] = [j for j in jobs if j["kind"] == "payout.settlement"]
    assert "success" in settles["description"]
    one = await schedule(http, merchant, object_id=payout["id"])
    assert [(j["due"], j["kind"]) for j in one["jobs"]] == [
        (later(A_START, minutes=1), "delivery.attempt"),
        (later(A_START, minutes=15), "payout.expiry"),
        (later(A_START, days=3), "payout.settlement"),
    ]
    assert (await schedule(http, merchant, object_id=UNKNOWN))["jobs"] == []
    first_two = await schedule(http, merchant, limit="2")
    assert first_two["jobs"] == jobs[:2]
    for limit in ("0", "1001", "x"):
        response = await http.get(
            f"/_emulator/merchants/{merchant['company_id']}/schedule", params={"limit": limit}
        )
        assert error(response) == (400, "invalid"), limit
    server = await schedule(http)
    assert (server["now"], server["mode"]) == (SERVER_NOW, "frozen")
    assert not {j["object_id"] for j in server["jobs"]} & {j["object_id"] for j in jobs}


async def test_the_servers_schedule_lists_the_jobs_of_merchants_that_follow_it(http):
    """The server's schedule: every merchant that follows the server clock, none that owns its
    clock. A merchant's schedule: that merchant's jobs only, whichever clock it follows."""
    first, second = await follower(http), await follower(http)
    own = await merchant_with_clock(http, now=SERVER_NOW)
    firsts = await purchase_due_in(http, first, 600)
    seconds = await purchase_due_in(http, second, 1200)
    mine = await purchase_due_in(http, own, 300)
    server = await schedule(http)
    assert [(j["due"], j["kind"], j["object_id"]) for j in server["jobs"]] == [
        (later(SERVER_NOW, minutes=10), "purchase.expiry", firsts["id"]),
        (later(SERVER_NOW, minutes=20), "purchase.expiry", seconds["id"]),
        (later(SERVER_NOW, days=1), "retention.prune", None),  # the server's, no merchant's
    ]
    assert (await schedule(http, first))["jobs"] == server["jobs"][:1]
    assert (await schedule(http, second))["jobs"] == server["jobs"][1:2]
    assert [j["object_id"] for j in (await schedule(http, own))["jobs"]] == [mine["id"]]


async def test_one_object_has_one_object_type_in_the_schedule(http):
    """A collection's outcome and the retry of its callback are jobs about the same object:
    the schedule names its type the same way for both ("collection", the type the outcome job
    and the schedule's kinds use), as it does for a payout's settlement and its webhook."""
    merchant = await merchant_with_clock(http, now=A_START)
    v2 = await v2_of(http, merchant)
    body = {"clientId": merchant["profiles"][0]["createdByClient"], "url": DOWN,
            "callbackType": "EFT_COLLECTION", "callbackVersion": "V2"}  # fmt: skip
    assert (await http.post("/v2/clientcallbackurl/", json=body, headers=v2)).status_code == 200
    eft = await collection(http, v2, merchant, "110000001")
    await attempts(http, object_id=eft["id"])  # the first attempt has been made (and failed)
    jobs = (await schedule(http, merchant, object_id=eft["id"]))["jobs"]
    assert sorted(j["kind"] for j in jobs) == ["collection.outcome", "delivery.attempt"]
    assert {j["object_type"] for j in jobs} == {"collection"}, jobs


# -- X-Emulator-Time --------------------------------------------------------------------------------


async def test_every_interface_tells_the_authenticated_merchants_instant(http):
    own = await merchant_with_clock(http, now=A_START)
    following = await follower(http)
    await advance(http, own, seconds=90)
    own_now, server_now = later(A_START, seconds=90), SERVER_NOW
    for merchant, now in ((own, own_now), (following, server_now)):
        token = await http.post(
            "/oauth2/token",
            auth=(merchant["client_id"], merchant["client_secret"]),
            data={"grant_type": "client_credentials"},
        )
        assert token.status_code == 200
        assert token.headers["x-emulator-time"] == now
        v2 = {"Authorization": f"Bearer {token.json()['access_token']}"}
        for response in (
            await http.get("/v2/merchantprofile", headers=v2),
            await http.get("/v2/no-such-path", headers=v2),
            await http.get("/api/v1/clients/", headers=gw_of(merchant)),
            await http.post(
                "/api/v1/clients/", json={"email": "x@example.com"}, headers=gw_of(merchant)
            ),
            await http.get(f"/api/v1/purchases/{UNKNOWN}/", headers=gw_of(merchant)),
        ):
            assert response.headers["x-emulator-time"] == now, response.request.url
    client = await http.post(
        "/api/v1/clients/", json={"email": "y@example.com"}, headers=gw_of(own)
    )
    assert client.json()["created_on"] == unix(own_now)
    for response in (  # nobody authenticated: the server clock's instant
        await http.get("/api/v1/clients/"),
        await http.get("/v2/merchantprofile"),
        await http.post(
            "/oauth2/token",
            auth=(own["client_id"], "wrong"),
            data={"grant_type": "client_credentials"},
        ),
    ):
        assert response.status_code in (400, 401), response.text
        assert response.headers["x-emulator-time"] == server_now, response.request.url
    control = await http.get("/_emulator/health")
    assert "x-emulator-time" not in control.headers
    created = await http.post(
        "/api/v1/payouts/",
        json={"client": {"email": "payee@example.com"},
              "payment": {"amount": 700, "currency": "ZAR"}, "brand_id": own["brand_id"]},
        headers=gw_of(own),
    )  # fmt: skip
    executed = await http.post(  # the payout execution URL names no merchant: its payout does
        httpx.URL(created.json()["execution_url"]).path,
        json={"card_number": "4444333322221111", "cardholder_name": "J Doe",
              "expiry_month": "12", "expiry_year": "30"},
    )  # fmt: skip
    assert executed.status_code == 200, executed.text
    assert executed.headers["x-emulator-time"] == own_now


async def test_control_plane_actions_happen_at_the_merchants_instant(http):
    """Acting as the payer, the provider, the bank or the debtor on a merchant's object: the
    change, its events and their deliveries carry the merchant's instant, not the server's."""
    merchant = await merchant_with_clock(http, now=A_START)
    gw, v2 = gw_of(merchant), await v2_of(http, merchant)
    await webhook(http, gw, SINK.format(name="acts"))
    client_number = merchant["profiles"][0]["createdByClient"]
    for kind in ("EFT_COLLECTION", "DEBICHECK_MANDATE"):
        body = {"clientId": client_number, "url": SINK.format(name="acts"),
                "callbackType": kind, "callbackVersion": "V2"}  # fmt: skip
        assert (await http.post("/v2/clientcallbackurl/", json=body, headers=v2)).status_code == 200
    await advance(http, merchant, minutes=1)
    now = later(A_START, minutes=1)
    purchase = await purchase_due_in(http, merchant, 3600)
    paid = await http.post(f"/_emulator/purchases/{purchase['id']}/pay", json={})
    assert paid.json()["status"] == "paid"
    assert paid.json()["status_history"][-1]["timestamp"] == unix(now)
    payout = await paid_out(http, gw, merchant, "5555555555554444")
    settled = await http.post(f"/_emulator/payouts/{payout['id']}/settle")
    assert (settled.json()["status"], settled.json()["updated_on"]) == ("success", unix(now))
    eft = await collection(http, v2, merchant, "62000000001")
    done = await http.post(f"/_emulator/collections/{eft['id']}/settle", json={})
    assert (done.json()["status"], done.json()["updatedAt"]) == ("COMPLETED", now)
    profile = merchant["profiles"][0]["profileCode"]
    mandate = (await http.post("/v2/mandate/debicheck", json=debicheck_body(profile),
                               headers=v2)).json()  # fmt: skip
    authorised = await http.post(f"/_emulator/mandates/{mandate['id']}/authorise")
    assert (authorised.json()["status"], authorised.json()["updatedAt"]) == ("AUTHENTICATED", now)
    found = await attempts(http, merchant=merchant["company_id"])
    while len(found) < 8:  # a read waits 3 s for sends under way; a loaded machine may need more
        query = {"merchant": merchant["company_id"], "after": str(found[-1]["id"] if found else 0)}
        more = (await http.get("/_emulator/deliveries/wait", params=query)).json()["deliveries"]
        assert more, f"8 attempts expected, {len(found)} came: {found}"
        found += sorted(more, key=lambda a: a["id"])
    assert {a["at"] for a in found} == {now}
    assert {m["received_at"] for m in await sink_messages(http, "acts")} == {now}
    assert await now_of(http) == SERVER_NOW


async def test_rate_limit_windows_follow_the_merchants_clock(http):
    """5 requests a minute, windows aligned on the merchant's clock: X-RateLimit-Reset is the
    end of the merchant's window; the server clock passing it does not open a new one."""
    merchant = await merchant_with_clock(http, now=later(A_START, seconds=30))
    await http.post(
        "/_emulator/scenarios/rate-limited/activate", json={"merchant": merchant["company_id"]}
    )
    answers = [await http.get("/api/v1/clients/", headers=gw_of(merchant)) for _ in range(6)]
    assert [r.status_code for r in answers] == [200] * 5 + [429]
    window_end = unix(later(A_START, minutes=1))
    assert {r.headers["x-ratelimit-reset"] for r in answers} == {str(window_end)}
    assert answers[-1].headers["retry-after"] == "30"
    await advance(http, minutes=5)
    assert (await http.get("/api/v1/clients/", headers=gw_of(merchant))).status_code == 429
    await advance(http, merchant, seconds=30)
    again = await http.get("/api/v1/clients/", headers=gw_of(merchant))
    assert again.status_code == 200
    assert again.headers["x-ratelimit-reset"] == str(window_end + 60)


# -- two merchants, two times -------------------------------------------------------------------


async def test_purchase_due_dates_pass_on_each_merchants_clock(http):
    """A and B own clocks at different instants, C follows the server clock; each has a purchase
    due an hour after its own now. Each expires when its own clock passes its due, never when
    another clock does."""
    a = await merchant_with_clock(http, now=A_START)
    b = await merchant_with_clock(http, now=B_START)
    c = await follower(http)
    purchases = {key: await purchase_due_in(http, m, 3600) for key, m in (("a", a), ("b", b),
                                                                           ("c", c))}  # fmt: skip
    assert purchases["a"]["created_on"] == unix(A_START)
    assert purchases["b"]["created_on"] == unix(B_START)
    assert purchases["c"]["created_on"] == unix(SERVER_NOW)

    async def statuses() -> tuple[str, str, str]:
        return (
            await purchase_status(http, a, purchases["a"]),
            await purchase_status(http, b, purchases["b"]),
            await purchase_status(http, c, purchases["c"]),
        )

    await advance(http, a, hours=1)
    assert await statuses() == ("expired", "created", "created")
    await advance(http, days=400)  # the server clock, far past every due date
    assert await statuses() == ("expired", "created", "expired")
    assert await now_of(http, b) == B_START
    assert await now_of(http, a) == later(A_START, hours=1)
    await advance(http, b, seconds=3599)
    assert await statuses() == ("expired", "created", "expired")
    await advance(http, b, seconds=1)
    assert await statuses() == ("expired", "expired", "expired")


async def test_access_tokens_live_24_hours_of_their_merchants_clock(http):
    a = await merchant_with_clock(http, now=A_START)
    b = await merchant_with_clock(http, now=A_START)
    c = await follower(http)
    tokens = {key: await v2_of(http, m) for key, m in (("a", a), ("b", b), ("c", c))}

    async def answers() -> list[int]:
        return [
            (await http.get("/v2/merchantprofile", headers=tokens[key])).status_code
            for key in ("a", "b", "c")
        ]

    await advance(http, a, hours=24)
    assert await answers() == [401, 200, 200]
    await advance(http, hours=48)
    assert await answers() == [401, 200, 401]
    await advance(http, b, hours=23, minutes=59, seconds=59)
    assert await answers() == [401, 200, 401]
    await advance(http, b, seconds=1)
    assert await answers() == [401, 401, 401]
    again = await v2_of(http, a)  # a new token lives 24 hours from A's now
    assert (await http.get("/v2/merchantprofile", headers=again)).status_code == 200


async def test_billing_days_come_on_each_merchants_clock(http):
    """Each merchant's subscriber is billed monthly on its merchant's clock: A advancing two
    months bills A's twice; the server clock moving a year bills neither."""
    subscribers = {}
    merchants = {}
    for key, start in (("a", "2026-03-10T10:00:00Z"), ("b", "2026-03-10T10:00:00Z")):
        m = merchants[key] = await merchant_with_clock(http, now=start)
        gw = gw_of(m)
        template = await create_template(http, gw, m)
        added = await add_subscriber(http, gw, template["id"])
        await pay_purchase(http, added["purchase"]["id"])
        subscribers[key] = (template["id"], added["billing_template_client"]["id"])

    async def billing(key: str) -> tuple[int, str]:
        template_id, subscriber_id = subscribers[key]
        s = await get_subscriber(http, gw_of(merchants[key]), template_id, subscriber_id)
        return s["number_of_billing_cycles_passed"], s["subscription_billing_scheduled_on"]

    assert await billing("a") == await billing("b") == (1, "2026-04-10")
    await advance(http, merchants["a"], to="2026-05-10T00:00:00Z")
    assert await billing("a") == (3, "2026-06-10")
    assert await billing("b") == (1, "2026-04-10")
    await advance(http, days=365)
    assert await billing("b") == (1, "2026-04-10")
    assert await billing("a") == (3, "2026-06-10")
    jobs = (await schedule(http, merchants["b"]))["jobs"]
    assert ("2026-04-10T00:00:00Z", "billing.charge") in [(j["due"], j["kind"]) for j in jobs]


async def test_collection_outcomes_come_on_each_merchants_clock(http):
    """110000002 is UNPAID 40 s after submission on its merchant's clock; another account is
    COMPLETED at 18:00 SAST of the action date counted from its merchant's own date."""
    a = await merchant_with_clock(http, now="2026-03-06T10:00:00Z")  # a Friday, 12:00 SAST
    b = await merchant_with_clock(http, now=B_START)  # a Monday, 14:00 SAST: counts from Tuesday
    c = await follower(http)  # the server: a Monday, 11:00 SAST
    tokens = {key: await v2_of(http, m) for key, m in (("a", a), ("b", b), ("c", c))}
    unpaid = {}
    later_ones = {}
    for key, m in (("a", a), ("b", b), ("c", c)):
        unpaid[key] = await collection(http, tokens[key], m, "110000002", externalReference="U")
        later_ones[key] = await collection(
            http, tokens[key], m, "62000000001", externalReference="L"
        )
    assert [later_ones[k]["actionDate"] for k in "abc"] == ["2026-03-09", "2026-06-03",
                                                          "2026-01-06"]  # fmt: skip

    async def statuses(which: dict[str, dict[str, Any]]) -> list[str]:
        """Read with fresh tokens: the clocks pass the first ones' 24 hours."""
        merchants = {"a": a, "b": b, "c": c}
        return [
            await collection_status(http, await v2_of(http, merchants[k]), which[k]) for k in "abc"
        ]

    await advance(http, a, seconds=40)
    assert await statuses(unpaid) == ["UNPAID", "PENDING", "PENDING"]
    await advance(http, seconds=40)
    assert await statuses(unpaid) == ["UNPAID", "PENDING", "UNPAID"]
    await advance(http, to="2026-01-06T16:00:00Z")  # 18:00 SAST on C's action date
    assert await statuses(later_ones) == ["PENDING", "PENDING", "COMPLETED"]
    await advance(http, a, to="2026-03-09T15:59:59Z")
    assert await statuses(later_ones) == ["PENDING", "PENDING", "COMPLETED"]
    await advance(http, a, seconds=1)
    assert await statuses(later_ones) == ["COMPLETED", "PENDING", "COMPLETED"]
    await advance(http, b, to="2026-06-03T16:00:00Z")
    assert await statuses(unpaid) == ["UNPAID", "UNPAID", "UNPAID"]
    assert await statuses(later_ones) == ["COMPLETED", "COMPLETED", "COMPLETED"]


async def test_a_merchant_that_follows_the_server_clock_moves_with_it(http):
    following = await follower(http)
    own = await merchant_with_clock(http, now=SERVER_NOW)
    await advance(http, hours=5)
    assert await clock_of(http, following) == {
        "now": later(SERVER_NOW, hours=5), "mode": "frozen", "own": False,
    }  # fmt: skip
    assert await now_of(http, own) == SERVER_NOW
    await http.post("/_emulator/clock/freeze", json={"at": B_START})
    assert await now_of(http, following) == B_START
    assert await now_of(http, own) == SERVER_NOW
    response = await http.get("/api/v1/clients/", headers=gw_of(following))
    assert response.headers["x-emulator-time"] == B_START
    system = await http.post("/_emulator/clock/resume", json={"system": True})
    assert system.json()["mode"] == "real"
    assert (await clock_of(http, following))["mode"] == "real"
    assert await clock_of(http, own) == {"now": SERVER_NOW, "mode": "frozen", "own": True}


# -- an advance holds up no other merchant ------------------------------------------------------


async def test_a_long_advance_holds_up_no_other_merchants_requests(http):
    """A advances a year of monthly billing for 150 subscribers (1,650 bills); meanwhile B (own
    clock) and C (server clock) are served at once, B's clock and the server's move, and all of
    it is done before A's advance is."""
    a = await merchant_with_clock(http, now=SERVER_NOW)
    b = await merchant_with_clock(http, now=B_START)
    c = await follower(http)
    gw_a = gw_of(a)
    template = await create_template(http, gw_a, a, subscription_trial_periods=1)
    await asyncio.gather(*(add_subscriber(http, gw_a, template["id"]) for _ in range(150)))
    started = time.perf_counter()
    long = asyncio.create_task(http.post(clock_path(a, "advance"), json={"days": 365}))
    for _ in range(500):  # until A's advance is under way: A's clock stands at its first bills
        if long.done() or (await clock_of(http, a))["now"] != SERVER_NOW:
            break
        await asyncio.sleep(0.01)
    assert not long.done()
    slowest = 0.0
    for n in range(10):
        for merchant in (b, c):
            began = time.perf_counter()
            response = await http.post(
                "/api/v1/clients/", json={"email": f"p{n}@example.com"}, headers=gw_of(merchant)
            )
            slowest = max(slowest, time.perf_counter() - began)
            assert response.status_code == 201, response.text
    moved_b = await advance(http, b, days=1)
    moved_server = await advance(http, hours=1)
    others_done = time.perf_counter() - started
    assert not long.done(), f"A's advance ended within {others_done:.2f} s: not long enough"
    answer = await long
    took = time.perf_counter() - started
    assert answer.status_code == 200, answer.text
    assert answer.json()["jobs_run"] >= 150 * 11
    assert moved_b["now"] == later(B_START, days=1)
    assert moved_server["now"] == later(SERVER_NOW, hours=1)
    assert slowest < 0.5, f"a request of another merchant took {slowest:.2f} s"
    assert others_done < took


async def test_reading_a_sink_waits_for_no_other_merchants_hanging_receiver(http):
    """Merchant A's webhook goes to a receiver that never answers (5 seconds until the emulator
    gives up). Merchant B (a parallel test, say) reads its own sink and its own delivery log
    meanwhile: neither waits for A's receiver."""
    a = await merchant_with_clock(http, now=A_START)
    b = await merchant_with_clock(http, now=A_START)
    async with Receiver(hang=1) as receiver:
        await webhook(http, gw_of(a), receiver.url)
        await paid_out(http, gw_of(a), a, "4444333322221111")
        await until(lambda: len(receiver.received) == 1)  # A's send is out, unanswered
        await webhook(http, gw_of(b), SINK.format(name="b-only"))
        payout = await paid_out(http, gw_of(b), b, "4444333322221111")
        began = time.perf_counter()
        messages = await sink_messages(http, "b-only")
        sink_took = time.perf_counter() - began
        began = time.perf_counter()
        logged = await attempts(http, merchant=b["company_id"])
        log_took = time.perf_counter() - began
    assert [m["json"]["id"] for m in messages] == [payout["id"]]
    assert [a["object_id"] for a in logged] == [payout["id"]]
    assert sink_took < 1, f"B's sink read took {sink_took:.2f} s"
    assert log_took < 1, f"B's delivery log read took {log_took:.2f} s"


# -- snapshots, reset, restart ------------------------------------------------------------------


async def test_snapshots_hold_merchant_clocks(http):
    own = await merchant_with_clock(http, now=A_START)
    following = await follower(http)
    purchase = await purchase_due_in(http, own, 3600)
    saved = await http.post("/_emulator/snapshots/clocks")
    assert saved.status_code == 201, saved.text
    newer = await merchant_with_clock(http, now=B_START)
    await advance(http, own, hours=2)
    assert await purchase_status(http, own, purchase) == "expired"
    await http.put(clock_path(own), json={"now": B_START, "mode": "real"})
    await http.put(clock_path(following), json={"now": B_START})
    await advance(http, hours=3)
    restored = await http.post("/_emulator/snapshots/clocks/restore")
    assert restored.status_code == 200, restored.text
    assert (restored.json()["now"], restored.json()["mode"]) == (SERVER_NOW, "frozen")
    assert await clock_of(http, own) == {"now": A_START, "mode": "frozen", "own": True}
    assert await clock_of(http, following) == {"now": SERVER_NOW, "mode": "frozen", "own": False}
    assert error(await http.get(clock_path(newer))) == (404, "merchant_not_found")
    assert await purchase_status(http, own, purchase) == "created"
    mine = await schedule(http, own, object_id=purchase["id"])
    assert [j["due"] for j in mine["jobs"]] == [later(A_START, hours=1)]
    assert (await schedule(http, object_id=purchase["id"]))["jobs"] == []
    await advance(http, hours=2)  # the server clock: not A's
    assert await purchase_status(http, own, purchase) == "created"
    await advance(http, own, hours=1)
    assert await purchase_status(http, own, purchase) == "expired"
    error_of_follower = await http.post(clock_path(following, "advance"), json={"seconds": 1})
    assert error(error_of_follower) == (409, "clock_not_own")


async def test_a_reset_drops_merchant_clocks(http):
    own = await merchant_with_clock(http, now=A_START)
    await advance(http, days=2)
    reset = await http.post("/_emulator/reset")
    assert reset.status_code == 200
    assert error(await http.get(clock_path(own))) == (404, "merchant_not_found")
    assert await now_of(http) == SERVER_NOW
    fresh = await follower(http)
    assert fresh["clock"] == {"now": SERVER_NOW, "mode": "frozen", "own": False}
    assert [j["kind"] for j in (await schedule(http))["jobs"]] == ["retention.prune"]


@pytest.mark.needs_file
async def test_a_restart_keeps_merchant_clocks_and_their_jobs(tmp_path: Path):
    settings = settings_for(tmp_path, clock_explicit=False)

    def serve(rt: Runtime) -> httpx.AsyncClient:
        transport = httpx.ASGITransport(app=create_app(rt))
        return httpx.AsyncClient(transport=transport, base_url="http://emulator")

    async with Runtime(settings) as rt, serve(rt) as http:
        own = await merchant_with_clock(http, now=A_START)
        real = await merchant_with_clock(http, now=B_START, mode="real")
        purchase = await purchase_due_in(http, own, 3600)
        await advance(http, own, minutes=30)
    async with Runtime(settings) as rt, serve(rt) as http:
        assert await clock_of(http, own) == {
            "now": later(A_START, minutes=30), "mode": "frozen", "own": True,
        }  # fmt: skip
        after = await clock_of(http, real)
        assert (after["mode"], after["own"]) == ("real", True)
        assert unix(B_START) <= unix(after["now"]) <= unix(B_START) + 30
        assert [j["due"] for j in (await schedule(http, own))["jobs"]] == [later(A_START, hours=1)]
        await advance(http, own, minutes=30)
        assert await purchase_status(http, own, purchase) == "expired"
