"""A seed makes a fresh emulator repeatable and never makes ids collide with stored state."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import httpx

from emulator.runtime.runtime import Runtime
from emulator.serving.app import create_app
from tests.conftest import settings_for


async def _create_clients(rt: Runtime, count: int) -> list[str]:
    transport = httpx.ASGITransport(app=create_app(rt))
    async with httpx.AsyncClient(transport=transport, base_url="http://emulator") as http:
        merchant = (await http.post("/_emulator/merchants")).json()
        headers = {"Authorization": f"Bearer {merchant['api_key']}"}
        ids = []
        for n in range(count):
            response = await http.post(
                "/api/v1/clients/", json={"email": f"p{n}@example.com"}, headers=headers
            )
            assert response.status_code == 201, response.text
            ids.append(response.json()["id"])
        return [merchant["company_id"], *ids]


async def test_same_seed_on_fresh_databases_repeats_ids(tmp_path: Path):
    async with Runtime(settings_for(tmp_path / "a", seed=99)) as rt:
        first = await _create_clients(rt, 3)
    async with Runtime(settings_for(tmp_path / "b", seed=99)) as rt:
        second = await _create_clients(rt, 3)
    assert first == second


async def test_a_restart_with_the_same_seed_continues_without_collisions(tmp_path: Path):
    settings = settings_for(tmp_path, seed=99)
    async with Runtime(settings) as rt:
        before = await _create_clients(rt, 3)
    async with Runtime(settings) as rt:
        after = await _create_clients(rt, 3)  # would be a 500 (UNIQUE id) if ids repeated
    assert not set(before) & set(after)


async def test_reset_starts_the_seed_over(tmp_path: Path):
    async with Runtime(settings_for(tmp_path, seed=99)) as rt:
        first = await _create_clients(rt, 2)
        transport = httpx.ASGITransport(app=create_app(rt))
        async with httpx.AsyncClient(transport=transport, base_url="http://e") as http:
            assert (await http.post("/_emulator/reset")).status_code == 200
        again = await _create_clients(rt, 2)
    assert first == again


async def _control(rt: Runtime, path: str) -> None:
    transport = httpx.ASGITransport(app=create_app(rt))
    async with httpx.AsyncClient(transport=transport, base_url="http://e") as http:
        response = await http.post(path)
        assert response.status_code in (200, 201), response.text


async def test_restoring_after_a_reset_does_not_repeat_the_snapshots_ids(tmp_path: Path):
    """save, reset (the seed starts over), restore: new ids must not collide with the
    snapshot's, which came from the start of that same stream."""
    async with Runtime(settings_for(tmp_path, seed=99)) as rt:
        before = await _create_clients(rt, 3)
        await _control(rt, "/_emulator/snapshots/s")
        await _control(rt, "/_emulator/reset")
        await _control(rt, "/_emulator/snapshots/s/restore")
        after = await _create_clients(rt, 3)  # a 500 (UNIQUE id) if the stream repeated
    assert not set(before) & set(after)


async def test_a_snapshot_of_an_earlier_run_then_a_restart_does_not_repeat_ids(tmp_path: Path):
    settings = settings_for(tmp_path, seed=99)
    async with Runtime(settings) as rt:
        first = await _create_clients(rt, 2)
        await _control(rt, "/_emulator/snapshots/early")
    async with Runtime(settings) as rt:
        await _control(rt, "/_emulator/snapshots/early/restore")
        second = await _create_clients(rt, 2)
    async with Runtime(settings) as rt:
        third = await _create_clients(rt, 2)
    assert len(set(first) | set(second) | set(third)) == len(first) + len(second) + len(third)


async def test_a_seeded_database_without_any_seed_record_is_not_taken_for_fresh(tmp_path: Path):
    """A database that already holds merchants (say, from an older version) is not fresh,
    whatever it records: the seed's stream would repeat its ids."""
    settings = settings_for(tmp_path, seed=99)
    async with Runtime(settings) as rt:
        before = await _create_clients(rt, 2)
    conn = sqlite3.connect(tmp_path / "emulator.sqlite3")
    conn.execute("DELETE FROM settings WHERE key != 'clock'")
    conn.commit()
    conn.close()
    async with Runtime(settings) as rt:
        after = await _create_clients(rt, 2)  # a 500 (UNIQUE id) if the stream repeated
    assert not set(before) & set(after)
