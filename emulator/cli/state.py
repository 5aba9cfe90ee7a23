"""``payments-emulator export`` and ``import FILE``: the state as a readable file, and back;
``states``: the named states of the emulator's ``--states`` folder, and loading one."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from emulator.cli.client import Context, UsageError, client_parent, segment

FORMATS = ("yaml", "json")


def add_commands(commands: Any) -> None:
    parent = client_parent()
    export = commands.add_parser(
        "export",
        parents=[parent],
        help="print the whole state (or --merchant's) as YAML or JSON: export > state.yaml",
    )
    export.add_argument("--merchant", metavar="COMPANY_ID", help="only this merchant")
    export.add_argument("--format", choices=FORMATS, default="yaml", help="default yaml")
    export.add_argument("-o", "--output", type=Path, metavar="FILE", help="write it there")
    export.set_defaults(handler=export_state)
    load = commands.add_parser(
        "import",
        parents=[parent],
        help="load a state file (all or nothing; each merchant in it replaces the one with"
        " its id); - reads standard input",
    )
    load.add_argument("file", metavar="FILE")
    load.set_defaults(handler=import_state)
    states = commands.add_parser(
        "states", parents=[parent], help="list the named states, or load one (NAME)"
    )
    states.add_argument("name", nargs="?", metavar="NAME", help="load this named state")
    states.set_defaults(handler=named_states)


def export_state(context: Context, args: argparse.Namespace) -> int:
    merchant = context.merchant
    text = context.client.export_state(merchant, format=args.format)
    if args.output is None:
        sys.stdout.write(text)
        return 0
    try:
        args.output.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"--output {args.output}: {exc.strerror or exc}") from None
    context.emit({"written": str(args.output)}, [f"wrote {args.output}"])
    return 0


def import_state(context: Context, args: argparse.Namespace) -> int:
    if args.file == "-":
        raw = sys.stdin.buffer.read()
    else:
        try:
            raw = Path(args.file).read_bytes()
        except OSError as exc:
            raise UsageError(f"{args.file}: {exc.strerror or exc}") from None
    answer = context.client.import_state(raw)
    count = len(answer.get("merchants", []))
    context.emit(answer, [f"loaded {args.file}: {count} merchant(s), clock {answer['now']}"])
    return 0


def named_states(context: Context, args: argparse.Namespace) -> int:
    if args.name is None:
        answer = context.call("GET", "states")
        context.emit(answer, list(answer["states"]) or ["no named states"])
        return 0
    answer = context.client.load_state(segment(args.name, "NAME"))
    count = len(answer.get("merchants", []))
    context.emit(answer, [f"loaded state {args.name}: {count} merchant(s)"])
    return 0
