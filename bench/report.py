"""The figures of one run and how they are printed (a table) and saved (JSON)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import msgspec


@dataclass(frozen=True)
class Target:
    """A bound a figure should stay within, e.g. ``>= 0.5`` or ``<= 50`` (ms)."""

    op: Literal["<=", ">="]
    bound: float
    unit: str = ""

    def met(self, value: float) -> bool:
        return value <= self.bound if self.op == "<=" else value >= self.bound

    def __str__(self) -> str:
        sign = "≤" if self.op == "<=" else "≥"
        return f"{sign} {self.bound:g}{' ' + self.unit if self.unit else ''}"


@dataclass(frozen=True)
class Load:
    """Throughput and latency of one endpoint at one concurrency."""

    name: str
    concurrency: int
    requests: int
    errors: int
    seconds: float
    rps: float
    p50_ms: float
    p99_ms: float
    loadgen_cpu: float  # percent of one core used by the load generator
    server_cpu: float | None  # percent of one core used by the server, where measurable
    other_cpu: float | None  # percent of one core used by anything else on the machine
    statuses: dict[str, int]
    error_samples: list[str]
    rps_runs: list[float] = field(default_factory=list)  # req/s of every run (--repeat)
    server_cpu_ms: float | None = None  # server CPU per request (warm-up included), in ms

    @property
    def spread(self) -> float | None:
        """Half the range of the runs' req/s, relative to this run's; None for one run."""
        if len(self.rps_runs) < 2 or not self.rps:
            return None
        return (max(self.rps_runs) - min(self.rps_runs)) / 2 / self.rps


@dataclass(frozen=True)
class Ratio:
    """Emulator over baseline at ``concurrency``: req/s, or server CPU per request."""

    name: str
    concurrency: int
    value: float
    target: Target

    @property
    def verdict(self) -> str:
        return "PASS" if self.target.met(self.value) else "MISS"


@dataclass(frozen=True)
class Timing:
    """A latency-type figure: ``value_ms`` is its headline (``label`` says which one)."""

    name: str
    runs: int  # requests or repetitions behind it
    errors: int
    label: str  # "p50", "median", "total"
    value_ms: float
    p99_ms: float | None = None
    target: Target | None = None
    judged: float | None = None  # the number compared with the target; value_ms if None
    judged_as: str = "p99"  # what ``judged`` is, printed beside the target ("" for nothing)
    detail: str = ""
    extra: dict[str, float] = field(default_factory=dict)
    error_samples: list[str] = field(default_factory=list)

    @property
    def verdict(self) -> str:
        if self.target is None:
            return ""
        judged = self.value_ms if self.judged is None else self.judged
        return "PASS" if self.target.met(judged) else "MISS"


@dataclass
class Report:
    environment: dict[str, str] = field(default_factory=dict)
    loads: list[Load] = field(default_factory=list)
    ratios: list[Ratio] = field(default_factory=list)
    timings: list[Timing] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def errors(self) -> int:
        return sum(x.errors for x in self.loads) + sum(x.errors for x in self.timings)

    def save(self, path: Path) -> None:
        """Everything, verdicts included, as indented JSON."""
        data = msgspec.to_builtins(self)
        for saved, figure in zip(data["ratios"], self.ratios, strict=True):
            saved["verdict"] = figure.verdict
        for saved, timing in zip(data["timings"], self.timings, strict=True):
            saved["verdict"] = timing.verdict or None
        path.write_bytes(msgspec.json.format(msgspec.json.encode(data), indent=2) + b"\n")


def _number(value: float, digits: int = 2) -> str:
    return f"{value:,.{digits}f}"


def _percent(value: float | None) -> str:
    return "-" if value is None else f"{value:.0f}%"


def _spread(load: Load) -> str:
    return f"{_percent(None if load.spread is None else 100 * load.spread):>6}"


def render(report: Report) -> str:
    """The whole report as aligned plain-text tables."""
    lines = ["payments-emulator benchmark", ""]
    width = max((len(k) for k in report.environment), default=0)
    lines += [f"  {key:<{width}}  {value}" for key, value in report.environment.items()]

    repeated = any(x.spread is not None for x in report.loads)
    title = "Throughput and latency (closed loop, keep-alive connections)"
    if repeated:
        title += "; median of the runs, ± half their range"
    lines += ["", title]
    spread = f"{'±':>6}" if repeated else ""
    header = (
        f"  {'figure':<24}{'conc':>5}{'requests':>10}{'errors':>8}{'req/s':>11}{spread}"
        f"{'p50 ms':>9}{'p99 ms':>9}{'server cpu':>12}{'loadgen cpu':>13}{'other cpu':>11}"
    )
    lines += [header, "  " + "-" * (len(header) - 2)]
    for x in report.loads:
        lines.append(
            f"  {x.name:<24}{x.concurrency:>5}{x.requests:>10,}{x.errors:>8}"
            f"{_number(x.rps, 0):>11}{_spread(x) if repeated else ''}"
            f"{_number(x.p50_ms):>9}{_number(x.p99_ms):>9}"
            f"{_percent(x.server_cpu):>12}{_percent(x.loadgen_cpu):>13}{_percent(x.other_cpu):>11}"
        )

    concurrencies = sorted({r.concurrency for r in report.ratios})
    at = ", ".join(map(str, concurrencies))
    lines += ["", f"Ratios (req/s; server CPU per request) at concurrency {at}"]
    for r in report.ratios:
        lines.append(f"  {r.name:<40}{r.value:>7.2f}   target {r.target!s:<8} {r.verdict}")

    lines += ["", "Control plane and process timings"]
    header = (
        f"  {'figure':<36}{'runs':>6}{'errors':>8}{'value':>18}{'p99 ms':>9}  {'target':<16}result"
    )
    lines += [header, "  " + "-" * (len(header) - 2)]
    for t in report.timings:
        value = f"{t.label} {_number(t.value_ms)} ms"
        p99 = "-" if t.p99_ms is None else _number(t.p99_ms)
        target = "" if t.target is None else str(t.target)
        if t.target is not None and t.judged is not None and t.judged_as:
            target += f" ({t.judged_as})"
        lines.append(
            f"  {t.name:<36}{t.runs:>6,}{t.errors:>8}{value:>18}{p99:>9}"
            f"  {target:<16}{t.verdict}".rstrip()
        )
        if t.detail:
            lines.append(f"  {'':<36}  {t.detail}")

    figures: list[Load | Timing] = [*report.loads, *report.timings]
    problems = [f for f in figures if f.errors]
    if problems:
        lines += ["", "Errors (unexpected statuses, broken connections, timeouts)"]
        for f in problems:
            lines.append(f"  {f.name}: {f.errors} errors; e.g. {f.error_samples[:2]}")

    if report.notes:
        lines += ["", "Notes"]
        lines += [f"  - {note}" for note in report.notes]
    return "\n".join(lines)
