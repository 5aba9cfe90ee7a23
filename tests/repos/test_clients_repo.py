"""The clients table: which constraint failures mean duplicate_client, and which are bugs."""

from __future__ import annotations

import sqlite3

import pytest

from emulator.domain.errors import DuplicateClient
from emulator.gateway.clients import repo
from emulator.gateway.clients import rules as domain
from emulator.gateway.clients.rules import ClientInput
from emulator.runtime.runtime import Runtime


async def _insert(rt: Runtime, client_id: str, email: str) -> None:
    client, _ = domain.create(ClientInput(email=email), client_id, 0)
    await rt.db.write(lambda tx: repo.insert(tx, rt.default_merchant.company_id, client))


async def test_same_email_for_one_merchant_is_duplicate_client(runtime: Runtime):
    await _insert(runtime, "00000000-0000-4000-8000-000000000001", "a@example.com")
    with pytest.raises(DuplicateClient):
        await _insert(runtime, "00000000-0000-4000-8000-000000000002", "A@example.com")


async def test_an_id_collision_is_not_reported_as_a_duplicate_email(runtime: Runtime):
    await _insert(runtime, "00000000-0000-4000-8000-000000000001", "a@example.com")
    with pytest.raises(sqlite3.IntegrityError, match=r"clients\.id"):
        await _insert(runtime, "00000000-0000-4000-8000-000000000001", "b@example.com")
