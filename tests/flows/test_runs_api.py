"""The control plane's flows: the library, runs in the background (POST, GET one, GET the
list), bad flows refused in its dialect with their place, runs abandoned at a stop."""

from __future__ import annotations

import asyncio
import shutil
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from emulator.runtime.runtime import Runtime
from emulator.sandbox.flows.routes import abandon_runs
from emulator.serving.app import create_app
from tests.conftest import check_against_the_document, settings_for

SHIPPED = Path(__file__).parents[2] / "flows" / "payout-settles-after-three-days.yaml"
FAILING = """name: failing
steps:
  - call: {api: gateway, method: POST, path: /api/v1/clients/, body: {email: nope}}
  - advance: 1d
"""
WAITING = """name: waiting
steps:
  - expect: {wait: [{request: {path: /api/v1/purchases/}}], timeout: 60s}
"""


@pytest.fixture
async def app(tmp_path: Path) -> AsyncIterator[Any]:
    """The app with a library of its own (``--flows``): the shipped flow and a bad file."""
    folder = tmp_path / "library"
    folder.mkdir()
    shutil.copy(SHIPPED, folder)
    (folder / "broken.yaml").write_text("name: broken\nsteps:\n  - advance: 3x\n")
    async with Runtime(settings_for(tmp_path, flows=folder)) as rt:
        yield create_app(rt)


@pytest.fixture
async def http(app: Any) -> AsyncIterator[httpx.AsyncClient]:
    hooks = {"response": [check_against_the_document]}
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(
        transport=transport, base_url="http://emulator", event_hooks=hooks
    ) as client:
        yield client


async def finished(http: httpx.AsyncClient, run_id: str) -> dict[str, Any]:
    """The run once it has ended (each look lets the run's task go on)."""
    for _ in range(2000):
        found: dict[str, Any] = (await http.get(f"/_emulator/flows/runs/{run_id}")).json()
        if found["state"] != "running":
            return found
        await asyncio.sleep(0.005)
    raise AssertionError(f"run {run_id} still running: {found}")


async def test_the_library_lists_each_file_or_why_it_does_not_read(http):
    listed = (await http.get("/_emulator/flows")).json()
    assert listed["folder"].endswith("library")
    by_file = {f["file"]: f for f in listed["flows"]}
    assert by_file["payout-settles-after-three-days.yaml"]["steps"] == 5
    assert by_file["broken.yaml"]["error"].endswith(
        'line 3, column 14: steps[0].advance: "3x" is not a duration (such as "5m", "3d")'
    )


async def test_runs_by_name_yaml_and_text_are_numbered_with_their_steps(http):
    by_name = await http.post(
        "/_emulator/flows/runs", json={"name": "payout-settles-after-three-days"}
    )
    assert by_name.status_code == 202, by_name.text
    started = by_name.json()
    assert started["state"] == "running" and started["number"] == 1
    as_text = await http.post(
        "/_emulator/flows/runs", content=FAILING, headers={"content-type": "application/yaml"}
    )
    as_json = await http.post("/_emulator/flows/runs", json={"yaml": FAILING, "keep": True})
    assert (as_text.status_code, as_json.status_code) == (202, 202)
    passed = await finished(http, started["id"])
    assert passed["state"] == "passed", passed
    assert [s["outcome"] for s in passed["steps"]] == ["passed"] * 5
    assert passed["steps"][3]["instant"] == "2026-03-05T08:00:00Z"
    failed = await finished(http, as_text.json()["id"])
    assert failed["state"] == "failed"
    assert [s["outcome"] for s in failed["steps"]] == ["failed", "skipped"]
    assert failed["steps"][0]["answer"]["status"] == 400
    kept = await finished(http, as_json.json()["id"])
    assert kept["kept"] is True
    listed = (await http.get("/_emulator/flows/runs")).json()["runs"]
    assert [r["number"] for r in listed] == [3, 2, 1]
    assert [r["step_count"] for r in listed] == [2, 2, 5]


@pytest.mark.parametrize(
    ("body", "status", "code", "message"),
    [
        ("name: x\nsteps:\n  - call: {api: gateway, method: GET, path: /api/v1/nope/}\n", 400,
         "invalid_flow",
         "line 3, column 45: steps[0].call.path: /api/v1/nope/ is not a path of the gateway API"),
        ({"yaml": "name: x\nsteps:\n  - repeat: 20000\n    steps: [{advance: 1d}]\n"}, 400,
         "invalid_flow", "line 3, column 13: steps[0].repeat: 20,000 is more than 10,000 repeats"),
        ({"name": "broken"}, 400, "invalid_flow", "line 3, column 14: steps[0].advance:"),
        ({"name": "nope"}, 404, "flow_not_found", "no flow 'nope' in the library"),
        ({"name": "x", "yaml": "y"}, 400, "invalid", 'give {"name": <a library flow>}'),
        ({"yaml": "x", "extra": 1}, 400, "invalid", "'extra' is not a field"),
        ({"yaml": 3}, 400, "invalid", "'yaml' must be the flow's text"),
    ],
)  # fmt: skip
async def test_bad_flows_are_refused_naming_where(http, body, status, code, message):
    if isinstance(body, str):
        answer = await http.post(
            "/_emulator/flows/runs", content=body, headers={"content-type": "text/yaml"}
        )
    else:
        answer = await http.post("/_emulator/flows/runs", json=body)
    assert answer.status_code == status, answer.text
    error = answer.json()["error"]
    assert error["code"] == code and message in error["message"], error


async def test_an_unknown_run_is_a_404(http):
    answer = await http.get("/_emulator/flows/runs/run-nope")
    assert answer.status_code == 404 and answer.json()["error"]["code"] == "run_not_found"


async def test_a_run_under_way_is_abandoned_when_the_server_stops(app, http):
    started = (await http.post("/_emulator/flows/runs", json={"yaml": WAITING})).json()
    for _ in range(2000):  # until its wait is open on the emulator
        if (await http.get("/_emulator/waits")).json()["open"] == 1:
            break
        await asyncio.sleep(0.005)
    await abandon_runs(app)
    found = (await http.get(f"/_emulator/flows/runs/{started['id']}")).json()
    assert found["state"] == "failed"
    assert found["error"] == "abandoned: the server stopped during the run"
    assert (await http.get("/_emulator/waits")).json()["open"] == 0


async def test_runs_carry_the_admin_token_of_a_guarded_server(tmp_path: Path):
    async with Runtime(settings_for(tmp_path, admin_token="s3cret")) as rt:
        guarded = httpx.ASGITransport(app=create_app(rt))
        async with httpx.AsyncClient(transport=guarded, base_url="http://emulator") as http:
            assert (await http.get("/_emulator/flows/runs")).status_code == 401
            http.headers["Authorization"] = "Bearer s3cret"
            started = await http.post("/_emulator/flows/runs", content=SHIPPED.read_bytes())
            assert started.status_code == 202, started.text
            found = await finished(http, started.json()["id"])
            assert found["state"] == "passed", found
