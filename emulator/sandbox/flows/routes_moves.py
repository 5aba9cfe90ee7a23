"""The other side's moves made for a merchant, kept for the recorder (``flow_record.py``).

The journal keeps the API calls made with a merchant's credentials; the moves made for it
(pay a purchase, execute or settle a payout, authorise a mandate, settle a collection or a
payment: control-plane actions, the payout's execution page and the checkout page's form)
name an object, not a merchant, and were kept nowhere. ``Front`` hands each POST that may be
one to ``watch``, which serves it and, when it is answered 2xx (or a page's redirect),
notes it (before the answer goes out) under the object's merchant with
the journal entry it came after (so the recorder orders calls and moves as they happened)
and the merchant's instant. Kept in memory by the runtime (``Runtime.moves``), bounded: a
record of what a tester just did, not state (a reset, an import or a restore forgets it, a
merchant's deletion its moves).
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from emulator.core.merchants import service as merchants
from emulator.flows.record import Move
from emulator.http.common import OWNER_KEY
from emulator.kernel.journal import body_text
from emulator.kernel.per_merchant import PerMerchant

if TYPE_CHECKING:
    from emulator.runtime.runtime import Runtime

# path -> (the table of the object it names, the flow's act verb); the id is group 1
WATCHED: tuple[tuple[re.Pattern[str], str, str], ...] = (
    (re.compile(r"/_emulator/purchases/([^/]{1,64})/pay"), "purchases", "pay"),
    (re.compile(r"/_emulator/payouts/([^/]{1,64})/settle"), "payouts", "settle_payout"),
    (re.compile(r"/payouts/([^/]{1,64})/execute/[^/]+/"), "payouts", "execute_payout"),
    # the checkout page's form and its direct post (a redirect answers them)
    (re.compile(r"/p/([^/]{1,64})/(?:direct_post/)?"), "purchases", "pay"),
    (re.compile(r"/_emulator/mandates/([^/]{1,64})/(authorise|reject)"), "bank_mandates", ""),
    (
        re.compile(r"/_emulator/collections/([^/]{1,64})/settle"),
        "bank_collections",
        "settle_collection",
    ),
    (re.compile(r"/_emulator/payments/([^/]{1,64})/settle"), "bank_payments", "settle_payment"),
)
# What replaces the whole state: the moves kept no longer name its merchants.
FORGET = re.compile(r"/_emulator/(reset|import|states/[^/]+|snapshots/[^/]+/restore)")
PREFIXES = ("/_emulator/", "/payouts/", "/p/")
TRUE = ("1", "true", "on", "yes")


def moves_of(rt: Runtime) -> PerMerchant[Move]:
    """The moves the runtime keeps for the recorder (``Runtime.moves``)."""
    return rt.moves


def watched(scope: Scope) -> bool:
    """Whether this request may be a move (cheap: most requests are not POSTs here)."""
    path: str = scope["path"]
    return scope["method"] == "POST" and path.startswith(PREFIXES)


async def watch(rt: Runtime, app: ASGIApp, scope: Scope, receive: Receive, send: Send) -> None:
    """Serve the request; note it if it was a move answered 2xx."""
    path: str = scope["path"]
    if FORGET.fullmatch(path):
        await app(scope, receive, send)
        moves_of(rt).clear()
        return
    found = _which(path)
    if found is None:
        await app(scope, receive, send)
        return
    table, verb, object_id = found
    # The owner read once, here: the endpoint serves the move on its clock (``on_clock_of``).
    owner = await merchants.owner_of(rt, table, object_id)
    scope[OWNER_KEY] = (table, object_id, owner)
    if owner is None:  # no such object: not a move of anyone's
        await app(scope, receive, send)
        return
    chunks: list[bytes] = []

    async def receiving() -> Message:
        message = await receive()
        if message["type"] == "http.request":
            chunks.append(message.get("body", b""))
        return message

    async def sending(message: Message) -> None:
        # Noted before its answer goes out: the caller's next request, which may depend on
        # the move, comes after it in the journal whatever the server's scheduling.
        if message["type"] == "http.response.start" and 200 <= message["status"] < 400:
            await _note(rt, owner, verb, object_id, body_text(b"".join(chunks)))
        await send(message)

    await app(scope, receiving, sending)


def _which(path: str) -> tuple[str, str, str] | None:
    """The table, the verb and the (lowercased) id of the move this path makes."""
    for pattern, table, verb in WATCHED:
        match = pattern.fullmatch(path)
        if match is not None:
            return table, verb or f"{match.group(2)}_mandate", match.group(1).lower()
    return None


# The body's keys each verb's act takes (a card's number is the act's ``card``).
ACT_KEYS = {
    "pay": ("card_number", "expires", "cvc", "cardholder_name", "remember_card"),
    "execute_payout": ("card_number", "cardholder_name"),
    "settle_payout": ("status",),
    "settle_collection": ("status", "reasonCode"),
    "settle_payment": ("status", "reasonCode"),
}


def _args(verb: str, text: str) -> dict[str, Any]:
    """The move's body as the act's keys."""
    body: Any
    try:
        body = json.loads(text) if text.strip() else {}
    except ValueError:  # a form (the checkout page)
        body = {k: v[0] for k, v in parse_qs(text, keep_blank_values=True).items()}
    if not isinstance(body, dict):
        return {}
    args = {}
    for key in ACT_KEYS.get(verb, ()):
        value = body.get(key)
        if value is None or value == "":
            continue
        if key == "remember_card" and isinstance(value, str):
            value = value.lower() in TRUE
        args["card" if key == "card_number" else key] = value
    return args


async def _note(rt: Runtime, owner: str, verb: str, object_id: str, body: str) -> None:
    after_id = await rt.journal.last_id()  # the entries answered before the move
    at_us = rt.scheduler.timeline_of(owner).clock.now_us()
    moves_of(rt).add(owner, Move(after_id, at_us, verb, object_id, _args(verb, body)))
