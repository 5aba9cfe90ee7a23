"""bench/RESULTS.md: the page ``make bench`` writes from the figures of a run."""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime

from bench import results
from bench.plan import FULL
from bench.report import Load, Ratio, Report, Target, Timing

MACHINE = results.Machine(
    cores=2, memory_bytes=8 * 2**30, cpu="Example CPU @ 2.0GHz", python="CPython 3.11.2"
)
WHEN = datetime(2026, 11, 24, 15, 30, tzinfo=UTC)


def report() -> Report:
    load = Load(
        name="emulator create-client", concurrency=64, requests=20_000, errors=0, seconds=3.0,
        rps=6_760.4, p50_ms=9.0, p99_ms=18.25, loadgen_cpu=90.0, server_cpu=100.0,
        other_cpu=5.0, statuses={"201": 20_000}, error_samples=[],
    )  # fmt: skip
    return Report(
        environment={"packages": "starlette 1.0"},
        loads=[load],
        ratios=[Ratio("create-client / bare-insert", 64, 0.57, Target(">=", 0.6))],
        timings=[
            Timing(
                name="cold start (payments-emulator serve)",
                runs=3,
                errors=0,
                label="median",
                value_ms=409.0,
                target=Target("<=", 1000, "ms"),
                judged_as="",
            ),
            Timing(
                name="emulator create-purchase p99, concurrency 64",
                runs=9_000,
                errors=0,
                label="p50",
                value_ms=20.0,
                p99_ms=31.5,
                target=Target("<=", 30, "ms"),
                judged=31.5,
                detail="3,050 req/s",
            ),
        ],
        notes=["ratios compare req/s at concurrency 64"],
    )


def page(plan=FULL) -> list[str]:
    return results.lines(report(), plan, MACHINE, WHEN, "python -m bench")


def test_the_page_says_when_where_and_how():
    """The page names the command, the date, and the machine's cores, memory, CPU and Python."""
    lines = page()
    assert lines[0] == "# Benchmark results"
    assert lines[2].startswith("Written by `python -m bench` on 2026-11-24 15:30 UTC;")
    assert "| cores | 2 |" in lines
    assert "| memory | 8.0 GiB |" in lines
    assert "| CPU | Example CPU @ 2.0GHz |" in lines
    assert "| Python | CPython 3.11.2 |" in lines
    assert "| packages | starlette 1.0 |" in lines


def test_each_figure_has_its_target_and_verdict():
    """A load row has no target; a ratio and a timing give theirs with PASS or MISS."""
    lines = page()
    assert (
        "| emulator create-client, concurrency 64 | 6,760 req/s (p50 9.00 ms, p99 18.25 ms) |  |  |"
        in lines
    )
    assert (
        "| create-client / bare-insert (concurrency 64) | 0.57 \N{MULTIPLICATION SIGN} | ≥ 0.6 | MISS |"
        in lines
    )
    assert "| cold start (payments-emulator serve) | median 409.00 ms | ≤ 1000 ms | PASS |" in lines
    assert (
        "| emulator create-purchase p99, concurrency 64 | p50 20.00 ms, p99 31.50 ms"
        " (3,050 req/s) | ≤ 30 ms (p99) | MISS |"
    ) in lines


def test_figures_the_run_skipped_are_not_run():
    """Without --state the large-state figures are listed as not run, with their targets."""
    lines = page()
    assert "| reset with objects stored (200,000 clients) |  | ≤ 500 ms | not run |" in lines
    assert "| v2 page, 100,000 stored: mandates |  | ≤ 20 ms | not run |" in lines
    assert "Targets: 1 PASS, 2 MISS; 7 figures not run." in lines


def test_a_state_run_skips_nothing():
    """With --state every figure runs: no row says not run."""
    lines = page(dataclasses.replace(FULL, state=True))
    assert not any(line.endswith("| not run |") for line in lines)
    assert "Targets: 1 PASS, 2 MISS." in lines


def test_write_replaces_the_file(tmp_path):
    """write() replaces the page with this run's, ending with one newline."""
    path = tmp_path / "RESULTS.md"
    path.write_text("an older run\n")
    results.write(report(), FULL, "python -m bench", WHEN, path)
    text = path.read_text()
    assert text.startswith("# Benchmark results\n")
    assert "an older run" not in text
    assert text.endswith("- ratios compare req/s at concurrency 64\n")
