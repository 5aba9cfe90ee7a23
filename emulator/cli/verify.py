"""``payments-emulator verify FILE --merchant ID [--wait 10s] [--advance-up-to 7d] [--junit
PATH]``: check a merchant's expectations (the file holds the verify body, YAML or JSON:
``expect:`` and optionally ``in_order:``), or wait for them. Exit 0 when all hold, 1 when not
(the report on stderr), 2 on a bad file. ``--junit`` writes one test case per expectation,
the report's sentence as its failure."""

from __future__ import annotations

import argparse
import dataclasses
import re
import sys
from pathlib import Path
from typing import Any

from emulator.cli.arguments import merchant_option
from emulator.cli.client import Context, UsageError, client_parent
from emulator.cli.durations import duration_seconds, parse_duration


def add_command(commands: Any) -> None:
    verify = commands.add_parser(
        "verify",
        parents=[client_parent()],
        help="check a merchant's expectations (a YAML or JSON file); --wait for them",
    )
    verify.add_argument("file", metavar="FILE", help="the expectations: expect: [...]")
    merchant_option(verify, "the merchant (default: the default merchant)")
    verify.add_argument(
        "--wait", metavar="DURATION", help="wait up to this long (real time) for them to hold"
    )
    verify.add_argument(
        "--advance-up-to",
        metavar="DURATION",
        help="while waiting, step the merchant's own clock job by job, at most this far",
    )
    verify.add_argument("--junit", metavar="PATH", help="write a JUnit XML report here")
    verify.set_defaults(handler=verify_command)


def _read(path: str) -> dict[str, Any]:
    from emulator.scenarios.yamlfile import YamlRefused, load  # PyYAML: only for this verb

    try:
        raw = Path(path).read_bytes()
    except OSError as exc:
        raise UsageError(f"{path}: {exc.strerror or exc}") from None
    try:
        document, _ = load(raw)
    except YamlRefused as exc:
        raise UsageError(f"{path}: {_one_line(str(exc))}") from None
    if not isinstance(document, dict):
        raise UsageError(f"{path}: must be a mapping with 'expect:', a list of expectations")
    return document


def _one_line(text: str) -> str:
    """PyYAML's message (its lines, a snippet, a caret) as one line, with its position."""
    lines = text.splitlines()
    said = "; ".join(line.strip() for line in lines if line and not line[0].isspace())
    where = re.search(r"line (\d+), column (\d+)", text)
    return f"{said} (line {where[1]}, column {where[2]})" if where and len(lines) > 1 else said


def verify_command(context: Context, args: argparse.Namespace) -> int:
    body = _read(args.file)
    verb = "verify"
    timeout = None
    if args.wait is not None or args.advance_up_to is not None:
        verb = "wait"
        timeout = duration_seconds(parse_duration(args.wait or "10s"))
        body["timeout_seconds"] = timeout
        if args.advance_up_to is not None:
            up_to = duration_seconds(parse_duration(args.advance_up_to))
            body["advance"] = {"up_to": up_to}
    company_id = context.merchant_record().company_id
    extra: dict[str, Any] = {} if timeout is None else {"timeout": timeout + 30.0}
    from emulator.testing.records import EmulatorError

    response = context.client.http.post(f"merchants/{company_id}/{verb}", json=body, **extra)
    if response.status_code == 400:
        raise UsageError(f"{args.file}: {EmulatorError(response).message}")
    if response.is_error:
        raise EmulatorError(response)
    answer: dict[str, Any] = response.json()
    if args.junit is not None:
        write_junit(Path(args.junit), args.file, answer)
    lines = report_lines(answer)
    if context.json:
        context.emit(answer, [])
    elif answer["ok"]:
        print("\n".join(lines))
    if not answer["ok"]:
        print("\n".join(lines), file=sys.stderr)
        return 1
    return 0


def _name(result: dict[str, Any]) -> str:
    label = f"[{result['index']}]"
    return f"{label} {result['id']}" if result.get("id") else f"{label} {result['description']}"


def report_lines(answer: dict[str, Any]) -> list[str]:
    results = answer["results"]
    held = sum(1 for r in results if r["ok"])
    head = f"{held} of {len(results)} expectation{'' if len(results) == 1 else 's'} held"
    if answer.get("at"):
        head += f" (at {answer['at']})"
    elif answer.get("timed_out"):
        head += " (timed out)"
    lines = [head]
    for result in results:
        mark = "ok    " if result["ok"] else "FAILED"
        lines.append(f"  {mark} {_name(result)}: {result.get('message') or result['description']}")
    return lines


def write_junit(path: Path, source: str, answer: dict[str, Any]) -> None:
    """One test case per expectation; a failed one holds the report's sentence."""
    cases: list[Case] = []
    for result in answer["results"]:
        if result["ok"]:
            cases.append(Case(_name(result)))
            continue
        message = str(result.get("message") or result["description"])
        details = [message]
        details += [
            f"closest: {c['ref']} at {c['at']}: {', '.join(c['differs'])}"
            for c in result.get("candidates") or []
        ]
        cases.append(Case(_name(result), message, "\n".join(details)))
    suite = f"expectations: {source}"
    classname = f"expectations.{Path(source).stem}"
    write_cases(path, suite, classname, cases, str(answer.get("now", "")), "ExpectationFailed")


@dataclasses.dataclass(frozen=True)
class Case:
    """One JUnit test case: its name, and for a failure its message and text."""

    name: str
    failure: str | None = None
    text: str = ""
    out: str = ""


def write_cases(
    path: Path, suite_name: str, classname: str, cases: list[Case], timestamp: str, kind: str
) -> None:
    """A JUnit XML file of one suite (``kind``: the failures' ``type``)."""
    import xml.etree.ElementTree as ET

    failures = sum(1 for c in cases if c.failure is not None)
    suites = ET.Element("testsuites", tests=str(len(cases)), failures=str(failures))
    suite = ET.SubElement(
        suites,
        "testsuite",
        name=suite_name,
        tests=str(len(cases)),
        failures=str(failures),
        errors="0",
        skipped="0",
        timestamp=timestamp,
    )
    for one in cases:
        case = ET.SubElement(suite, "testcase", classname=classname, name=one.name)
        if one.failure is not None:
            failure = ET.SubElement(case, "failure", message=one.failure, type=kind)
            failure.text = one.text
        if one.out:
            ET.SubElement(case, "system-out").text = one.out
    ET.indent(suites)
    try:
        ET.ElementTree(suites).write(path, encoding="utf-8", xml_declaration=True)
    except OSError as exc:
        raise UsageError(f"--junit {path}: {exc.strerror or exc}") from None
