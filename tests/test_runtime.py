"""The composition root: starting and stopping leave nothing behind."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import msgspec
import pytest

from emulator.runtime.runtime import Runtime
from tests.conftest import settings_for


async def test_a_start_that_fails_after_opening_the_database_releases_it(tmp_path: Path):
    """A stored clock that will not decode fails the start, and leaves nothing open: the same
    file can be opened again at once."""
    async with Runtime(settings_for(tmp_path)):
        pass
    conn = sqlite3.connect(tmp_path / "emulator.sqlite3")
    conn.execute("""UPDATE settings SET value = '{"mode": 1}' WHERE key = 'clock'""")
    conn.commit()
    conn.close()
    with pytest.raises(msgspec.ValidationError):
        await Runtime(settings_for(tmp_path, clock_explicit=False)).start()
    async with Runtime(settings_for(tmp_path)) as rt:  # clock given: the stored one is ignored
        assert rt.started
