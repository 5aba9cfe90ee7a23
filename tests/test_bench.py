"""Smoke test of the benchmark harness: ``python -m bench --quick`` end to end, tiny counts."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

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
    "client verb end to end",
    "restart, 200 clients stored",
    "RSS after a soak",
    "emulator create-eft-collection",
    "advance a day, pending collections",
    "deliveries per second to a local receiver",
    "year of monthly billing",
    "fresh merchant with its own clock",
    "clock advance, merchant's own clock",
    "B create-client c8, A idle",
    "B create-client c8, A advancing",
    "A's year of billing, own clock",
    "create-purchase / bare-insert",
    "create-purchase / bare-insert server CPU",
    "emulator create-purchase, file",
    "emulator create-purchase, in memory",
    "create-purchase in memory / file",
    "emulator get-client p99, concurrency 1",
    "emulator create-purchase p99, concurrency 64",
    "reset with objects stored (200 clients)",
    "v2 page, 1,000 stored: mandates",
    "v2 page, 1,000 stored: collections",
    "v2 page, 1,000 stored: collection events",
    "v2 page, 1,000 stored: unindexed filter",
    "fact to a wait's answer, 20 waits over 5 merchants",
    "verify of 10 expectations (100 journal entries + 100 deliveries)",
    "wait with advance, a year of monthly billing",
    "the flow library, flow run --parallel 4",
    "a short flow (5 steps), fresh merchant each",
    "a recorded 50-step session exported as a flow",
    "typical test, in process",
    "typical test, in process, p99",
    "typical test, served",
    "typical test, served, p99",
    "typical test, in process, teardown",
    "typical test, served, teardown",
    "60 s server-clock advance under load",
    "others' create-purchase c4 during an advance",
)


@pytest.mark.slow  # seven servers started and driven through every figure, however small
def test_quick_run_prints_every_figure(tmp_path: Path) -> None:
    saved = tmp_path / "bench.json"
    # The quick plan's own recording time: with less, a loaded machine creates fewer purchases
    # than the pay figure's 64 concurrent payers (it then reports fewer, and this test fails).
    quick = ["--quick", "--state"]
    done = subprocess.run(
        [sys.executable, "-m", "bench", *quick, "--json", str(saved)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
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
    } | {("emulator create-purchase, file", 64), ("emulator create-purchase, in memory", 64)}
    assert all(x["errors"] == 0 and x["requests"] > 0 for x in figures["loads"])
    assert len(figures["ratios"]) == 7 and len(figures["timings"]) == 37
    cpu = next(x for x in figures["ratios"] if x["name"].endswith("server CPU"))
    assert isinstance(cpu["value"], float) and 0 < cpu["value"] < 100  # measured, not unknown
    timings = {x["name"]: x for x in figures["timings"]}
    pages = [x for x in figures["timings"] if x["name"].startswith("v2 page")]
    assert len(pages) == 4 and all(x["errors"] == 0 for x in pages)
    for name in ("clock advance", "clock advance, merchant's own clock"):
        assert timings[name]["errors"] == 0 and timings[name]["extra"]["jobs_run"] >= 50
    assert timings["clock advance, merchant's own clock"]["verdict"] in ("PASS", "MISS")
    far = timings["server clock frozen 500 years ahead"]
    assert far["errors"] == 0 and far["verdict"] in ("PASS", "MISS") and far["extra"]["back_ms"] > 0
    own = timings["fresh merchant with its own clock"]
    assert own["errors"] == 0 and own["runs"] == 20 and own["verdict"] in ("PASS", "MISS")
    pending = next(x for x in figures["timings"] if x["name"].startswith("advance a day"))
    assert pending["extra"]["jobs_run"] >= 50
    delivered = next(x for x in figures["timings"] if x["name"].startswith("deliveries"))
    assert delivered["errors"] == 0 and delivered["runs"] == 30
    assert delivered["extra"]["deliveries_per_second"] > 0
    billed = next(x for x in figures["timings"] if x["name"].startswith("year of monthly"))
    assert billed["errors"] == 0 and billed["extra"]["bills"] == 20 * 12

    idle, during = timings["B create-client c8, A idle"], timings["B create-client c8, A advancing"]
    assert idle["errors"] == 0 and idle["runs"] > 0 and idle["p99_ms"] > 0
    assert during["errors"] == 0 and during["runs"] > 0 and during["p99_ms"] > 0
    assert during["verdict"] in ("PASS", "MISS")
    assert during["extra"]["idle_p99_ms"] == idle["p99_ms"]
    # B's recording spans A's advance (it starts just before A's advance is sent)
    assert during["extra"]["seconds"] * 1000 >= 0.95 * during["extra"]["advance_ms"]
    a_year = timings["A's year of billing, own clock"]
    assert a_year["errors"] == 0 and a_year["extra"]["bills"] == 20 * 12
    assert a_year["value_ms"] == during["extra"]["advance_ms"]
    assert a_year["target"] is None and a_year["verdict"] is None  # judged by B's p99 alone
    woken = timings["fact to a wait's answer, 20 waits over 5 merchants"]
    assert woken["errors"] == 0 and woken["runs"] == 20 and woken["verdict"] in ("PASS", "MISS")
    verified = timings["verify of 10 expectations (100 journal entries + 100 deliveries)"]
    assert verified["errors"] == 0 and verified["runs"] == 3
    stepped = timings["wait with advance, a year of monthly billing"]
    assert stepped["errors"] == 0 and stepped["extra"]["jobs_run"] >= 12
    flowed = timings["the flow library, flow run --parallel 4"]
    assert flowed["errors"] == 0 and flowed["extra"]["flows"] == 1
    assert timings["a short flow (5 steps), fresh merchant each"]["runs"] == 3
    assert timings["a recorded 50-step session exported as a flow"]["verdict"] in ("PASS", "MISS")
    for where in ("in process", "served"):
        typical = timings[f"typical test, {where}"]
        assert typical["errors"] == 0 and typical["runs"] == 10 and typical["value_ms"] > 0
        assert typical["verdict"] in ("PASS", "MISS")
        assert timings[f"typical test, {where}, p99"]["value_ms"] == typical["p99_ms"]
        teardown = timings[f"typical test, {where}, teardown"]
        assert 0 < teardown["value_ms"] < typical["value_ms"] and teardown["verdict"]


def test_statements_per_job_are_counted(capsys) -> None:
    """``python -m bench.statements`` runs both advances in process and counts what the one
    writer ran per job (each collection job at least reads, updates and deletes its job)."""
    from bench import statements

    statements.main(["--collections", "3", "--subscribers", "2"])
    lines = [x for x in capsys.readouterr().out.splitlines() if "per job" in x]
    assert [x.split(":")[0] for x in lines] == [
        "a day over 3 pending EFT collections",
        "a year of monthly billing, 2 subscribers",
    ]
    assert "4 jobs" in lines[0] and "26 jobs" in lines[1]
    per_job = [float(x.split(" = ")[1].split()[0]) for x in lines]
    assert all(3 <= n <= 40 for n in per_job), per_job
