"""``payments-emulator deliveries list|replay|recover|endpoints|endpoint|auto-disable``: the
delivery log filtered, replay and recover in bulk, endpoints switched off and on, a merchant's
auto-disable (``docs/webhooks.md``, "Replay, recover, switch off")."""

from __future__ import annotations

import argparse
from typing import Any

from emulator.cli.arguments import merchant_option
from emulator.cli.client import Context, UsageError, client_parent, company_segment, segment
from emulator.cli.durations import parse_instant

OUTCOMES = ("ok", "failed", "exhausted")
KINDS = ("webhook", "success_callback", "callback")


def _filters(parser: argparse.ArgumentParser, *, outcome: bool = True) -> None:
    merchant_option(parser, "only that merchant's deliveries")
    parser.add_argument("--event-type", metavar="TYPE", help="only this event or callback type")
    if outcome:
        parser.add_argument("--outcome", choices=OUTCOMES, help="ok, failed or exhausted")
    parser.add_argument("--object-id", metavar="ID", help="only deliveries about this object")
    parser.add_argument("--endpoint-url", metavar="URL", help="only deliveries to this URL")
    parser.add_argument("--since", metavar="ISO", help="from this instant (the merchant's clock)")
    parser.add_argument("--until", metavar="ISO", help="up to this instant")


def add_command(commands: Any) -> None:
    parent = client_parent()
    deliveries = commands.add_parser(
        "deliveries", parents=[parent], help="the delivery log; replay, recover, switch off"
    )
    verbs = deliveries.add_subparsers(dest="deliveries_verb", required=True)
    listed = verbs.add_parser("list", parents=[parent], help="delivery attempts, newest first")
    _filters(listed)
    listed.add_argument("--kind", choices=KINDS)
    listed.add_argument("--limit", type=int, default=100, metavar="N", help="at most N (100)")
    listed.set_defaults(handler=deliveries_list)
    replay = verbs.add_parser(
        "replay", parents=[parent], help="send the messages the filter picks again"
    )
    _filters(replay)
    replay.set_defaults(handler=deliveries_replay)
    recover = verbs.add_parser(
        "recover", parents=[parent], help="send again what failed since --since"
    )
    _filters(recover, outcome=False)
    recover.set_defaults(handler=deliveries_recover)
    shown = verbs.add_parser(
        "endpoints", parents=[parent], help="endpoints switched off, what they keep"
    )
    merchant_option(shown, "only that merchant's")
    shown.set_defaults(handler=endpoints_show)
    endpoint = verbs.add_parser(
        "endpoint", parents=[parent], help="switch a webhook (or --callback) off or on"
    )
    endpoint.add_argument("state", choices=("off", "on"))
    endpoint.add_argument("id", metavar="ID", help="the webhook's id (or registration's)")
    endpoint.add_argument(
        "--callback", action="store_true", help="ID is a v2 callback registration's"
    )
    endpoint.add_argument("--drop", action="store_true", help="off: drop, do not keep")
    endpoint.set_defaults(handler=endpoint_switch)
    auto = verbs.add_parser(
        "auto-disable", parents=[parent], help="switch endpoints off after N days of failures"
    )
    auto.add_argument("company_id", metavar="COMPANY_ID")
    auto.add_argument("days", metavar="DAYS|never")
    auto.set_defaults(handler=auto_disable)


def _body(context: Context, args: argparse.Namespace) -> dict[str, Any]:
    body: dict[str, Any] = {}
    if context.merchant is not None:
        body["merchant"] = context.merchant
    for key, value in (
        ("event_type", args.event_type),
        ("outcome", getattr(args, "outcome", None)),
        ("object_id", args.object_id),
        ("url", args.endpoint_url),
    ):
        if value is not None:
            body[key] = value
    for key in ("since", "until"):
        value = getattr(args, key)
        if value is not None:
            body[key] = parse_instant(value, f"--{key}")
    return body


def deliveries_list(context: Context, args: argparse.Namespace) -> int:
    if not 1 <= args.limit <= 1000:
        raise UsageError("--limit: from 1 to 1000")
    query = {**_body(context, args), "limit": args.limit}
    if args.kind is not None:
        query["kind"] = args.kind
    found = context.call("GET", "deliveries", params=query)["deliveries"]
    lines = []
    for d in found:
        answer = d["status"] if d["status"] is not None else d["error"]
        replay = f", replay of message {d['replay_of']}" if "replay_of" in d else ""
        lines.append(
            f"{d['at']} #{d['id']} {d['kind']} {d['event_type']} {d['object_id']} -> {d['url']}:"
            f" {answer} (attempt {d['attempt']}{replay})"
        )
    context.emit(found, lines or ["no deliveries"])
    return 0


def _replayed(context: Context, answer: dict[str, Any], verb: str) -> int:
    lines = [
        f"{verb} {r['event_type']} {r['object_id']} -> {r['url']}"
        f" (message {r['message_id']}, replay of {r['replay_of']})"
        for r in answer["replayed"]
    ]
    more = " (more matched: run it again)" if answer["truncated"] else ""
    lines.append(f"{answer['count']} message(s) sent again{more}")
    context.emit(answer, lines)
    return 0


def deliveries_replay(context: Context, args: argparse.Namespace) -> int:
    answer = context.call("POST", "deliveries/replay", json=_body(context, args))
    return _replayed(context, answer, "replayed")


def deliveries_recover(context: Context, args: argparse.Namespace) -> int:
    if args.since is None:
        raise UsageError("deliveries recover: give --since ISO")
    if context.merchant is None and args.endpoint_url is None:
        raise UsageError("deliveries recover: give --merchant or --endpoint-url")
    answer = context.call("POST", "deliveries/recover", json=_body(context, args))
    return _replayed(context, answer, "recovered")


def endpoints_show(context: Context, args: argparse.Namespace) -> int:
    query = {"merchant": context.merchant} if context.merchant is not None else None
    answer = context.call("GET", "endpoints", params=query)
    lines = [
        f"{e['kind']} {e['id']}: {'on' if e['enabled'] else 'off'}"
        f"{' (drop)' if e['drop'] else ''}{' (auto-disabled)' if e['reason'] else ''}"
        f" since {e['changed_at']}"
        for e in answer["endpoints"]
    ]
    held = sum(1 for k in answer["kept"] if k["outcome"] == "held")
    lines.append(f"{len(answer['endpoints'])} endpoint(s) switched; {held} message(s) held")
    context.emit(answer, lines)
    return 0


def endpoint_switch(context: Context, args: argparse.Namespace) -> int:
    if args.drop and args.state == "on":
        raise UsageError("deliveries endpoint: --drop goes with off")
    what = "callbacks" if args.callback else "webhooks"
    body = {"enabled": args.state == "on", "drop": args.drop}
    answer = context.call("PUT", f"{what}/{segment(args.id, 'ID')}/state", json=body)
    line = f"{answer['kind']} {answer['id']} switched {args.state} at {answer['at']}"
    if args.state == "on":
        line += f": {answer['released']} held message(s) sent"
    elif args.drop:
        line += ": what comes is dropped"
    context.emit(answer, [line])
    return 0


def auto_disable(context: Context, args: argparse.Namespace) -> int:
    days: int | None = None
    if args.days != "never":
        try:
            days = int(args.days)
        except ValueError:
            raise UsageError(f"DAYS: {args.days!r} is not a number of days, or never") from None
    path = f"merchants/{company_segment(args.company_id, 'COMPANY_ID')}/delivery-settings"
    answer = context.call("PUT", path, json={"auto_disable_after_days": days})
    after = answer["auto_disable_after_days"]
    how = "never" if after is None else f"after {after} day(s) of only failures"
    context.emit(answer, [f"merchant {args.company_id}: endpoints auto-disabled {how}"])
    return 0
