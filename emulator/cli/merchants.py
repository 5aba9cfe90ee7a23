"""``payments-emulator merchants delete COMPANY_ID`` and ``merchants clock COMPANY_ID``:
deleting a merchant, and giving one its own clock."""

from __future__ import annotations

import argparse
from typing import Any

from emulator.cli.client import Context, UsageError, client_parent, company_segment
from emulator.cli.durations import parse_instant


def add_merchant_actions(actions: Any) -> None:
    """``delete`` and ``clock`` under ``merchants``."""
    parent = client_parent()
    delete = actions.add_parser(
        "delete", parents=[parent], help="delete a merchant and everything of it"
    )
    delete.add_argument("company_id", metavar="COMPANY_ID")
    delete.set_defaults(handler=merchants_delete)
    clock = actions.add_parser(
        "clock", parents=[parent], help="show a merchant's clock, or give it its own (--own)"
    )
    clock.add_argument("company_id", metavar="COMPANY_ID")
    clock.add_argument(
        "--own",
        action="store_true",
        help="give it a clock of its own (or set its own anew), running unless --frozen,"
        " at the server clock's instant unless --at",
    )
    clock.add_argument("--frozen", action="store_true", help="its own clock stands still")
    clock.add_argument("--at", metavar="ISO", help="its own clock's instant")
    clock.set_defaults(handler=merchants_clock)


def _path(company_id: str, *rest: str) -> str:
    """A merchant's control-plane path, its id one path segment whatever it holds."""
    return "/".join(("merchants", company_segment(company_id, "company_id"), *rest))


def merchants_delete(context: Context, args: argparse.Namespace) -> int:
    answer = context.call("DELETE", _path(args.company_id))
    rows = sum(int(count) for count in answer.get("removed", {}).values())
    context.emit(answer, [f"deleted merchant {args.company_id} ({rows} row(s))"])
    return 0


def merchants_clock(context: Context, args: argparse.Namespace) -> int:
    if (args.frozen or args.at is not None) and not args.own:
        raise UsageError("merchants clock: --frozen and --at go with --own")
    if args.own:
        body: dict[str, Any] = {"mode": "frozen" if args.frozen else "real"}
        if args.at is not None:
            body["now"] = parse_instant(args.at, "--at")
        answer = context.call("PUT", _path(args.company_id, "clock"), json=body)
    else:
        answer = context.call("GET", _path(args.company_id, "clock"))
    whose = "its own clock" if answer.get("own") else "following the server clock"
    line = f"{answer['now']} {answer['mode']} (merchant {args.company_id}, {whose})"
    context.emit(answer, [line])
    return 0
