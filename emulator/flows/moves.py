"""What each step kind asks of the emulator: the HTTP request of a call, an act, an advance
or an expectation set, as data (``Move``), for the runner to send.

Pure: no I/O; values already have their references resolved.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

import msgspec

from emulator.flows.model import ACT_VERBS, Act
from emulator.sandbox.expectations.rules_times import parse_duration

DEFAULT_WAIT_S = 5.0
DEFAULT_UP_TO = "30d"
MAX_WAIT_S = 600.0


class Move(msgspec.Struct, frozen=True):
    """One request: ``api`` says whose credentials it carries (gateway, bank, control, page).
    ``wait_s``: the real seconds the emulator may take to answer (a wait's timeout)."""

    api: str
    method: str
    path: str
    body: Any = None
    query: dict[str, Any] | None = None
    wait_s: float = 0.0


def segment(value: Any) -> str:
    return quote(str(value), safe="")


def act(spec: Act) -> tuple[str, Move]:
    """The verb and its control-plane request (``execute_payout``: the payout's read through the
    gateway first; the runner then posts the card to its ``execution_url``)."""
    verb = next(v for v in ACT_VERBS if getattr(spec, v) is not None)
    target = getattr(spec, verb)
    if verb == "pay":
        card = {
            "card_number": spec.card,
            "expires": spec.expires,
            "cvc": spec.cvc,
            "cardholder_name": spec.cardholder_name,
            "remember_card": spec.remember_card,
        }
        body = {k: v for k, v in card.items() if v is not None}
        return verb, Move("control", "POST", f"/_emulator/purchases/{segment(target)}/pay", body)
    if verb == "execute_payout":
        return verb, Move("gateway", "GET", f"/api/v1/payouts/{segment(target)}/")
    if verb == "settle_payout":
        body = {} if spec.status is None else {"status": spec.status}
        return verb, Move("control", "POST", f"/_emulator/payouts/{segment(target)}/settle", body)
    if verb in ("authorise_mandate", "reject_mandate"):
        what = verb.split("_")[0]
        return verb, Move("control", "POST", f"/_emulator/mandates/{segment(target)}/{what}")
    status = "DISPUTED" if verb == "dispute_collection" else (spec.status or "COMPLETED")
    body = {"status": status}
    if spec.reason_code is not None:
        body["reasonCode"] = spec.reason_code
    kind = "payments" if verb == "settle_payment" else "collections"
    return verb, Move("control", "POST", f"/_emulator/{kind}/{segment(target)}/settle", body)


def payout_card(spec: Act) -> dict[str, Any]:
    """The card a payee gives on a payout's execution page (a card that pays out by default)."""
    return {
        "card_number": spec.card or "4444333322221111",
        "cardholder_name": spec.cardholder_name or "Jane Doe",
        "expiry_month": "12",
        "expiry_year": "30",
    }


def merchant_path(company_id: str, *rest: str) -> str:
    return "/".join(("/_emulator/merchants", segment(company_id), *rest))


def advance(company_id: str, how: Any) -> Move:
    """A duration (the clock moves by it), ``{to: next}`` / ``{to: instant}``, or ``{until:
    [...], up_to, timeout}``: the expectations' wait with advance."""
    if not isinstance(how, dict):
        seconds = parse_duration("advance", how) / 1_000_000
        return Move("control", "POST", merchant_path(company_id, "clock/advance"),
                    {"seconds": seconds})  # fmt: skip
    if "to" in how:
        return Move("control", "POST", merchant_path(company_id, "clock/advance"), how)
    timeout = _seconds(how.get("timeout"))
    body = {"expect": how["until"], "timeout_seconds": timeout,
            "advance": {"up_to": how.get("up_to", DEFAULT_UP_TO)}}  # fmt: skip
    return Move("control", "POST", merchant_path(company_id, "wait"), body, wait_s=timeout)


def expect(company_id: str, how: Any) -> Move:
    """A list: verify now; ``{wait: [...], timeout}``: wait until they hold."""
    if isinstance(how, list):
        return Move("control", "POST", merchant_path(company_id, "verify"), {"expect": how})
    timeout = _seconds(how.get("timeout"))
    body = {"expect": how["wait"], "timeout_seconds": timeout}
    return Move("control", "POST", merchant_path(company_id, "wait"), body, wait_s=timeout)


def _seconds(value: Any) -> float:
    if value is None:
        return DEFAULT_WAIT_S
    return min(MAX_WAIT_S, parse_duration("timeout", value) / 1_000_000)


def failed_items(answer: Any) -> list[str]:
    """The sentences of an expectation answer's items that do not hold."""
    results = answer.get("results", []) if isinstance(answer, dict) else []
    return [str(r.get("message")) for r in results if isinstance(r, dict) and not r.get("ok")]


def summary(kind: str, value: Any) -> str:
    """A step in a few words for its line: ``call POST /api/v1/payouts/``, ``advance 3d``."""
    if kind == "call":
        return f"call {value.api} {value.method} {value.path}"
    if kind == "act":
        verb = next(v for v in ACT_VERBS if getattr(value, v) is not None)
        return f"act {verb} {getattr(value, verb)}"
    if kind == "advance":
        if isinstance(value, dict):
            return "advance until ..." if "until" in value else f"advance to {value.get('to')}"
        return f"advance {value}"
    if kind == "expect":
        items = value if isinstance(value, list) else value.get("wait", [])
        how = "verify" if isinstance(value, list) else "wait for"
        return f"expect: {how} {len(items)} item(s)"
    return kind
