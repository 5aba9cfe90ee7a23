"""``EMULATOR_CALLBACK_HOSTS`` with a ``host:port`` entry, as ``serve`` reads it: a real
process, its banner, and the URL rule it applies to a webhook registration."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from tests.test_cli import DEFAULT, serving

pytestmark = pytest.mark.slow  # starts `payments-emulator serve` in a process of its own


def test_a_host_port_entry_of_the_environment_matches_that_port_only(tmp_path: Path):
    env = {"EMULATOR_CALLBACK_HOSTS": "worker,app:8000"}
    with serving("--db", str(tmp_path / "e.sqlite3"), env=env) as (url, output):
        statuses = {}
        for callback in ("http://app:8000/hooks", "http://app:8001/hooks", "http://worker:9/x"):
            body = {"title": "t", "all_events": True, "callback": callback}
            response = httpx.post(f"{url}/api/v1/webhooks/", json=body, headers=DEFAULT)
            statuses[callback] = response.status_code
    assert statuses == {
        "http://app:8000/hooks": 201,
        "http://app:8001/hooks": 400,
        "http://worker:9/x": 201,
    }
    assert "plain-HTTP callback hosts: worker, app:8000" in output[0]
