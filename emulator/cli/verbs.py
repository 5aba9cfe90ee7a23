"""The control-plane verbs of ``payments-emulator`` for a running emulator: ``clock``,
``merchants``, ``reset``, ``snapshot`` and ``scenario activate|deactivate|load``."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from emulator.cli.arguments import checked_name, merchant_option
from emulator.cli.client import Context, UsageError, client_parent, printable
from emulator.cli.durations import duration_seconds, parse_duration, parse_instant
from emulator.cli.merchants import add_merchant_actions
from emulator.cli.progress import on_terminal, progress

STEPS = 20  # an advance shown with progress runs in this many steps
STEPPED_FROM = 3600.0  # seconds: shorter advances run in one request


def add_commands(commands: Any) -> None:
    """``clock``, ``merchants``, ``reset`` and ``snapshot`` under ``commands``."""
    parent = client_parent()
    clock = commands.add_parser(
        "clock", parents=[parent], help="show or move the server clock (or a merchant's)"
    )
    merchant_option(clock, "that merchant's own clock instead of the server clock")
    clock.set_defaults(handler=clock_show)
    verbs = clock.add_subparsers(dest="clock_verb")
    advance = verbs.add_parser("advance", parents=[parent], help="move forward, running due jobs")
    merchant_option(advance, "advance that merchant's own clock")
    advance.add_argument("duration", nargs="?", help="how far: 3d, 90m, 2h30m, 45s")
    advance.add_argument("--to", metavar="ISO", help="to this instant")
    advance.add_argument("--next", action="store_true", help="to the next scheduled job")
    advance.set_defaults(handler=clock_advance)
    freeze = verbs.add_parser("freeze", parents=[parent], help="stop the clock")
    merchant_option(freeze, "that merchant's own clock")
    freeze.add_argument("--at", metavar="ISO", help="jump there first (nothing runs on the way)")
    freeze.set_defaults(handler=clock_freeze)
    resume = verbs.add_parser("resume", parents=[parent], help="real time again")
    merchant_option(resume, "that merchant's own clock")
    resume.add_argument("--at", metavar="ISO", help="going on from this instant")
    resume.add_argument("--system", action="store_true", help="exactly on system time")
    resume.set_defaults(handler=clock_resume)

    merchants = commands.add_parser("merchants", parents=[parent], help="list or make merchants")
    merchants.set_defaults(handler=merchants_list)
    actions = merchants.add_subparsers(dest="merchants_verb")
    actions.add_parser("list", parents=[parent], help="every merchant").set_defaults(
        handler=merchants_list
    )
    create = actions.add_parser("create", parents=[parent], help="a new isolated merchant")
    create.add_argument("--name")
    create.add_argument("--clock", choices=("frozen", "real"), help="give it its own clock")
    create.add_argument("--now", metavar="ISO", help="its own clock's instant")
    create.add_argument(
        "--strict-requests",
        action="store_true",
        help="refuse (400) keys the platform ignores in its requests, not only warn of them",
    )
    create.set_defaults(handler=merchants_create)
    add_merchant_actions(actions)  # delete, clock: emulator/cli/merchants.py

    reset = commands.add_parser("reset", parents=[parent], help="wipe all state and reseed")
    reset.set_defaults(handler=reset_all)

    snapshot = commands.add_parser("snapshot", parents=[parent], help="save or restore state")
    snapshots = snapshot.add_subparsers(dest="snapshot_verb", required=True)
    for verb, text in (("save", "save the whole state"), ("restore", "put it back")):
        action = snapshots.add_parser(verb, parents=[parent], help=text)
        action.add_argument("name")
        action.set_defaults(handler=snapshot_verb)
    snapshots.add_parser("list", parents=[parent], help="saved snapshots").set_defaults(
        handler=snapshot_list
    )


def add_scenario_actions(actions: Any) -> None:
    """``scenario activate|deactivate NAME [--merchant]`` and ``scenario load FILE``."""
    parent = client_parent()
    for verb in ("activate", "deactivate"):
        action = actions.add_parser(
            verb, parents=[parent], help=f"{verb} a scenario on the running emulator"
        )
        action.add_argument("name")
        merchant_option(action, "for that merchant only (default: every merchant)")
        action.set_defaults(handler=scenario_switch)
    load = actions.add_parser("load", parents=[parent], help="load a scenario file into it")
    load.add_argument("file", type=Path)
    load.set_defaults(handler=scenario_load)


def _clock_path(context: Context, verb: str = "") -> str:
    base = "clock" if context.merchant is None else f"merchants/{context.merchant_segment}/clock"
    return f"{base}/{verb}" if verb else base


def _clock_line(answer: dict[str, Any], context: Context) -> str:
    whose = "server clock" if context.merchant is None else f"merchant {context.merchant}"
    own = answer.get("own")
    if own is not None:
        whose += ", its own clock" if own else ", following the server clock"
    return f"{answer['now']} {answer['mode']} ({whose})"


def clock_show(context: Context, args: argparse.Namespace) -> int:
    answer = context.call("GET", _clock_path(context))
    context.emit(answer, [_clock_line(answer, context)])
    return 0


def clock_advance(context: Context, args: argparse.Namespace) -> int:
    given = [args.duration is not None, args.to is not None, bool(args.next)]
    if sum(given) != 1:
        raise UsageError("clock advance: give one of DURATION, --to ISO or --next")
    path = _clock_path(context, "advance")
    if args.next:
        answer = context.call("POST", path, json={"to": "next"})
    elif args.to is not None:
        target = parse_instant(args.to, "--to")
        answer = _stepped(context, path, target=target)
    else:
        answer = _stepped(context, path, span=parse_duration(args.duration))
    lines = [f"{_clock_line(answer, context)}: {answer['jobs_run']} job(s) run"]
    if answer.get("next"):
        lines.append(f"  ran {answer['next']['kind']}: {answer['next']['description']}")
    if answer.get("stopped"):  # a hold took something on the way (docs/holds.md)
        lines.append(f"  stopped at {answer['stopped']['at']} by hold {answer['stopped']['hold']}")
    context.emit(answer, lines)
    return 0


def _stepped(
    context: Context,
    path: str,
    *,
    span: dict[str, float] | None = None,
    target: str | None = None,
) -> dict[str, Any]:
    """One advance; on a terminal, a long one runs in steps with a progress line (jobs run,
    the instant reached). The steps end where one request would: due jobs run in order."""
    final: dict[str, Any] = {"to": target} if target is not None else dict(span or {})
    if not on_terminal(context):
        return context.call("POST", path, json=final)
    if target is not None:
        from emulator.kernel.clock import parse_iso

        now = parse_iso(context.call("GET", _clock_path(context))["now"])
        seconds = (parse_iso(target) - now).total_seconds()
    else:
        seconds = duration_seconds(span or {})
    if seconds < STEPPED_FROM:
        return context.call("POST", path, json=final)
    jobs = 0
    step = seconds / STEPS
    with progress(True) as show:
        answer: dict[str, Any] = {}
        for index in range(STEPS):
            last = index == STEPS - 1
            body = final if last and target is not None else {"seconds": step}
            answer = context.call("POST", path, json=body)
            jobs += int(answer["jobs_run"])
            show(f"advancing: {jobs} job(s) run, at {answer['now']} ({index + 1}/{STEPS})")
            if answer.get("stopped"):
                break  # a hold stopped it: the steps go no further
    return {**answer, "jobs_run": jobs}


def clock_freeze(context: Context, args: argparse.Namespace) -> int:
    body = {"at": parse_instant(args.at, "--at")} if args.at is not None else None
    answer = context.call("POST", _clock_path(context, "freeze"), json=body)
    context.emit(answer, [_clock_line(answer, context)])
    return 0


def clock_resume(context: Context, args: argparse.Namespace) -> int:
    if args.at is not None and args.system:
        raise UsageError("clock resume: --at and --system exclude each other")
    body: dict[str, Any] | None = None
    if args.at is not None:
        body = {"at": parse_instant(args.at, "--at")}
    elif args.system:
        body = {"system": True}
    answer = context.call("POST", _clock_path(context, "resume"), json=body)
    context.emit(answer, [_clock_line(answer, context)])
    return 0


def _merchant_lines(merchant: dict[str, Any]) -> list[str]:
    clock = merchant.get("clock") or {}
    whose = "own clock" if clock.get("own") else "server clock"
    profiles = ", ".join(p["profileCode"] for p in merchant.get("profiles", []))
    return [
        f"{merchant['company_id']}  {merchant['name']}",
        f"  api_key        {merchant['api_key']}",
        f"  client_id      {merchant['client_id']}",
        f"  client_secret  {merchant['client_secret']}",
        f"  brand_id       {merchant['brand_id']}",
        f"  profiles       {profiles}",
        f"  clock          {clock.get('now')} {clock.get('mode')} ({whose})",
    ]


def merchants_list(context: Context, args: argparse.Namespace) -> int:
    answer = context.call("GET", "merchants")
    lines = [line for m in answer["merchants"] for line in _merchant_lines(m)]
    context.emit(answer, lines)
    return 0


def merchants_create(context: Context, args: argparse.Namespace) -> int:
    body: dict[str, Any] = {"name": args.name} if args.name is not None else {}
    if args.strict_requests:
        body["strict_requests"] = True
    if args.clock is not None or args.now is not None:
        setting: dict[str, Any] = {"mode": args.clock} if args.clock else {}
        if args.now is not None:
            setting["now"] = parse_instant(args.now, "--now")
        body["clock"] = setting
    answer = context.call("POST", "merchants", json=body or None)
    context.emit(answer, _merchant_lines(answer))
    return 0


def reset_all(context: Context, args: argparse.Namespace) -> int:
    answer = context.call("POST", "reset")
    context.emit(answer, [f"reset; clock {answer['now']} {answer['mode']}"])
    return 0


def snapshot_verb(context: Context, args: argparse.Namespace) -> int:
    from emulator.sandbox.control.service_snapshots import SNAPSHOT_NAME  # the server's rule

    rule = "snapshot names are 1-64 letters, digits, '.', '_' or '-', the first a letter or digit"
    name = checked_name(args.name, SNAPSHOT_NAME, "snapshot name", rule)
    if args.snapshot_verb == "save":
        answer = context.call("POST", f"snapshots/{name}")
        context.emit(answer, [f"saved snapshot {args.name}"])
    else:
        answer = context.call("POST", f"snapshots/{name}/restore")
        context.emit(answer, [f"restored snapshot {args.name}; clock {answer['now']}"])
    return 0


def snapshot_list(context: Context, args: argparse.Namespace) -> int:
    answer = context.call("GET", "snapshots")
    context.emit(answer, [str(name) for name in answer["snapshots"]])
    return 0


def scenario_switch(context: Context, args: argparse.Namespace) -> int:
    verb = args.action
    rule = "scenario names are 1-64 lowercase letters, digits, '.', '_' or '-', the first a"
    from emulator.scenarios.rules import NAME as SCENARIO_NAME  # the server's own rule

    name = checked_name(args.name, SCENARIO_NAME, "scenario name", rule + " letter or digit")
    body = {"merchant": context.merchant} if context.merchant is not None else {}
    answer = context.call("POST", f"scenarios/{name}/{verb}", json=body)
    scope = f"merchant {context.merchant}" if context.merchant else "every merchant"
    context.emit(answer, [f"{verb}d scenario {args.name} for {scope}"])
    return 0


def scenario_load(context: Context, args: argparse.Namespace) -> int:
    try:
        source = args.file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"scenario load: cannot read {args.file}: {exc}") from None
    loaded = context.client.load_scenario_answer(source)
    name, notes = str(loaded["name"]), [str(note) for note in loaded.get("notes", [])]
    lines = [f"loaded scenario {printable(name)} from {args.file}"]
    lines += [f"note: {printable(note)}" for note in notes]  # older forms: what is preferred
    context.emit({"name": name, "notes": notes}, lines)
    return 0
