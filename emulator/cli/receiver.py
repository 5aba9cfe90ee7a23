"""``payments-emulator check-receiver URL [--merchant ID] [--bank] [--receiver-timeout S]
[--junit PATH]``: score the app's receiver (``POST /_emulator/receiver-checks``). Prints one
line per check and the score; exit 0 when no check failed (warnings pass), 1 when one did.
``--junit`` writes one test case per check (a warning passes, its reason in ``system-out``)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from emulator.cli.arguments import merchant_option
from emulator.cli.client import Context, UsageError, client_parent
from emulator.cli.verify import Case, write_cases

MARKS = {"pass": "ok  ", "warn": "WARN", "fail": "FAIL"}


def add_command(commands: Any) -> None:
    check = commands.add_parser(
        "check-receiver",
        parents=[client_parent()],
        help="score the app's webhook receiver: signed probes, each answer judged",
    )
    check.add_argument("target", metavar="URL", help="the app's webhook receiver")
    merchant_option(check, "whose webhook key signs (default: the default merchant)")
    check.add_argument(
        "--bank", action="store_true", help="send bank callbacks (unsigned) instead of webhooks"
    )
    check.add_argument(
        "--receiver-timeout",
        metavar="SECONDS",
        type=float,
        default=None,
        help="how long each answer may take (default 5, the platform's)",
    )
    check.add_argument("--junit", metavar="PATH", help="write a JUnit XML report here")
    check.set_defaults(handler=check_command)


def check_command(context: Context, args: argparse.Namespace) -> int:
    body: dict[str, Any] = {"url": args.target}
    if context.merchant is not None:
        body["merchant"] = context.merchant
    if args.bank:
        body["bank"] = True
    if args.receiver_timeout is not None:
        body["timeout_seconds"] = args.receiver_timeout
    # Each message may take the receiver's timeout: the answer may take a while.
    from emulator.testing.records import EmulatorError

    response = context.client.http.post("receiver-checks", json=body, timeout=120.0)
    if response.status_code == 400:
        raise UsageError(EmulatorError(response).message)
    if response.is_error:
        raise EmulatorError(response)
    report: dict[str, Any] = response.json()
    if args.junit is not None:
        write_junit(Path(args.junit), report)
    failed = any(c["result"] == "fail" for c in report["checks"])
    lines = report_lines(report)
    context.emit(report, lines)
    return 1 if failed else 0


def report_lines(report: dict[str, Any]) -> list[str]:
    width = max(len(c["name"]) for c in report["checks"])
    lines = [f"score {report['score']}/100 for {report['url']} ({report['signed_with']})"]
    lines += [f"  {MARKS[c['result']]} {c['name']:<{width}}  {c['why']}" for c in report["checks"]]
    return lines


def write_junit(path: Path, report: dict[str, Any]) -> None:
    cases = [
        Case(c["name"], c["why"], c["why"])
        if c["result"] == "fail"
        else Case(c["name"], out=f"{c['result']}: {c['why']}")
        for c in report["checks"]
    ]
    suite = f"receiver check: {report['url']} (score {report['score']})"
    write_cases(path, suite, "receiver_check", cases, "", "ReceiverCheckFailed")
