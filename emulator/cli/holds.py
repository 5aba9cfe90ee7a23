"""``payments-emulator holds create|list|show|release|drop|duplicate|delay``: a merchant's
holds (``POST /_emulator/merchants/{company_id}/holds`` and the rest): hold the next delivery
or decision, look at it, let it go (edited, or with another outcome), drop, duplicate or delay
it."""

from __future__ import annotations

import argparse
from typing import Any

from emulator.cli.arguments import merchant_option
from emulator.cli.client import Context, UsageError, client_parent, company_segment, segment
from emulator.cli.durations import parse_duration

MERCHANT_HELP = "the merchant (default: the default merchant)"


def add_command(commands: Any) -> None:
    holds = commands.add_parser("holds", help="hold a delivery or a decision, then let it go")
    actions = holds.add_subparsers(dest="action", required=True)

    def action(name: str, help_text: str, *, hold_id: bool = True) -> argparse.ArgumentParser:
        parser: argparse.ArgumentParser = actions.add_parser(
            name, parents=[client_parent()], help=help_text
        )
        merchant_option(parser, MERCHANT_HELP)
        if hold_id:
            parser.add_argument("hold_id", metavar="HOLD_ID")
        return parser

    create = action("create", "hold the next delivery, or decision at a point", hold_id=False)
    create.add_argument(
        "kind", metavar="KIND", help="delivery, purchase.payment, collection.outcome, ..."
    )
    create.add_argument("--match", metavar="JSON", help='the filter: {"event_type": "..."}')
    create.add_argument("--count", type=int, metavar="N", help="take this many (default 1)")
    create.add_argument(
        "--hold-timeout", type=int, metavar="SECONDS", help="then --on-timeout (clock seconds)"
    )
    create.add_argument("--on-timeout", choices=("release", "drop"))
    create.set_defaults(handler=holds_create)
    action("list", "a merchant's holds", hold_id=False).set_defaults(handler=holds_list)
    action("show", "a hold and what it holds").set_defaults(handler=holds_show)
    release = action("release", "let it go: as is, edited, or with another outcome")
    release.add_argument("--body", metavar="JSON", help="a delivery's new body")
    release.add_argument(
        "--header", action="append", default=[], metavar="NAME:VALUE", help="a header to set"
    )
    release.add_argument(
        "--no-resign", action="store_true", help="send an edited body with its old signature"
    )
    release.add_argument("--status", help="a decision's outcome: UNPAID, REJECTED, ...")
    release.add_argument("--reason-code", help="an unpaid's or dispute's code (18, 02, ...)")
    release.add_argument("--result", help="a card payment's result: paid, declined, 3ds_failed")
    release.add_argument("--reason", help="a decline's reason, or a bank outcome's text")
    release.set_defaults(handler=holds_release)
    action("drop", "drop it: it never happens").set_defaults(handler=holds_drop)
    duplicate = action("duplicate", "send the held delivery N times (same event id)")
    duplicate.add_argument("--times", type=int, default=2, metavar="N")
    duplicate.set_defaults(handler=holds_duplicate)
    delay = action("delay", "let it go later on the merchant's clock")
    delay.add_argument("duration", metavar="DURATION", help="like 1h, 90m, 2d")
    delay.set_defaults(handler=holds_delay)


def _json(text: str, what: str) -> Any:
    import msgspec

    try:
        return msgspec.json.decode(text.encode())
    except msgspec.DecodeError:
        raise UsageError(f"{what}: not JSON: {text[:64]!r}") from None


def _path(context: Context, *rest: str) -> str:
    company_id = context.merchant_record().company_id
    return "/".join(("merchants", company_segment(company_id, "--merchant"), "holds", *rest))


def _item_line(item: dict[str, Any]) -> str:
    message = item.get("message")
    if message:
        what = f"{message['event_type']} of {message['object_id']} to {message['url']}"
    else:
        what = f"{item.get('point')} (default {item.get('default_outcome')})"
    return f"  {item['state']}: {what}, held at {item['held_at']}"


def _lines(hold: dict[str, Any]) -> list[str]:
    head = (
        f"{hold['id']} {hold['kind']} {hold['state']} ({hold['remaining']} of {hold['count']} left)"
    )
    return [head, *(_item_line(item) for item in hold["items"])]


def holds_create(context: Context, args: argparse.Namespace) -> int:
    body: dict[str, Any] = {"kind": args.kind}
    if args.match is not None:
        body["match"] = _json(args.match, "--match")
    if args.count is not None:
        body["count"] = args.count
    if args.hold_timeout is not None:
        body["timeout_seconds"] = args.hold_timeout
    if args.on_timeout is not None:
        body["on_timeout"] = args.on_timeout
    answer = context.call("POST", _path(context), json=body)
    context.emit(answer, _lines(answer))
    return 0


def holds_list(context: Context, args: argparse.Namespace) -> int:
    answer = context.call("GET", _path(context))
    lines = [line for hold in answer["holds"] for line in _lines(hold)]
    context.emit(answer, lines or ["no holds"])
    return 0


def holds_show(context: Context, args: argparse.Namespace) -> int:
    answer = context.call("GET", _path(context, segment(args.hold_id, "HOLD_ID")))
    context.emit(answer, _lines(answer))
    return 0


def _act(context: Context, args: argparse.Namespace, action: str, body: dict[str, Any]) -> int:
    path = _path(context, segment(args.hold_id, "HOLD_ID"), action)
    answer = context.call("POST", path, json=body)
    context.emit(answer, _lines(answer))
    return 0


def holds_release(context: Context, args: argparse.Namespace) -> int:
    body: dict[str, Any] = {}
    if args.body is not None:
        body["body"] = _json(args.body, "--body")
    headers: dict[str, str] = {}
    for given in args.header:
        name, colon, value = given.partition(":")
        if not colon or not name.strip():
            raise UsageError(f"--header {given[:64]!r}: give NAME:VALUE")
        headers[name.strip()] = value.strip()
    if headers:
        body["headers"] = headers
    if args.no_resign:
        body["resign"] = False
    for name, key in (
        ("status", "status"),
        ("reason_code", "reasonCode"),
        ("result", "result"),
        ("reason", "reason"),
    ):
        value = getattr(args, name)
        if value is not None:
            body[key] = value
    return _act(context, args, "release", body)


def holds_drop(context: Context, args: argparse.Namespace) -> int:
    return _act(context, args, "drop", {})


def holds_duplicate(context: Context, args: argparse.Namespace) -> int:
    return _act(context, args, "duplicate", {"times": args.times})


def holds_delay(context: Context, args: argparse.Namespace) -> int:
    return _act(context, args, "delay", parse_duration(args.duration))
