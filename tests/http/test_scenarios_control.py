"""/_emulator/scenarios: list, load, activate, deactivate, through HTTP."""

from __future__ import annotations

from emulator.scenarios.library import shipped
from emulator.scenarios.points import REGISTRY

FAULT = """
name: gateway-down
description: the gateway answers 503
rules:
  - when: http.request
    match: {interface: gateway}
    then: {status: 503}
"""


def bearer(merchant):
    return {"Authorization": f"Bearer {merchant['api_key']}"}


async def test_the_list_shows_the_library_and_the_decision_points(http):
    body = (await http.get("/_emulator/scenarios")).json()
    names = {s["name"] for s in body["scenarios"]}
    assert names == set(shipped())
    assert body["decision_points"] == sorted(REGISTRY)
    entry = next(s for s in body["scenarios"] if s["name"] == "upstream-502-burst")
    assert entry == {
        "name": "upstream-502-burst",
        "description": shipped()["upstream-502-burst"].description,
        "origin": "library",
        "points": ["http.request"],
        "rules": 1,
        "active": [],
    }


async def test_load_activate_and_deactivate_one_for_one_merchant(http, merchant):
    other = (await http.post("/_emulator/merchants")).json()
    loaded = await http.post(
        "/_emulator/scenarios", content=FAULT, headers={"Content-Type": "application/yaml"}
    )
    assert loaded.status_code == 201
    assert loaded.json() == {
        "name": "gateway-down",
        "description": "the gateway answers 503",
        "rules": 1,
        "points": ["http.request"],
        "active": False,
        "notes": [],
    }
    assert (await http.get("/api/v1/clients/", headers=bearer(merchant))).status_code == 200

    activated = await http.post(
        "/_emulator/scenarios/gateway-down/activate", json={"merchant": merchant["company_id"]}
    )
    assert activated.status_code == 200
    assert activated.json()["merchant"] == merchant["company_id"]
    assert (await http.get("/api/v1/clients/", headers=bearer(merchant))).status_code == 503
    assert (await http.get("/api/v1/clients/", headers=bearer(other))).status_code == 200

    listing = (await http.get("/_emulator/scenarios")).json()["scenarios"]
    entry = next(s for s in listing if s["name"] == "gateway-down")
    assert entry["origin"] == "loaded"
    assert [a["merchant"] for a in entry["active"]] == [merchant["company_id"]]

    off = await http.post(
        "/_emulator/scenarios/gateway-down/deactivate", json={"merchant": merchant["company_id"]}
    )
    assert off.json() == {
        "name": "gateway-down",
        "active": False,
        "merchant": merchant["company_id"],
    }
    assert (await http.get("/api/v1/clients/", headers=bearer(merchant))).status_code == 200


async def test_activation_without_a_body_is_global(http, merchant):
    await http.post("/_emulator/scenarios", content=FAULT)
    assert (await http.post("/_emulator/scenarios/gateway-down/activate")).json()[
        "merchant"
    ] is None
    assert (await http.get("/api/v1/clients/", headers=bearer(merchant))).status_code == 503
    # the control plane itself is never faulted
    assert (await http.post("/_emulator/scenarios/gateway-down/deactivate")).status_code == 200
    assert (await http.get("/api/v1/clients/", headers=bearer(merchant))).status_code == 200


async def test_invalid_files_are_refused_with_a_located_message(http):
    bad = FAULT.replace("status: 503", "status: 418")
    response = await http.post("/_emulator/scenarios", content=bad)
    assert response.status_code == 400
    assert response.json() == {
        "error": {
            "code": "invalid_scenario",
            "message": "rules[0].then.status: Invalid enum value 418; expected one of 429, 500, 502, 503, 504",
        }
    }
    empty = await http.post("/_emulator/scenarios", content=b"")
    assert empty.status_code == 400
    garbage = await http.post("/_emulator/scenarios", content=b"\xff\xfe{[")
    assert garbage.status_code == 400
    assert garbage.json()["error"]["code"] == "invalid_scenario"
    names = {s["name"] for s in (await http.get("/_emulator/scenarios")).json()["scenarios"]}
    assert "gateway-down" not in names


async def test_unknown_names_merchants_and_bodies(http, merchant):
    missing = await http.post("/_emulator/scenarios/no-such/activate")
    assert (missing.status_code, missing.json()["error"]["code"]) == (404, "scenario_not_found")
    nobody = await http.post(
        "/_emulator/scenarios/upstream-502-burst/activate", json={"merchant": "nobody"}
    )
    assert (nobody.status_code, nobody.json()["error"]["code"]) == (404, "merchant_not_found")
    inactive = await http.post("/_emulator/scenarios/upstream-502-burst/deactivate")
    assert (inactive.status_code, inactive.json()["error"]["code"]) == (404, "not_active")
    for body in ({"merchant": 5}, {"merchant": ""}, {"who": "x"}):
        wrong = await http.post("/_emulator/scenarios/upstream-502-burst/activate", json=body)
        assert (wrong.status_code, wrong.json()["error"]["code"]) == (400, "invalid")
    malformed = await http.post(
        "/_emulator/scenarios/upstream-502-burst/activate", content=b"{nope"
    )
    assert (malformed.status_code, malformed.json()["error"]["code"]) == (400, "malformed_json")
