"""The control plane (/_emulator/): the documented contract, through HTTP."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path
from typing import Any

import httpx
import pytest

from emulator import __version__
from emulator.runtime.runtime import Runtime
from emulator.serving.app import create_app
from tests.conftest import DEFAULT_CLIENT, DEFAULT_KEY, EPOCH_S, settings_for, token_for

T0_US = EPOCH_S * 1_000_000

DEFAULT = {"Authorization": f"Bearer {DEFAULT_KEY}"}


async def test_health(http):
    """Health answers ok with the version."""
    response = await http.get("/_emulator/health")
    assert (response.status_code, response.json()) == (
        200,
        {"status": "ok", "version": __version__},
    )


async def test_new_merchant_has_working_credentials_for_both_interfaces(http):
    """POST /merchants returns every credential; each one works on its interface."""
    response = await http.post("/_emulator/merchants", json={"name": "Acme"})
    assert response.status_code == 201
    m = response.json()
    assert set(m) == {
        "company_id", "name", "brand_id", "brand_ids", "api_key", "production_api_key",
        "client_id", "client_secret", "profiles", "strict_requests", "clock",
    }  # fmt: skip
    assert m["name"] == "Acme"
    assert [set(p) for p in m["profiles"]] == [{"profileCode", "id", "createdByClient"}]
    gateway = await http.get(
        "/api/v1/clients/", headers={"Authorization": f"Bearer {m['api_key']}"}
    )
    assert gateway.status_code == 200
    token = await http.post(
        "/oauth2/token",
        auth=(m["client_id"], m["client_secret"]),
        data={"grant_type": "client_credentials"},
    )
    assert token.status_code == 200


async def test_merchants_list_includes_the_default_and_new_ones(http, merchant):
    """GET /merchants lists every merchant with its credentials, each exactly as POST made it."""
    body = (await http.get("/_emulator/merchants")).json()
    ids = [m["company_id"] for m in body["merchants"]]
    assert ids == ["9f1c3a52-7d4e-4b8a-9c61-2e5f0a7b3d10", merchant["company_id"]]
    assert body["merchants"][1] == merchant


async def test_bad_merchant_name_is_400(http):
    """A name that is not a short string is refused in the control-plane dialect."""
    response = await http.post("/_emulator/merchants", json={"name": 7})
    assert response.status_code == 400
    assert response.json() == {
        "error": {"code": "invalid", "message": "'name' must be a string of 1 to 128 characters"}
    }


@pytest.mark.parametrize("bad", ["a\nb", "a\rb", "a\x00b", "\x1b[2Jclear", "\x7f", "\x9b"])
async def test_a_merchant_name_with_a_control_character_is_400(http, bad):
    """A name is printed by the CLI and shown in the console: no line breaks, NUL or
    escape sequences, refused as a snapshot or sink name would be; nothing is created."""
    before = (await http.get("/_emulator/merchants")).json()["merchants"]
    response = await http.post("/_emulator/merchants", json={"name": bad})
    assert (response.status_code, response.json()) == (
        400,
        {"error": {"code": "invalid", "message": "'name' must not contain control characters"}},
    )
    assert (await http.get("/_emulator/merchants")).json()["merchants"] == before
    fine = await http.post("/_emulator/merchants", json={"name": "Acme (Pty) Ltd — café"})
    assert fine.json()["name"] == "Acme (Pty) Ltd — café"


async def test_clock_get(http):
    """GET /clock shows the instant and the mode."""
    assert (await http.get("/_emulator/clock")).json() == {
        "now": "2026-01-05T09:00:00Z",
        "mode": "frozen",
    }


async def test_advance_by_seconds_and_to_an_instant(http):
    """advance takes seconds or an ISO instant and reports jobs_run."""
    by_seconds = await http.post("/_emulator/clock/advance", json={"seconds": 90})
    assert by_seconds.json() == {"now": "2026-01-05T09:01:30Z", "mode": "frozen", "jobs_run": 0}
    to = await http.post("/_emulator/clock/advance", json={"to": "2026-01-06T00:00:00Z"})
    assert to.json() == {"now": "2026-01-06T00:00:00Z", "mode": "frozen", "jobs_run": 0}


ONE_OF = "give exactly one of a duration (seconds, minutes, hours, days) or 'to'"
SECONDS = "'seconds' must be a number of seconds from 0 to 1,000,000,000,000"
RANGE = "the clock stays between 1970-01-01T00:00:00Z and 9000-01-01T00:00:00Z"


@pytest.mark.parametrize(
    ("body", "message"),
    [
        pytest.param({}, f"{ONE_OF}; got neither", id="neither"),
        pytest.param({"seconds": 1, "to": "2027-01-01T00:00:00Z"}, ONE_OF, id="both"),
        pytest.param({"hours": 1, "to": "next"}, ONE_OF, id="duration-and-next"),
        pytest.param(
            {"weeks": 1},
            "'weeks' is not an advance; give seconds, minutes, hours, days or 'to'",
            id="unknown-unit",
        ),
        pytest.param(
            {"days": -1}, "'days' must be a number of days from 0 to 11,574,074", id="negative-days"
        ),
        pytest.param({"seconds": -5}, SECONDS, id="negative"),
        pytest.param({"seconds": "5"}, SECONDS, id="string"),
        pytest.param({"seconds": 1e30}, SECONDS, id="huge"),
        pytest.param({"seconds": 3e11}, RANGE, id="past-the-clock-range"),
        pytest.param({"to": "9999-12-31T23:59:59Z"}, RANGE, id="to-past-the-range"),
        pytest.param(
            {"to": "0001-01-01T00:00:00+01:00"},
            "'to' is not an ISO-8601 instant: '0001-01-01T00:00:00+01:00'",
            id="not-expressible-in-utc",
        ),
        pytest.param(
            {"to": "yesterday"}, "'to' is not an ISO-8601 instant: 'yesterday'", id="bad-instant"
        ),
        pytest.param(
            {"to": "2020-01-01T00:00:00Z"},
            "the clock only moves forward; use freeze with 'at' to jump",
            id="backwards",
        ),
    ],
)
async def test_advance_refuses_bad_bodies(http, body, message):
    """A bad advance body is a 400 that says what is wrong."""
    response = await http.post("/_emulator/clock/advance", json=body)
    assert (response.status_code, response.json()) == (
        400,
        {"error": {"code": "invalid", "message": message}},
    )


async def test_malformed_control_json_is_400(http):
    """Malformed JSON on the control plane is a 400, not a 500."""
    response = await http.post("/_emulator/clock/advance", content=b"{nope")
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "malformed_json"


@pytest.mark.parametrize("path", ["/_emulator/clock/freeze", "/_emulator/clock/resume"])
@pytest.mark.parametrize("at", ["9999-12-31T23:59:59Z", "1969-12-31T23:59:59Z"])
async def test_jumps_outside_the_clock_range_are_refused(http, path, at):
    """The clock cannot be put where its own dates would overflow; it stays where it was."""
    before = (await http.get("/_emulator/clock")).json()
    response = await http.post(path, json={"at": at})
    assert (response.status_code, response.json()) == (
        400,
        {"error": {"code": "invalid", "message": RANGE}},
    )
    assert (await http.get("/_emulator/clock")).json() == before


@pytest.mark.parametrize(
    ("body", "message"),
    [
        pytest.param(
            b'{"name": "\xff\xfe"}', "JSON parse error - the body is not valid UTF-8", id="utf8"
        ),
        pytest.param(
            b'{"name": ' + b"[" * 5000 + b"]" * 5000 + b"}",
            "JSON parse error - nested too deeply",
            id="deep",
        ),
    ],
)
async def test_undecodable_control_bodies_are_400(http, body, message):
    """Bytes that are not JSON for any reason are the control plane's 400, not a 500."""
    for path in ("/_emulator/merchants", "/_emulator/clock/advance"):
        response = await http.post(path, content=body)
        assert (response.status_code, response.json()) == (
            400,
            {"error": {"code": "malformed_json", "message": message}},
        )


async def test_a_sink_message_that_is_not_decodable_json_is_kept_as_text(http):
    """The sink stores any body; one too deep to parse is listed with json null, not a 500."""
    body = b"[" * 5000 + b"]" * 5000
    assert (await http.post("/_emulator/sink/deep", content=body)).status_code == 200
    response = await http.get("/_emulator/sink/deep")
    assert response.status_code == 200
    assert response.json()["messages"][0]["json"] is None


async def test_freeze_at_and_resume(http):
    """freeze can jump to an instant; resume goes back to real mode from there."""
    frozen = await http.post("/_emulator/clock/freeze", json={"at": "2030-06-01T08:00:00Z"})
    assert frozen.json() == {"now": "2030-06-01T08:00:00Z", "mode": "frozen"}
    resumed = await http.post("/_emulator/clock/resume")
    assert resumed.json()["mode"] == "real"
    assert resumed.json()["now"].startswith("2030-06-01T08:00")


async def test_reset_wipes_state_and_reseeds(http, merchant, gw):
    """reset removes every object and merchant but the default, and puts the clock back."""
    created = await http.post("/api/v1/clients/", json={"email": "a@example.com"}, headers=DEFAULT)
    await http.post("/_emulator/clock/advance", json={"seconds": 3600})
    response = await http.post("/_emulator/reset")
    assert response.json() == {"reset": True, "now": "2026-01-05T09:00:00Z", "mode": "frozen"}
    gone = await http.get(f"/api/v1/clients/{created.json()['id']}/", headers=DEFAULT)
    assert gone.status_code == 404
    assert (await http.get("/api/v1/clients/", headers=gw)).status_code == 401  # merchant gone
    merchants = (await http.get("/_emulator/merchants")).json()["merchants"]
    assert [m["company_id"] for m in merchants] == ["9f1c3a52-7d4e-4b8a-9c61-2e5f0a7b3d10"]


async def test_a_reset_never_reuses_a_scenario_activation_id(http, runtime):
    """A reset starts a new database file, but AUTOINCREMENT ids (scenario activations, which
    key rate-limit windows in memory) go on from where they were, as they did when a reset
    deleted the rows, and the rows themselves are gone."""

    def activations(tx):
        return [tuple(r) for r in tx.all("SELECT id, name FROM scenario_activations")]

    for name in ("delayed-callbacks", "duplicate-callbacks"):
        assert (await http.post(f"/_emulator/scenarios/{name}/activate")).status_code == 200
    before = await runtime.db.read(activations)
    assert (await http.post("/_emulator/reset")).status_code == 200
    assert await runtime.db.read(activations) == []
    await http.post("/_emulator/scenarios/3ds-failures/activate")
    [(after, _)] = await runtime.db.read(activations)
    assert after > max(id for id, _ in before)


async def test_snapshot_save_and_restore(http):
    """A restored snapshot brings back objects and the clock exactly as saved."""
    kept = (
        await http.post("/api/v1/clients/", json={"email": "kept@example.com"}, headers=DEFAULT)
    ).json()
    saved = await http.post("/_emulator/snapshots/before")
    assert saved.status_code == 201
    assert saved.json() == {"name": "before", "saved_at": "2026-01-05T09:00:00Z"}
    await http.post("/api/v1/clients/", json={"email": "later@example.com"}, headers=DEFAULT)
    await http.delete(f"/api/v1/clients/{kept['id']}/", headers=DEFAULT)
    await http.post("/_emulator/clock/advance", json={"seconds": 600})
    restored = await http.post("/_emulator/snapshots/before/restore")
    assert restored.json() == {
        "name": "before",
        "restored": True,
        "now": "2026-01-05T09:00:00Z",
        "mode": "frozen",
    }
    listed = (await http.get("/api/v1/clients/", headers=DEFAULT)).json()["results"]
    assert [c["email"] for c in listed] == ["kept@example.com"]
    assert (await http.get("/_emulator/snapshots")).json() == {"snapshots": ["before"]}


async def test_restoring_an_unknown_snapshot_is_404(http):
    response = await http.post("/_emulator/snapshots/nothing/restore")
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "snapshot_not_found"


async def test_snapshot_names_are_checked(http):
    """Snapshot names cannot reach outside the snapshot folder."""
    response = await http.post("/_emulator/snapshots/..hidden")
    assert response.status_code == 400


async def test_request_journal_newest_first_with_bodies(http, merchant, gw):
    """The journal lists requests newest first with status, bodies and merchant."""
    await http.post("/api/v1/clients/", json={"email": "j@example.com"}, headers=gw)
    await http.get("/api/v1/clients/nope/", headers=gw)
    body = (await http.get(f"/_emulator/requests?merchant={merchant['company_id']}")).json()
    entries = body["requests"]
    assert [(e["method"], e["path"], e["status"]) for e in entries] == [
        ("GET", "/api/v1/clients/nope/", 400),
        ("POST", "/api/v1/clients/", 201),
    ]
    assert entries[1]["request_body"] == '{"email":"j@example.com"}'
    assert '"email":"j@example.com"' in entries[1]["response_body"]
    assert {e["merchant"] for e in entries} == {merchant["company_id"]}
    assert entries[0]["interface"] == "gateway"
    assert entries[0]["time"] == "2026-01-05T09:00:00Z"


async def test_request_journal_paging_and_limits(http):
    """limit and before page the journal; bad values are 400."""
    for _ in range(3):
        await http.get("/api/v1/clients/", headers=DEFAULT)
    first = (await http.get("/_emulator/requests?limit=2")).json()["requests"]
    assert len(first) == 2
    rest = (await http.get(f"/_emulator/requests?before={first[-1]['id']}")).json()["requests"]
    assert len(rest) == 1
    after = (await http.get(f"/_emulator/requests?after={rest[0]['id']}")).json()["requests"]
    assert [e["id"] for e in after] == [first[1]["id"], first[0]["id"]]  # oldest first
    assert (await http.get("/_emulator/requests?limit=0")).status_code == 400
    assert (await http.get("/_emulator/requests?after=x")).status_code == 400
    assert (await http.get("/_emulator/requests?before=x")).status_code == 400


async def test_request_journal_keeps_the_newest_entries_only(http, monkeypatch):
    """Each flush prunes, down to the newest KEEP entries, however short the run."""
    monkeypatch.setattr("emulator.kernel.journal.KEEP", 5)
    seen = []
    for n in range(4):
        await http.get(f"/api/v1/clients/?n={n}", headers=DEFAULT)
        await http.get("/_emulator/requests")  # a read flushes: many small flushes
    for n in range(4, 12):
        await http.get(f"/api/v1/clients/?n={n}", headers=DEFAULT)
    entries = (await http.get("/_emulator/requests?limit=100")).json()["requests"]
    seen = [e["query"] for e in entries]
    assert seen == [f"n={n}" for n in range(11, 6, -1)]  # the newest five, newest first


async def test_the_journal_prunes_a_backlog_a_step_at_a_time(http, monkeypatch):
    """A flush deletes at most as many old entries as it wrote plus PRUNE_STEP, oldest first,
    so a backlog over KEEP (here, KEEP lowered) goes over several flushes."""
    for n in range(20):
        await http.get(f"/api/v1/clients/?n={n}", headers=DEFAULT)
    await http.get("/_emulator/requests")
    monkeypatch.setattr("emulator.kernel.journal.KEEP", 4)
    monkeypatch.setattr("emulator.kernel.journal.PRUNE_STEP", 3)

    async def one_flush(n: int) -> list[dict[str, Any]]:
        await http.get(f"/api/v1/clients/?n={n}", headers=DEFAULT)
        return (await http.get("/_emulator/requests?limit=100")).json()["requests"]  # flushes

    counts = [len(await one_flush(n)) for n in range(20, 25)]
    # 20 stored; each flush writes one and deletes up to 1 + 3 of the oldest: 17, 14, ...
    assert counts == [17, 14, 11, 8, 5]
    entries = await one_flush(25)
    assert [e["query"] for e in entries] == [f"n={n}" for n in range(25, 21, -1)]
    entries = await one_flush(26)
    assert [e["query"] for e in entries] == [f"n={n}" for n in range(26, 22, -1)]


async def test_the_journal_writes_once_enough_entries_wait(http, runtime, monkeypatch):
    """Entries are written every FLUSH_SECONDS, or as soon as FLUSH_ENTRIES are waiting."""
    monkeypatch.setattr("emulator.kernel.journal.FLUSH_SECONDS", 3600)
    monkeypatch.setattr("emulator.kernel.journal.FLUSH_ENTRIES", 3)

    async def stored() -> int:
        await runtime.db.barrier()  # what was queued has committed; the journal not flushed
        row = await runtime.db.read(lambda tx: tx.one("SELECT count(*) FROM requests"))
        assert row is not None
        return int(row[0])

    before = await stored()
    for _ in range(2):
        await http.get("/api/v1/clients/", headers=DEFAULT)
    assert await stored() == before
    await http.get("/api/v1/clients/", headers=DEFAULT)
    assert await stored() == before + 3


async def test_the_journal_writes_once_enough_body_text_waits(http, runtime, monkeypatch):
    """Big bodies go sooner: once the waiting entries' bodies hold FLUSH_CHARS characters."""
    monkeypatch.setattr("emulator.kernel.journal.FLUSH_SECONDS", 3600)
    monkeypatch.setattr("emulator.kernel.journal.FLUSH_CHARS", 3000)

    async def stored() -> int:
        await runtime.db.barrier()
        row = await runtime.db.read(lambda tx: tx.one("SELECT count(*) FROM requests"))
        assert row is not None
        return int(row[0])

    before = await stored()
    await http.get("/api/v1/clients/", headers=DEFAULT)  # a short body: it waits
    assert await stored() == before
    long = {"email": "a@example.com", "full_name": "x" * 4000}  # too long: refused, journaled
    answer = await http.post("/api/v1/clients/", json=long, headers=DEFAULT)
    assert answer.status_code == 400
    assert await stored() == before + 2


async def test_a_new_process_prunes_what_earlier_runs_left(tmp_path: Path, monkeypatch):
    """Many short runs: every run's flushes prune what earlier runs left."""
    monkeypatch.setattr("emulator.kernel.journal.KEEP", 3)
    settings = settings_for(tmp_path)
    for _ in range(3):
        async with Runtime(settings) as rt:
            transport = httpx.ASGITransport(app=create_app(rt))
            async with httpx.AsyncClient(transport=transport, base_url="http://e") as client:
                for _ in range(4):
                    await client.get("/api/v1/clients/", headers=DEFAULT)
                await client.get("/_emulator/requests")  # flushes
    async with Runtime(settings) as rt:
        await rt.journal.flush()
        count = await rt.db.read(lambda tx: tx.one("SELECT count(*) FROM requests"))
    assert count is not None and count[0] <= 3 + 4


async def test_request_journal_keeps_64_kib_of_each_body(http):
    """The limit is in bytes of the body as sent, multi-byte characters included."""
    body = ('{"email": "' + "é" * 40_000 + '"}').encode()  # 80 kB of UTF-8
    await http.post("/api/v1/clients/", content=body, headers=DEFAULT)
    entry = (await http.get("/_emulator/requests?limit=1")).json()["requests"][0]
    kept = entry["request_body"].encode()
    assert body.startswith(kept) and 64 * 1024 - 2 <= len(kept) <= 64 * 1024


async def test_sink_records_and_lists_oldest_first(http):
    """The sink answers 200, records headers and body, lists oldest first, can be cleared."""
    first = await http.post("/_emulator/sink/hooks", json={"n": 1}, headers={"X-Signature": "abc"})
    assert first.status_code == 200
    await http.post("/_emulator/sink/hooks", content=b"plain text")
    await http.post("/_emulator/sink/other", json={"n": 3})
    body = (await http.get("/_emulator/sink/hooks")).json()
    assert body["name"] == "hooks"
    assert [(m["body"], m["json"]) for m in body["messages"]] == [
        ('{"n":1}', {"n": 1}),
        ("plain text", None),
    ]
    assert body["messages"][0]["headers"]["x-signature"] == "abc"
    assert body["messages"][0]["received_at"] == "2026-01-05T09:00:00Z"
    cleared = await http.delete("/_emulator/sink/hooks")
    assert cleared.json() == {"name": "hooks", "deleted": 2}
    assert (await http.get("/_emulator/sink/hooks")).json()["messages"] == []
    assert len((await http.get("/_emulator/sink/other")).json()["messages"]) == 1


async def test_test_values_are_the_fixtures(http, runtime):
    """test-values serves the magic cards and accounts from fixtures/."""
    body = (await http.get("/_emulator/test-values")).json()
    assert body == runtime.test_values
    assert body["cards"][0] == {
        "number": "4444333322221111",
        "purchase": "paid, no 3-D Secure; a CVC other than 123 declines (do_not_honour)",
        "payout": "success at once",
    }
    assert [a["number"] for a in body["accounts"]][:2] == ["110000001", "110000002"]


async def test_unknown_control_path_and_wrong_method(http):
    """Unknown control paths are 404 and wrong methods 405, in the control dialect."""
    missing = await http.get("/_emulator/nope")
    assert (missing.status_code, missing.json()["error"]["code"]) == (404, "not_found")
    wrong = await http.delete("/_emulator/health")
    assert (wrong.status_code, wrong.json()["error"]["code"]) == (405, "method_not_allowed")


async def test_control_plane_needs_the_admin_token_off_loopback(tmp_path: Path):
    """Bound to a non-loopback address, the control plane wants the admin token (sink excepted)."""
    settings = settings_for(tmp_path, host="0.0.0.0", admin_token="s3cret")
    async with Runtime(settings) as rt:
        transport = httpx.ASGITransport(app=create_app(rt))
        async with httpx.AsyncClient(transport=transport, base_url="http://emulator") as http:
            refused = await http.get("/_emulator/clock")
            assert (refused.status_code, refused.json()["error"]["code"]) == (
                401,
                "admin_token_required",
            )
            allowed = await http.get("/_emulator/clock", headers={"Authorization": "Bearer s3cret"})
            assert allowed.status_code == 200
            assert (await http.post("/_emulator/sink/hooks", json={})).status_code == 200
            # Health checks of orchestrators carry no token: status and version, nothing else.
            health = await http.get("/_emulator/health")
            assert health.status_code == 200
            assert set(health.json()) == {"status", "version"}
            assert (await http.get("/_emulator/health/x")).status_code == 401


async def test_journal_records_the_merchant_of_a_token_request(http):
    """A token request is journaled with the merchant of the client that asked (none when the
    credentials are wrong), and bank requests with the token's merchant."""
    await http.post(
        "/oauth2/token", auth=("nobody", "x"), data={"grant_type": "client_credentials"}
    )
    token = await token_for(http, *DEFAULT_CLIENT)
    await http.get("/v2/merchantprofile", headers={"Authorization": f"Bearer {token}"})
    entries = (await http.get("/_emulator/requests?limit=3")).json()["requests"]
    assert [(e["interface"], e["merchant"]) for e in entries] == [
        ("bank", "9f1c3a52-7d4e-4b8a-9c61-2e5f0a7b3d10"),
        ("auth", "9f1c3a52-7d4e-4b8a-9c61-2e5f0a7b3d10"),
        ("auth", None),
    ]


async def test_resume_on_system_time(http):
    """resume with system=true follows system time exactly (as freezegun sets it in-process)."""
    from freezegun import freeze_time

    with freeze_time("2031-05-01 12:00:00"):
        response = await http.post("/_emulator/clock/resume", json={"system": True})
    assert response.json() == {"now": "2031-05-01T12:00:00Z", "mode": "real"}
    both = await http.post(
        "/_emulator/clock/resume", json={"system": True, "at": "2031-01-01T00:00:00Z"}
    )
    assert both.status_code == 400


async def test_reset_during_traffic_never_answers_500(http, merchant, gw):
    """Creates racing a reset either land before it (and are wiped) or find their merchant
    gone (401); the reset succeeds and the default merchant works right after it."""
    for round_ in range(3):
        creates = [
            http.post("/api/v1/clients/", json={"email": f"r{round_}-{n}@example.com"}, headers=gw)
            for n in range(30)
        ]
        reset = http.post("/_emulator/reset")
        responses = await asyncio.gather(*creates[:15], reset, *creates[15:])
        statuses = [r.status_code for r in responses]
        assert statuses[15] == 200, responses[15].text
        assert set(statuses[:15] + statuses[16:]) <= {201, 401}, statuses
        gw = {
            "Authorization": f"Bearer {(await http.post('/_emulator/merchants')).json()['api_key']}"
        }
    default = await http.get("/api/v1/clients/", headers={"Authorization": f"Bearer {DEFAULT_KEY}"})
    assert default.status_code == 200


async def test_advance_by_zero_in_real_mode_is_fine(http):
    """Real time moves on while an advance is computed; 'seconds': 0 is still no move, not a
    'backwards' error."""
    assert (await http.post("/_emulator/clock/resume")).status_code == 200
    for seconds in (0, 0.000001):
        response = await http.post("/_emulator/clock/advance", json={"seconds": seconds})
        assert response.status_code == 200, response.text


async def test_a_restore_during_an_advance_ends_on_the_snapshots_clock(http, runtime):
    """The restore waits for the advance, then puts the snapshot's clock back."""
    assert (await http.post("/_emulator/snapshots/before")).status_code == 201

    def unit(tx):
        for n in range(1000):
            runtime.scheduler.schedule(tx, "oauth.token_expiry", T0_US + n, {"token": f"t{n}"})

    await runtime.db.write(unit)
    advance = http.post("/_emulator/clock/advance", json={"seconds": 86400 * 10})
    restore = http.post("/_emulator/snapshots/before/restore")
    advanced, restored = await asyncio.gather(advance, restore)
    assert advanced.status_code == restored.status_code == 200
    assert restored.json()["now"] == "2026-01-05T09:00:00Z"
    assert (await http.get("/_emulator/clock")).json()["now"] == "2026-01-05T09:00:00Z"


@pytest.mark.parametrize("damage", ["garbage", "truncated"])
async def test_restoring_a_damaged_snapshot_is_refused_and_keeps_the_state(
    http, runtime, gw, damage
):
    """A snapshot file that is not a whole database is a 400; the live state stays as it was."""
    created = await http.post("/api/v1/clients/", json={"email": "kept@example.com"}, headers=gw)
    assert (await http.post("/_emulator/snapshots/good")).status_code == 201
    good = runtime.snapshot_dir / "good.sqlite"
    bad = runtime.snapshot_dir / "bad.sqlite"
    bad.write_bytes(b"not a database" * 1000 if damage == "garbage" else good.read_bytes()[:8192])
    response = await http.post("/_emulator/snapshots/bad/restore")
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "invalid_snapshot"
    again = await http.get(f"/api/v1/clients/{created.json()['id']}/", headers=gw)
    assert again.status_code == 200
    assert (await http.post("/_emulator/snapshots/good/restore")).status_code == 200


async def test_a_snapshot_whose_migrations_fail_is_refused_and_keeps_the_state(http, runtime, gw):
    """A snapshot that passes the file checks but will not migrate: 400, old state kept."""
    created = await http.post("/api/v1/clients/", json={"email": "kept@example.com"}, headers=gw)
    assert (await http.post("/_emulator/snapshots/good")).status_code == 201
    bad = runtime.snapshot_dir / "bad.sqlite"
    bad.write_bytes((runtime.snapshot_dir / "good.sqlite").read_bytes())
    conn = sqlite3.connect(bad)
    conn.execute("DELETE FROM schema_migrations")  # so it would apply 0001 over its own tables
    conn.commit()
    conn.close()
    response = await http.post("/_emulator/snapshots/bad/restore")
    assert (response.status_code, response.json()["error"]["code"]) == (400, "invalid_snapshot")
    again = await http.get(f"/api/v1/clients/{created.json()['id']}/", headers=gw)
    assert again.status_code == 200


def _open_descriptors() -> int:
    """This process's open file descriptors (0 where /proc does not say)."""
    fds = Path("/proc/self/fd")
    return len(list(fds.iterdir())) if fds.is_dir() else 0


@pytest.mark.needs_file
async def test_a_restore_that_cannot_copy_is_a_clear_error_and_leaks_nothing(http, runtime):
    """The spare file's place taken by a directory: a 500 that says so, no descriptor leaked."""
    assert (await http.post("/_emulator/snapshots/good")).status_code == 201
    runtime.db.path.with_name(runtime.db.path.name + ".restoring").mkdir()
    descriptors = _open_descriptors()
    for _ in range(5):
        response = await http.post("/_emulator/snapshots/good/restore")
        assert (response.status_code, response.json()["error"]["code"]) == (500, "restore_failed")
    assert _open_descriptors() <= descriptors
    assert (await http.get("/api/v1/clients/", headers=DEFAULT)).status_code == 200


async def test_concurrent_advances_cannot_pass_the_clock_range(http):
    """Each advance is checked against the range once it holds the clock."""
    years = 3500 * 365 * 86400
    first, second = await asyncio.gather(
        http.post("/_emulator/clock/advance", json={"seconds": years}),
        http.post("/_emulator/clock/advance", json={"seconds": years}),
    )
    assert sorted([first.status_code, second.status_code]) == [200, 400]
    assert (await http.get("/_emulator/clock")).status_code == 200
