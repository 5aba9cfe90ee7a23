"""``--db :memory:`` (``serve --ephemeral``): the same behaviour with no file at all."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from emulator.resources import default_merchant
from emulator.runtime.runtime import Runtime
from emulator.runtime.settings import MEMORY
from emulator.serving.app import create_app
from tests.conftest import DEFAULT_KEY, settings_for
from tests.http.purchase_helpers import purchase_body

GATEWAY = {"Authorization": f"Bearer {DEFAULT_KEY}"}
PURCHASE = purchase_body({"brand_id": default_merchant().brands[0].id})


async def test_in_memory_a_purchase_reset_and_snapshots_work_and_leave_no_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.chdir(tmp_path)  # a path named ":memory:" would land here
    async with Runtime(settings_for(tmp_path, db_path=MEMORY)) as rt:
        assert rt.db.in_memory
        transport = httpx.ASGITransport(app=create_app(rt))
        async with httpx.AsyncClient(transport=transport, base_url="http://emulator") as http:
            created = await http.post("/api/v1/purchases/", json=PURCHASE, headers=GATEWAY)
            assert created.status_code == 201, created.text
            first = created.json()["id"]
            saved = await http.post("/_emulator/snapshots/one")
            assert saved.status_code == 201, saved.text
            scratch = rt.snapshot_dir
            assert _names(scratch) == ["one.sqlite"] and tmp_path not in scratch.parents
            reset = await http.post("/_emulator/reset")
            assert reset.status_code == 200
            gone = await http.get(f"/api/v1/purchases/{first}/", headers=GATEWAY)
            assert gone.status_code == 404
            restored = await http.post("/_emulator/snapshots/one/restore")
            assert restored.status_code == 200, restored.text
            back = await http.get(f"/api/v1/purchases/{first}/", headers=GATEWAY)
            assert (back.status_code, back.json()["id"]) == (200, first)
            assert restored.json()["now"] == "2026-01-05T09:00:00Z"
    assert _names(tmp_path) == []  # no database, lock, WAL or snapshot file
    assert not scratch.exists()  # the process's own directory went with it


def _names(directory: Path) -> list[str]:
    return sorted(path.name for path in directory.iterdir())
