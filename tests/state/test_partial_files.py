"""Hand-written state files: what is missing gets the API's defaults; bad files load nothing."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import yaml

from emulator.runtime.runtime import Runtime

COMPANY = "5a1e0000-0000-4000-8000-000000000001"
KEY = "sk_test_handwritten"

PARTIAL = f"""\
version: 1
clock: {{mode: frozen, now: "2026-03-01T12:00:00Z"}}
merchants:
  - id: {COMPANY}
    name: Hand Written
    api_keys:
      - {{key: {KEY}, environment: sandbox}}
    webhooks:
      - {{title: paid, events: [purchase.paid], callback: "https://app.example/paid"}}
      - {{title: all, all_events: true, callback: "https://app.example/all"}}
    clients:
      - {{email: payer@example.com, full_name: Pat Payer}}
    purchases:
      - client: {{email: payer@example.com}}
        purchase: {{currency: ZAR, products: [{{name: Widget, price: 1500}}]}}
        status: paid
      - client: {{email: other@example.com}}
        purchase: {{currency: ZAR, products: [{{name: Gadget, price: 900}}]}}
"""


async def load(http: httpx.AsyncClient, text: str) -> httpx.Response:
    return await http.post(
        "/_emulator/import", content=text, headers={"Content-Type": "application/yaml"}
    )


async def test_a_partial_file_gets_the_api_defaults(http: httpx.AsyncClient) -> None:
    response = await load(http, PARTIAL)
    assert response.status_code == 200, response.text
    assert response.json()["merchants"] == [COMPANY]
    assert response.json()["now"] == "2026-03-01T12:00:00Z"
    gw = {"Authorization": f"Bearer {KEY}"}
    hooks = (await http.get("/api/v1/webhooks/", headers=gw)).json()["results"]
    assert [h["title"] for h in hooks] == ["all", "paid"]  # newest first, as the API lists
    assert hooks[1]["events"] == ["purchase.paid"]
    assert hooks[1]["public_key"].startswith("-----BEGIN PUBLIC KEY-----")
    assert hooks[1]["created_on"] == 1772366400  # the file's instant
    clients = (await http.get("/api/v1/clients/", headers=gw)).json()["results"]
    assert {c["email"] for c in clients} == {"payer@example.com", "other@example.com"}
    exported = await http.get("/_emulator/export", params={"merchant": COMPANY, "format": "json"})
    ids = [p["id"] for p in exported.json()["merchants"][0]["purchases"]]
    listed = [(await http.get(f"/api/v1/purchases/{i}/", headers=gw)).json() for i in ids]
    by_status = {p["status"]: p for p in listed}
    assert set(by_status) == {"paid", "created"}
    paid = by_status["paid"]
    assert paid["purchase"]["total"] == 1500
    assert [h["status"] for h in paid["status_history"]] == ["created", "paid"]
    assert paid["payment"]["amount"] == 1500  # paid by the payer, with the default test card
    assert paid["transaction_data"]["attempts"][0]["successful"] is True
    balance = (await http.get("/api/v1/account/json/balance/", headers=gw)).json()
    assert balance["ZAR"]["balance"] == 1500
    assert paid["brand_id"] and paid["checkout_url"].endswith(f"/p/{paid['id']}/")
    # a created one falls due as one made through the API does
    schedule = (await http.get(f"/_emulator/merchants/{COMPANY}/schedule")).json()["jobs"]
    assert [j["kind"] for j in schedule] == ["purchase.expiry", "purchase.expiry"]
    # the generated credentials work: an OAuth client and a profile were made
    merchants = (await http.get("/_emulator/merchants")).json()["merchants"]
    made = next(m for m in merchants if m["company_id"] == COMPANY)
    assert made["name"] == "Hand Written" and made["profiles"]


async def test_a_bad_file_names_the_key_path_and_loads_nothing(
    http: httpx.AsyncClient, runtime: Runtime
) -> None:
    before = (await http.get("/_emulator/export")).text
    document: dict[str, Any] = yaml.safe_load(PARTIAL)
    document["merchants"][0]["purchases"][1]["purchase"]["products"] = "none"
    response = await load(http, yaml.safe_dump(document))
    assert response.status_code == 400, response.text
    error = response.json()["error"]
    assert error["code"] == "invalid_state"
    assert error["message"].startswith("merchants[0].purchases[1].purchase.products: ")
    assert (await http.get("/_emulator/export")).text == before  # nothing was loaded


async def test_each_error_names_its_key(http: httpx.AsyncClient) -> None:
    cases = [
        ("merchants: []\n", "version: is required"),
        ("version: 2\n", "version: 2 is not a version"),
        ("version: 1\nmerchant: []\n", "merchant: is not a key of a state file"),
        ("version: 1\nmerchants: [{id: m, colour: red}]\n", "merchants[0].colour: is not"),
        (
            "version: 1\nmerchants: [{id: m, payouts: [{id: p}]}]\n",
            "merchants[0].payouts[0].data: is required",
        ),
        (
            "version: 1\nmerchants: [{id: m, webhooks: [{title: t, events: [nope],"
            " callback: 'https://a.example/'}]}]\n",
            "merchants[0].webhooks[0].events",
        ),
        ("version: 1\nclock: {mode: frozen, now: soon}\n", "clock.now: is not an ISO-8601"),
        ("version: 1\nmerchants: [{id: m, jobs: [{kind: x.y}]}]\n", "merchants[0].jobs[0].kind"),
        ("[1, 2", "not valid YAML"),
        ("version: 1\nactive_scenarios: [{name: no-such}]\n", "active_scenarios[0].name"),
        ("version: true\n", "version: True is not a version"),
        ("version: 1\nmerchants: [&m {id: a}, *m]\n", "aliases (*name) are not allowed"),
        ("version: 1\nversion: 1\n", "duplicate key 'version'"),
        (
            "version: 1\nmerchants: [{id: m, mandates: [{id: x, kind: EFT, data: {id: 1}}]}]\n",
            "merchants[0].mandates[0].data",
        ),
        ("- 1\n", "a state file is a mapping"),
        ("version: 1\nmerchants: [{id: a/b}]\n", "merchants[0].id: a company_id is"),
        (
            "version: 1\nmerchants: [{id: m, oauth_clients: [{client_id: c, number: "
            + str(2**70)
            + ", secret: s}]}]\n",
            "merchants[0].oauth_clients[0].number: must be an integer",
        ),
        (
            "version: 1\nmerchants: [{id: m, jobs: [{kind: purchase.due, due: 99999-01-01}]}]\n",
            "merchants[0].jobs[0].due",
        ),
    ]
    for text, message in cases:
        response = await load(http, text)
        assert response.status_code == 400, (text, response.text)
        assert message in response.json()["error"]["message"], (text, response.text)


async def test_a_json_body_is_read_as_json(http: httpx.AsyncClient) -> None:
    document = {"version": 1, "merchants": [{"id": COMPANY, "name": "From JSON"}]}
    response = await http.post("/_emulator/import", json=document)
    assert response.status_code == 200, response.text
    broken = await http.post(
        "/_emulator/import", content=b'{"version": 1,', headers={"Content-Type": "application/json"}
    )
    assert broken.status_code == 400
    assert "not valid JSON" in broken.json()["error"]["message"]


async def test_an_id_another_merchant_holds_is_a_conflict(
    http: httpx.AsyncClient, merchant: dict[str, Any]
) -> None:
    text = f"version: 1\nmerchants: [{{id: {COMPANY}, api_keys: [{{key: {merchant['api_key']},"
    text += " environment: sandbox}]}]\n"
    response = await load(http, text)
    assert response.status_code == 409, response.text
    error = response.json()["error"]
    assert error["code"] == "state_conflict"
    assert error["message"].startswith("merchants[0].api_keys[0]: ")
    ids = [m["company_id"] for m in (await http.get("/_emulator/merchants")).json()["merchants"]]
    assert COMPANY not in ids


async def test_a_merchant_in_the_file_replaces_the_one_with_its_id(
    http: httpx.AsyncClient,
) -> None:
    assert (await load(http, PARTIAL)).status_code == 200
    again = f"version: 1\nmerchants: [{{id: {COMPANY}, api_keys: [{{key: {KEY},"
    again += " environment: sandbox}]}]\n"
    assert (await load(http, again)).status_code == 200
    gw = {"Authorization": f"Bearer {KEY}"}
    assert (await http.get("/api/v1/webhooks/", headers=gw)).json()["results"] == []


async def test_one_merchants_export(http: httpx.AsyncClient, merchant: dict[str, Any]) -> None:
    company = merchant["company_id"]
    response = await http.get("/_emulator/export", params={"merchant": company, "format": "json"})
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("application/json")
    document = response.json()
    assert document["version"] == 1
    assert [m["id"] for m in document["merchants"]] == [company]
    assert "scenarios" not in document
    missing = await http.get("/_emulator/export", params={"merchant": "nope"})
    assert missing.status_code == 404
    bad = await http.get("/_emulator/export", params={"format": "xml"})
    assert bad.status_code == 400


async def test_the_manuals_partial_file_loads(http: httpx.AsyncClient) -> None:
    page = (Path(__file__).parents[2] / "docs" / "state.md").read_text()
    section = page.split("## Partial files", 1)[1]
    example = section.split("```yaml\n", 1)[1].split("```", 1)[0]
    assert (await load(http, example)).status_code == 200
    document: dict[str, Any] = yaml.safe_load(example)
    document["merchants"][0]["purchases"][0]["purchase"]["products"] = "none"
    refused = await load(http, yaml.safe_dump(document))
    message = "merchants[0].purchases[0].purchase.products: Expected `array`, got `str`"
    assert refused.json()["error"]["message"] == message


async def test_a_merchants_own_clock_and_its_jobs(http: httpx.AsyncClient) -> None:
    text = PARTIAL.replace(
        "    name: Hand Written\n",
        '    name: Hand Written\n    clock: {mode: frozen, now: "2027-06-01T08:00:00Z"}\n',
    )
    assert (await load(http, text)).status_code == 200
    clock = (await http.get(f"/_emulator/merchants/{COMPANY}/clock")).json()
    assert clock["now"] == "2027-06-01T08:00:00Z" and clock["own"] is True
    assert (await http.get("/_emulator/clock")).json()["now"] == "2026-03-01T12:00:00Z"
    advanced = await http.post(f"/_emulator/merchants/{COMPANY}/clock/advance", json={"to": "next"})
    assert advanced.status_code == 200, advanced.text
    assert advanced.json()["jobs_run"] >= 1  # its purchases' due jobs run on its own clock
    exported = await http.get("/_emulator/export", params={"merchant": COMPANY, "format": "json"})
    assert exported.json()["merchants"][0]["clock"]["mode"] == "frozen"
