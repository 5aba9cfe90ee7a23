"""``payments-emulator trigger EVENT``: make what an event needs for a merchant and drive it
until the emulator emits that event, over HTTP only: the merchant's own API (gateway with its
API key, bank with an OAuth token), the control plane's actors (the payer, the provider, the
debtor, the bank) and, for events that need time, that merchant's clock (its own, or the server
clock it follows), advanced to the job that emits the event."""

from __future__ import annotations

import argparse
from typing import Any

from emulator.cli import delivered
from emulator.cli.arguments import merchant_option
from emulator.cli.client import Context, UsageError, client_parent
from emulator.cli.trigger_recipes import ALIASES, EVENTS
from emulator.cli.trigger_run import NotEmitted, Trigger

__all__ = ["ALIASES", "EVENTS", "add_command", "trigger_command"]


def add_command(commands: Any) -> None:
    trigger = commands.add_parser(
        "trigger",
        parents=[client_parent()],
        help="make what an event needs and drive it until the emulator emits it",
    )
    trigger.add_argument("event", nargs="?", help="the event (see --list)")
    trigger.add_argument("--list", action="store_true", help="the events it can trigger")
    merchant_option(trigger, "the merchant (default: the default merchant)")
    trigger.add_argument(
        "--reason-code",
        metavar="CODE",
        help="collection.unpaid: the bank's unpaid reason code (settled now; default: 02, 40 s on)",
    )
    trigger.set_defaults(handler=trigger_command)


def trigger_command(context: Context, args: argparse.Namespace) -> int:
    if args.list:
        rows = [{"event": name, "does": does} for name, (_, does, _) in EVENTS.items()]
        lines = [f"{row['event']:<56} {row['does']}" for row in rows]
        context.emit({"events": rows}, [*lines, "purchase.refunded: the same as payment.refunded"])
        return 0
    if not args.event:
        raise UsageError("trigger: name an EVENT (trigger --list shows them)")
    name = ALIASES.get(args.event, args.event)
    if name not in EVENTS:
        raise UsageError(f"trigger: unknown event {args.event!r} (trigger --list shows them)")
    code = _reason_code(name, args.reason_code)
    run = Trigger(context, context.merchant_record(), reason_code=code)
    recipe, _, expected = EVENTS[name]
    start = delivered.newest(context, run.merchant.company_id)
    try:
        recipe(run)
        reached = _status(run.made[-1][1])
        if expected is not None and reached != expected:
            raise NotEmitted(f"the {run.made[-1][0]} is {reached!r}, not {expected!r}")
    except NotEmitted as exc:
        raise NotEmitted(f"trigger {name}: {exc}") from None
    finally:
        run.close()
    objects = [{"type": kind, "object": obj} for kind, obj in run.made]
    lines = [f"{name} emitted for merchant {run.merchant.company_id}", *run.notes]
    lines += [f"  {kind:<24} {_id(obj):<40} {_status(obj)}" for kind, obj in run.made]
    sent = delivered.since(context, run.merchant.company_id, start)
    fields, sent_lines = delivered.report(context, name, sent)
    data = {"event": name, "merchant": run.merchant.company_id, "objects": objects, **fields}
    context.emit(data, [*lines, *sent_lines])
    return 0


def _reason_code(event: str, code: str | None) -> str | None:
    """``--reason-code``: only with collection.unpaid, one of the bank's unpaid codes."""
    if code is None:
        return None
    if event != "collection.unpaid":
        raise UsageError(f"--reason-code goes with collection.unpaid, not {event}")
    from emulator import resources  # the fixtures and the domain: only for --reason-code
    from emulator.domain import unpaids

    problem = unpaids.code_problem(resources.unpaid_codes(), "UNPAID", code)
    if problem is not None:
        raise UsageError(f"--reason-code: {problem}")
    return code


def _id(obj: dict[str, Any]) -> str:
    return str(obj.get("id", ""))


def _status(obj: dict[str, Any]) -> str:
    return str(obj.get("status") or obj.get("state") or "")
