"""Named states (``--states DIR``), ``serve --load`` and ``EMULATOR_LOAD``."""

from __future__ import annotations

import os
from pathlib import Path

import httpx

from emulator.runtime.runtime import Runtime
from emulator.runtime.settings import from_env
from emulator.serving.app import create_app
from tests.conftest import settings_for

COMPANY = "5a1e0000-0000-4000-8000-00000000000a"
KEY = "sk_test_named_state"
STATE = f"""\
version: 1
merchants:
  - id: {COMPANY}
    name: Provider state
    api_keys: [{{key: {KEY}, environment: sandbox}}]
    clients: [{{email: known@example.com}}]
"""


async def test_a_named_state_loads_in_one_call(tmp_path: Path) -> None:
    folder = tmp_path / "states"
    folder.mkdir()
    (folder / "a-known-client.yaml").write_text(STATE)
    (folder / "notes.txt").write_text("not a state")
    async with Runtime(settings_for(tmp_path, states=folder)) as rt:
        transport = httpx.ASGITransport(app=create_app(rt))
        async with httpx.AsyncClient(transport=transport, base_url="http://e") as http:
            listed = (await http.get("/_emulator/states")).json()
            assert listed == {"states": ["a-known-client"], "folder": str(folder)}
            loaded = await http.post("/_emulator/states/a-known-client")
            assert loaded.status_code == 200, loaded.text
            assert loaded.json()["name"] == "a-known-client"
            gw = {"Authorization": f"Bearer {KEY}"}
            clients = (await http.get("/api/v1/clients/", headers=gw)).json()["results"]
            assert [c["email"] for c in clients] == ["known@example.com"]
            missing = await http.post("/_emulator/states/nope")
            assert missing.status_code == 404
            assert missing.json()["error"]["code"] == "state_not_found"
            bad = await http.post("/_emulator/states/.hidden")
            assert bad.status_code == 400
            assert "state names are" in bad.json()["error"]["message"]


async def test_without_a_states_folder_a_named_state_is_refused(http: httpx.AsyncClient) -> None:
    response = await http.post("/_emulator/states/anything")
    assert response.status_code == 409
    assert response.json()["error"]["code"] == "no_states_folder"
    assert (await http.get("/_emulator/states")).json() == {"states": [], "folder": None}


async def test_load_at_start(tmp_path: Path) -> None:
    state = tmp_path / "state.yaml"
    state.write_text(STATE)
    async with Runtime(settings_for(tmp_path, load=(state,))) as rt:
        transport = httpx.ASGITransport(app=create_app(rt))
        async with httpx.AsyncClient(transport=transport, base_url="http://e") as http:
            gw = {"Authorization": f"Bearer {KEY}"}
            clients = (await http.get("/api/v1/clients/", headers=gw)).json()["results"]
            assert [c["email"] for c in clients] == ["known@example.com"]


def test_emulator_load_takes_paths_separated_like_path() -> None:
    env = {"EMULATOR_LOAD": os.pathsep.join(["a.yaml", "b.json"]), "EMULATOR_STATES": "st"}
    values = from_env(env)
    assert values["load"] == (Path("a.yaml"), Path("b.json"))
    assert values["states"] == Path("st")


def test_the_banner_names_the_files_and_the_folder(tmp_path: Path) -> None:
    from emulator.serving.options import banner_lines

    settings = settings_for(tmp_path, load=(Path("a.yaml"),), states=Path("st"))
    lines = banner_lines(settings)
    assert "state loaded at start: a.yaml" in lines
    assert "named states: st (POST /_emulator/states/NAME)" in lines
