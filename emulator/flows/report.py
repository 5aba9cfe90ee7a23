"""What a flow run produced: a result per step, the run's state, and their texts (a line per
step, the failure's details, JUnit XML).

Pure: no I/O.
"""

from __future__ import annotations

import json
from typing import Any, Literal

import msgspec

Outcome = Literal["passed", "failed", "skipped"]
State = Literal["running", "passed", "failed"]


class StepResult(msgspec.Struct, omit_defaults=True):
    """One step as it ran: ``index`` counts results from 1; ``where`` is the step's key path
    in the file and ``iteration`` the repeat indexes around it (outermost first); ``instant``
    the merchant's clock after it; on failure ``error``, and ``request`` and ``answer`` (of a
    call or act) or ``report`` (the expectations' failed items)."""

    index: int
    where: str
    kind: str
    summary: str
    outcome: Outcome
    ms: float = 0.0
    instant: str | None = None
    iteration: list[int] = []
    error: str | None = None
    request: dict[str, Any] | None = None
    answer: dict[str, Any] | None = None
    report: list[str] | None = None


class Report(msgspec.Struct, omit_defaults=True):
    """A run: ``state`` is running until it ends passed or failed; ``error`` says why a run
    failed before or outside its steps (its merchant could not be made, say)."""

    id: str
    flow: str
    state: State = "running"
    source: str = "<text>"
    merchant: str | None = None
    ms: float = 0.0
    steps: list[StepResult] = []
    error: str | None = None
    kept: bool = False

    @property
    def passed(self) -> bool:
        return self.state == "passed"


def step_line(step: StepResult) -> str:
    """``  3 passed   12.4 ms  2026-03-02T08:00:00Z  advance 3d``."""
    at = step.instant or "-"
    loop = f" (i={','.join(str(i) for i in step.iteration)})" if step.iteration else ""
    return f"{step.index:>4} {step.outcome:<7} {step.ms:>8.1f} ms  {at}  {step.summary}{loop}"


def failure_text(step: StepResult) -> str:
    """The failed step: where, what, the request and answer, the expectations' report."""
    lines = [f"step {step.where} ({step.kind}) failed: {step.error or 'failed'}"]
    if step.request is not None:
        lines.append("request: " + _short(step.request))
    if step.answer is not None:
        lines.append("answer: " + _short(step.answer))
    lines.extend(f"  - {sentence}" for sentence in step.report or ())
    return "\n".join(lines)


def _short(value: Any, limit: int = 2000) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def text(report: Report) -> str:
    """The whole run as lines: a header, a line per step, each failure's details."""
    head = f"flow {report.flow} ({report.source}): {report.state} in {report.ms:.1f} ms"
    if report.merchant:
        head += f", merchant {report.merchant}" + (" (kept)" if report.kept else "")
    lines = [head, *(step_line(s) for s in report.steps)]
    if report.error:
        lines.append(f"error: {report.error}")
    lines.extend(failure_text(s) for s in report.steps if s.outcome == "failed")
    return "\n".join(lines)


def junit(reports: list[Report]) -> bytes:
    """JUnit XML: a suite of one test case per run, a failed run's text as its failure."""
    failed = sum(1 for r in reports if not r.passed)
    seconds = f"{sum(r.ms for r in reports) / 1000:.3f}"
    import xml.etree.ElementTree as ET  # a JUnit file only: not imported by serve's start

    suites = ET.Element("testsuites", tests=str(len(reports)), failures=str(failed))
    suite = ET.SubElement(
        suites, "testsuite", name="flows", tests=str(len(reports)), failures=str(failed),
        errors="0", skipped="0", time=seconds,
    )  # fmt: skip
    for report in reports:
        case = ET.SubElement(
            suite, "testcase", classname="flows", name=report.flow, time=f"{report.ms / 1000:.3f}"
        )
        if not report.passed:
            first = report.error or next(
                (s.error or "failed" for s in report.steps if s.outcome == "failed"), "failed"
            )
            failure = ET.SubElement(case, "failure", message=first[:500], type="FlowFailed")
            failure.text = text(report)
    ET.indent(suites)
    data: bytes = ET.tostring(suites, encoding="utf-8", xml_declaration=True)
    return data
