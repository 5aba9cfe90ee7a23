"""``payments-emulator flow run FILE_OR_DIR... [--parallel N] [--junit PATH] [--keep]``: run
flow files against a running emulator, each on a fresh merchant of its own (deleted at the
end unless ``--keep``): a line per step with its outcome, timing and the merchant's instant; a
failure shows the step, the request and answer, and the expectations' report. Exit 0 when
every flow passed, 1 when one failed, 2 on a bad file. ``flow check FILE...`` reads and checks
files without running them (exit 0, or 2 naming the first error)."""

from __future__ import annotations

import argparse
import os
import re
import sys
from pathlib import Path
from typing import Any

from emulator.cli.client import PROG, Context, UsageError, client_parent, printable, usage_failure

MAX_PARALLEL = 64


def add_command(commands: Any) -> None:
    flow = commands.add_parser("flow", help="run or check flow files (a payment story in YAML)")
    actions = flow.add_subparsers(dest="action", required=True)
    run = actions.add_parser(
        "run", parents=[client_parent()], help="run flow files, each on a fresh merchant"
    )
    run.add_argument("paths", nargs="+", metavar="FILE_OR_DIR", help="flow files or folders")
    run.add_argument(
        "--parallel", type=_parallel, default=1, metavar="N", help="run N flows at a time"
    )
    run.add_argument("--junit", metavar="PATH", help="write a JUnit XML report here")
    run.add_argument(
        "--keep", action="store_true", help="keep each run's merchant (default: delete it)"
    )
    run.set_defaults(handler=run_command)
    check = actions.add_parser("check", help="check flow files without running them")
    check.add_argument("paths", nargs="+", metavar="FILE_OR_DIR", help="flow files or folders")


def _parallel(text: str) -> int:
    if not text.isdigit() or not 1 <= int(text) <= MAX_PARALLEL:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number from 1 to {MAX_PARALLEL}")
    return int(text)


def _one_line(text: str) -> str:
    """PyYAML's message (its lines, a snippet, a caret) as one line."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return re.sub(r"\s+", " ", "; ".join(lines))


def read(paths: list[str]) -> list[Any]:
    """Every flow named, checked (paths against the routes the app serves); ``UsageError``
    naming the first bad one."""
    from emulator.flows import library
    from emulator.flows.parse import FlowError
    from emulator.serving.app import route_table

    routes = library.routes_of(route_table())
    try:
        found = library.files(paths)
        if not found:
            raise UsageError(f"no flow files (*.yaml, *.yml) in {', '.join(paths)}")
        return [library.read(path, routes) for path in found]
    except FlowError as exc:
        raise UsageError(_one_line(str(exc))) from None


def check_command(args: argparse.Namespace) -> int:
    try:
        flows = read(args.paths)
    except UsageError as exc:
        return usage_failure(False, str(exc))
    for flow in flows:
        print(printable(f"ok {flow.source}: {flow.name} ({len(flow.spec.steps)} steps)"))
    return 0


def run_command(context: Context, args: argparse.Namespace) -> int:
    from emulator.flows import batch
    from emulator.flows.report import Report, StepResult, junit, step_line, text

    flows = read(args.paths)
    context.call("GET", "health")  # an emulator answers there: one line if none does
    token = getattr(args, "admin_token", None) or os.environ.get("EMULATOR_ADMIN_TOKEN")
    live = args.parallel == 1 and not context.json

    def on_step(report: Report, step: StepResult) -> None:
        if live:
            print(printable(step_line(step)), flush=True)

    def on_done(report: Report) -> None:
        if context.json:
            return
        if live:
            lines = text(report).splitlines()
            print(printable(lines[0]), flush=True)
            for line in lines[1 + len(report.steps) :]:
                print(printable(line), flush=True)
        else:
            for line in text(report).splitlines():
                print(printable(line), flush=True)

    async def main() -> list[Report]:
        async with batch.client(context.url, timeout=context.timeout.read or 30.0) as http:
            if live:
                print(f"running {len(flows)} flow(s) against {context.url}", flush=True)
            return await batch.run_all(
                flows, http, token, parallel=args.parallel, keep=args.keep,
                on_step=on_step, on_done=on_done,
            )  # fmt: skip

    import asyncio

    reports = asyncio.run(main())
    if args.junit is not None:
        try:
            Path(args.junit).write_bytes(junit(reports))
        except OSError as exc:
            raise UsageError(f"--junit {args.junit}: {exc.strerror or exc}") from None
    failed = [r for r in reports if not r.passed]
    if context.json:
        import msgspec

        context.emit({"passed": not failed, "runs": msgspec.to_builtins(reports)}, [])
    else:
        print(f"{len(reports) - len(failed)} of {len(reports)} flow(s) passed", flush=True)
    if failed:
        names = ", ".join(r.flow for r in failed)
        print(f"{PROG}: failed: {printable(names)}", file=sys.stderr, flush=True)
        return 1
    return 0
