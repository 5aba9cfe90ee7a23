"""``bench/RESULTS.md``: the latest figures of ``make bench`` as a page, with the machine, the
date and PASS/MISS per target; figures the run skipped (``--state`` ones without it) are listed
as "not run". Each full run replaces the file: the history of the figures is in git."""

from __future__ import annotations

import os
import platform
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from bench import bank_pages, large, pertest
from bench.plan import Plan
from bench.report import Load, Ratio, Report, Target, Timing

RESULTS = Path(__file__).resolve().parent / "RESULTS.md"
TIMES = "\N{MULTIPLICATION SIGN}"


@dataclass(frozen=True)
class Machine:
    cores: int
    memory_bytes: int | None
    cpu: str
    python: str

    @classmethod
    def this_one(cls) -> Machine:
        return cls(os.cpu_count() or 0, _memory(), _cpu(), _python())

    @property
    def memory(self) -> str:
        if self.memory_bytes is None:
            return "unknown"
        return f"{self.memory_bytes / 2**30:.1f} GiB"


def _memory() -> int | None:
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return None


def _cpu() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return " ".join(line.partition(":")[2].split())
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown"


def _python() -> str:
    return f"{platform.python_implementation()} {platform.python_version()}"


def skipped(plan: Plan) -> list[tuple[str, Target | None]]:
    """(figure, target) of the figures this plan does not run: without ``--state``, the
    large-state ones; with ``--quick``, the user file's run under pytest."""
    user_file = [] if plan.user_file else [(pertest.USER_FILE, None)]
    if plan.state:
        return user_file
    pages = [
        (f"{bank_pages.PAGES}, {plan.page_objects:,} stored: {name}", bank_pages.PAGE_TARGET)
        for name in bank_pages.QUERIES
    ]
    return [
        (f"{large.RESET} ({plan.reset_objects:,} clients)", large.RESET_TARGET),
        *pages,
        (f"{bank_pages.PAGES}, {plan.page_objects:,} stored: unindexed filter", None),
        (f"create-client, {large.growth_label(plan)}", large.GROWTH_TARGET),
        (f"get-client, {large.growth_label(plan)}", large.GROWTH_TARGET),
        *user_file,
    ]


def _ms(value: float) -> str:
    return f"{value:,.2f} ms"


def _load_row(x: Load) -> list[str]:
    measured = f"{x.rps:,.0f} req/s (p50 {_ms(x.p50_ms)}, p99 {_ms(x.p99_ms)})"
    if x.spread is not None:
        measured += f", ± {100 * x.spread:.0f}% over {len(x.rps_runs)} runs"
    return [f"{x.name}, concurrency {x.concurrency}", measured, "", ""]


def _ratio_row(r: Ratio) -> list[str]:
    return [
        f"{r.name} (concurrency {r.concurrency})",
        f"{r.value:.2f} {TIMES}",
        str(r.target),
        r.verdict,
    ]


def _timing_row(t: Timing) -> list[str]:
    measured = f"{t.label} {_ms(t.value_ms)}"
    if t.p99_ms is not None:
        measured += f", p99 {_ms(t.p99_ms)}"
    shown_p99 = t.judged_as == "p99" and t.p99_ms is not None
    if t.judged is not None and t.judged_as and not shown_p99:
        unit = t.target.unit if t.target is not None else ""
        measured += f"; {t.judged_as} {t.judged:,.2f} {unit}".rstrip()
    if t.detail:
        measured += f" ({t.detail})"
    target = "" if t.target is None else str(t.target)
    if t.target is not None and t.judged is not None and t.judged_as:
        target += f" ({t.judged_as})"
    return [t.name, measured, target, t.verdict]


def _cell(value: str) -> str:
    return value.replace("|", "\\|").replace("<", "&lt;")


def lines(report: Report, plan: Plan, machine: Machine, when: datetime, command: str) -> list[str]:
    """The page, line by line."""
    rows = [
        *(_load_row(x) for x in report.loads),
        *(_ratio_row(r) for r in report.ratios),
        *(_timing_row(t) for t in report.timings),
        *([name, "", "" if aim is None else str(aim), "not run"] for name, aim in skipped(plan)),
    ]
    verdicts = [row[3] for row in rows]
    counts = ", ".join(f"{verdicts.count(v)} {v}" for v in ("PASS", "MISS") if v in verdicts)
    if "not run" in verdicts:
        counts = f"{counts or 'none judged'}; {verdicts.count('not run')} figures not run"
    out = [
        "# Benchmark results",
        "",
        f"Written by `{command}` on {when:%Y-%m-%d %H:%M} UTC; each run replaces this file (the"
        " figures' history is in git). What each figure measures: docs/benchmarks.md.",
        "",
        "| Machine | |",
        "|---|---|",
        f"| cores | {machine.cores} |",
        f"| memory | {machine.memory} |",
        f"| CPU | {_cell(machine.cpu)} |",
        f"| Python | {_cell(machine.python)} |",
        *(
            f"| {_cell(key)} | {_cell(value)} |"
            for key, value in report.environment.items()
            if key != "python"  # said above
        ),
        "",
        f"Targets: {counts or 'none judged'}.",
    ]
    if report.errors:
        out += [
            "",
            f"**{report.errors} unexpected responses: these figures are suspect** (the printed"
            " report lists them).",
        ]
    out += ["", "| Figure | Measured | Target | Result |", "|---|---|---|---|"]
    out += ["| " + " | ".join(_cell(c) for c in row) + " |" for row in rows]
    if report.notes:
        out += ["", "Notes:", "", *(f"- {_cell(note)}" for note in report.notes)]
    return out


def write(report: Report, plan: Plan, command: str, when: datetime, path: Path = RESULTS) -> None:
    """Replace ``path`` with the page of this run, on this machine."""
    page = lines(report, plan, Machine.this_one(), when, command)
    path.write_text("\n".join(page) + "\n", encoding="utf-8")
