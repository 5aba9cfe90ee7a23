"""Smoke test of the benchmark harness: ``python -m bench --quick`` end to end, tiny counts."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

FIGURES = (
    "emulator create-client",
    "emulator get-client",
    "bare insert",
    "bare read",
    "emulator create-purchase",
    "emulator pay-purchase",
    "create-client / bare-insert",
    "get-client / bare-read",
    "fresh isolated merchant",
    "snapshot restore",
    "clock advance",
    "cold start",
    "emulator create-eft-collection",
    "advance a day, pending collections",
    "deliveries per second to a local receiver",
    "year of monthly billing",
)


def test_quick_run_prints_every_figure(tmp_path: Path) -> None:
    saved = tmp_path / "bench.json"
    done = subprocess.run(
        [sys.executable, "-m", "bench", "--quick", "--json", str(saved)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    report = done.stdout
    for name in FIGURES:
        assert name in report, f"{name!r} missing from the report:\n{report}"
    for concurrency in (" 1 ", " 64 "):
        assert concurrency in report
    assert "PASS" in report or "MISS" in report

    figures = json.loads(saved.read_text())
    assert {(x["name"], x["concurrency"]) for x in figures["loads"]} == {
        (name, c) for name in (*FIGURES[:6], "emulator create-eft-collection") for c in (1, 64)
    }
    assert all(x["errors"] == 0 and x["requests"] > 0 for x in figures["loads"])
    assert len(figures["ratios"]) == 2 and len(figures["timings"]) == 7
    advance = next(x for x in figures["timings"] if x["name"] == "clock advance")
    assert advance["extra"]["jobs_run"] >= 50
    pending = next(x for x in figures["timings"] if x["name"].startswith("advance a day"))
    assert pending["extra"]["jobs_run"] >= 50
    delivered = next(x for x in figures["timings"] if x["name"].startswith("deliveries"))
    assert delivered["errors"] == 0 and delivered["runs"] == 30
    assert delivered["extra"]["deliveries_per_second"] > 0
    billed = next(x for x in figures["timings"] if x["name"].startswith("year of monthly"))
    assert billed["errors"] == 0 and billed["extra"]["bills"] == 20 * 12
