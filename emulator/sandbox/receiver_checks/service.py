"""Score the app's receiver (``POST /_emulator/receiver-checks``): a battery of webhooks, each
signed as the platform signs, sent to one URL, and each answer judged.

Two purchases are made for the merchant through the services, on its clock, so an app that
reads the purchase back finds it. The messages are signed with the key of the merchant's
webhook whose callback is the URL (else its oldest webhook's, else the company key that
``GET /public_key/`` serves, as for a ``success_callback``). The journal says what the app did
while it handled a message: a read of the purchase is a good sign (the spec recommends
reading the authoritative status), an action on it while handling a duplicate is re-processing.

Bank callbacks (``bank``) are unsigned on the platform: their battery leaves out the two
signature checks and sends a collection's callback body instead of a purchase.
"""

from __future__ import annotations

import copy
from collections.abc import Awaitable, Callable
from typing import Any, Literal

import msgspec

from emulator.bank.calendar.rules import iso_us
from emulator.bank.callbacks import rules as callbacks
from emulator.core.merchants import repo as merchants_repo
from emulator.delivery import signing
from emulator.delivery.probe import Answer
from emulator.domain import errors
from emulator.domain.errors import ControlError
from emulator.domain.urls import MESSAGES, problem
from emulator.gateway.clients.rules import ClientInput
from emulator.gateway.purchases import service as purchases
from emulator.gateway.purchases.input import DetailsInput, ProductInput, PurchaseInput
from emulator.gateway.webhooks import repo as webhooks_repo
from emulator.gateway.webhooks.router import company_key
from emulator.kernel.context import Context
from emulator.kernel.storage import Tx

Result = Literal["pass", "fail", "warn"]
Send = Callable[[str, bytes, dict[str, str]], Awaitable[Answer]]

OLD_DAYS = 30  # how old the replayed event is
UNKNOWN_EVENT = "purchase.emulator_unknown_type"
# Calls on a purchase that change it: made while handling a duplicate, they re-process it.
ACTIONS = ("refund", "capture", "release", "cancel", "charge", "delete_recurring_token")
# After this many messages in a row without an answer, the rest are not sent (and fail).
GIVE_UP = 2
POINTS: dict[Result, float] = {"pass": 1.0, "warn": 0.5, "fail": 0.0}

_signer = signing.Signer()
_encode = msgspec.json.Encoder()


class Check(msgspec.Struct, frozen=True):
    name: str
    result: Result
    why: str


class Sent(msgspec.Struct, frozen=True):
    """One message sent, its answer, and the journal entries of the merchant's requests made
    while the receiver handled it."""

    label: str
    answer: Answer
    calls: list[dict[str, Any]]


def score(checks: list[Check]) -> int:
    """Out of 100: a pass counts whole, a warning half, a failure nothing."""
    return round(100 * sum(POINTS[c.result] for c in checks) / len(checks)) if checks else 0


def _ok(answer: Answer) -> bool:
    return answer.status is not None and 200 <= answer.status < 300


def _refused(answer: Answer) -> bool:
    return answer.status is not None and 400 <= answer.status < 500


def _said(answer: Answer) -> str:
    return f"answered {answer.status}" if answer.status is not None else answer.error


def _call_line(call: dict[str, Any]) -> str:
    return f"{call['method']} {call['path']} ({call['status']})"


async def _purchase(rt: Context, company_id: str, base_url: str, brand: str, name: str) -> Any:
    data = PurchaseInput(
        purchase=DetailsInput(products=[ProductInput(name=name, price=1000)]),
        brand_id=brand,
        client=ClientInput(email="receiver-check@example.com"),
    )
    return msgspec.json.decode(await purchases.create(rt, company_id, data, base_url))


def _key_for(rt: Context, company_id: str, url: str) -> Callable[[Tx], tuple[str, str]]:
    def pick(tx: Tx) -> tuple[str, str]:
        hooks = webhooks_repo.with_keys(tx, company_id)
        for webhook, private in hooks:
            if webhook.callback == url:
                return private, f"the key of webhook {webhook.id}"
        if hooks:
            return hooks[0][1], f"the key of webhook {hooks[0][0].id} (none has this URL)"
        return company_key(tx, company_id)[0], "the company key (GET /api/v1/public_key/)"

    return pick


async def check(
    rt: Context,
    send: Send,
    company_id: str,
    url: str,
    base_url: str,
    *,
    bank: bool = False,
    wait_seconds: float = 5.0,
) -> dict[str, Any]:
    """The battery against ``url`` for ``company_id``: the checks and the score."""
    found = problem(url, rt.url_rule)
    if found is not None:
        raise ControlError(400, "invalid", f"'url': {MESSAGES[found]}")
    merchant = await rt.db.read(lambda tx: merchants_repo.get(tx, company_id))
    if merchant is None:
        raise ControlError(404, "merchant_not_found", f"no merchant with company_id {company_id!r}")
    await rt.enter(company_id)
    brands = await rt.db.read(lambda tx: merchants_repo.brand_ids(tx, company_id))
    if not brands:
        raise ControlError(409, "no_brand", f"merchant {company_id!r} has no brand")
    try:
        first = await _purchase(rt, company_id, base_url, brands[0], "Receiver check")
        second = await _purchase(rt, company_id, base_url, brands[0], "Receiver check, late")
    except errors.ApiError as exc:
        raise ControlError(409, "cannot_create", f"no purchase for the check: {exc}") from exc
    private, signed_with = await rt.db.write(_key_for(rt, company_id, url))
    battery = Battery(rt, send, company_id, url, "" if bank else private, wait_seconds)
    checks = await (battery.bank(first) if bank else battery.gateway(first, second))
    return {
        "url": url,
        "merchant": company_id,
        "kind": "bank" if bank else "gateway",
        "purchase_ids": [first["id"], second["id"]],
        "signed_with": "unsigned (bank callbacks)" if bank else signed_with,
        "timeout_seconds": wait_seconds,
        "checks": [msgspec.to_builtins(c) for c in checks],
        "score": score(checks),
    }


class Battery:
    def __init__(
        self, rt: Context, send: Send, company_id: str, url: str, private: str, timeout: float
    ) -> None:
        self.rt, self.send, self.company_id, self.url = rt, send, company_id, url
        self.private, self.timeout = private, timeout
        self.sent: list[Sent] = []

    async def _last_id(self) -> int:
        rows = await self.rt.journal.list(merchant_id=self.company_id, limit=1, before_id=None)
        return int(rows[0]["id"]) if rows else 0

    async def post(
        self, label: str, body: bytes, *, event_id: str | None = None, signature: str | None = None
    ) -> Sent:
        headers = {"Content-Type": "application/json", "X-Event-Id": event_id or self.event_id()}
        if self.private:
            headers["X-Signature"] = signature or _signer.sign(self.private, body)
        if len(self.sent) >= GIVE_UP and all(s.answer.status is None for s in self.sent[-GIVE_UP:]):
            skipped = Sent(
                label, Answer(None, 0.0, f"not sent: {GIVE_UP} answers in a row did not come"), []
            )
            self.sent.append(skipped)
            return skipped
        mark = await self._last_id()
        answer = await self.send(self.url, body, headers)
        calls = await self.rt.journal.list(
            merchant_id=self.company_id, limit=200, before_id=None, after_id=mark
        )
        sent = Sent(label, answer, calls)
        self.sent.append(sent)
        return sent

    def event_id(self) -> str:
        return f"check-{self.rt.ids.uuid()}"

    def _expect_2xx(self, name: str, sent: Sent, why: str) -> Check:
        if _ok(sent.answer):
            return Check(name, "pass", f"{_said(sent.answer)}: {why}")
        return Check(name, "fail", f"{_said(sent.answer)}, 2xx expected: {why}")

    def _expect_4xx(self, name: str, sent: Sent, why: str) -> Check:
        if _refused(sent.answer):
            return Check(name, "pass", f"{_said(sent.answer)}: {why}")
        return Check(name, "fail", f"{_said(sent.answer)}, 4xx expected: {why}")

    async def gateway(self, first: dict[str, Any], second: dict[str, Any]) -> list[Check]:
        paid = _event(first, "purchase.paid", status="paid")
        valid_id = self.event_id()
        valid = await self.post("valid", paid, event_id=valid_id)
        duplicate = await self.post("duplicate", paid, event_id=valid_id)
        forged = await self.post("bad_signature", paid, signature=_signer.sign(self.private, b"{}"))
        changed = _event(first, "purchase.paid", status="paid", total=first_total(first) + 1)
        tampered = await self.post(
            "tampered_body", changed, signature=_signer.sign(self.private, paid)
        )
        unknown = await self.post("unknown_event", _event(first, UNKNOWN_EVENT))
        late_paid = await self.post("paid_before_created", _event(second, "purchase.paid"))
        late_created = await self.post("created_after_paid", _event(second, "purchase.created"))
        old = await self.post("old_replay", _old(first))
        return [
            self._expect_2xx("valid", valid, "a genuine purchase.paid is acknowledged"),
            self._duplicate(duplicate, first["id"]),
            self._expect_4xx(
                "bad_signature",
                forged,
                "a forged X-Signature must be refused, or anyone can mark orders paid",
            ),
            self._expect_4xx(
                "tampered_body",
                tampered,
                "a body changed after signing must"
                " be refused: verify the signature over the exact bytes received",
            ),
            self._expect_2xx(
                "unknown_event",
                unknown,
                "an event type the app does not know is acknowledged"
                " and ignored, or the platform retries it for days",
            ),
            self._out_of_order(late_paid, late_created),
            self._old(old),
            self._timeouts(),
            self._reads_back(valid, first["id"]),
        ]

    async def bank(self, first: dict[str, Any]) -> list[Check]:
        at = iso_us(self.rt.clock.now_us())
        body = _callback(first, "COMPLETED", at)
        valid_id = self.event_id()
        valid = await self.post("valid", body, event_id=valid_id)
        duplicate = await self.post("duplicate", body, event_id=valid_id)
        unknown = await self.post("unknown_event", _callback(first, "EMULATOR_UNKNOWN", at))
        return [
            self._expect_2xx("valid", valid, "a collection callback is acknowledged"),
            self._duplicate(duplicate, first["id"]),
            self._expect_2xx(
                "unknown_event", unknown, "a status the app does not know is acknowledged"
            ),
            self._timeouts(),
        ]

    def _duplicate(self, sent: Sent, purchase_id: str) -> Check:
        prefix = f"/api/v1/purchases/{purchase_id}/"
        again = [
            c
            for c in sent.calls
            if c["method"] != "GET"
            and c["path"].startswith(prefix)
            and c["path"][len(prefix) :].strip("/") in ACTIONS
        ]
        if again:
            named = ", ".join(_call_line(c) for c in again)
            return Check(
                "duplicate",
                "fail",
                f"the same X-Event-Id again was re-processed: while handling it the app called"
                f" {named}; deduplicate by X-Event-Id",
            )
        return self._expect_2xx(
            "duplicate", sent, "the same X-Event-Id again is acknowledged, not re-processed"
        )

    def _out_of_order(self, paid: Sent, created: Sent) -> Check:
        for sent in (paid, created):
            if not _ok(sent.answer):
                return Check(
                    "out_of_order",
                    "fail",
                    f"{sent.label}: {_said(sent.answer)}, 2xx expected: events can arrive in"
                    " any order; purchase.paid before purchase.created must not be refused",
                )
        return Check(
            "out_of_order", "pass", "purchase.paid before purchase.created: both acknowledged"
        )

    def _old(self, sent: Sent) -> Check:
        if _ok(sent.answer):
            return Check(
                "old_replay",
                "warn",
                f"{_said(sent.answer)}: an event {OLD_DAYS} days old, validly signed, was"
                " accepted; the signature carries no time, so check the object's updated_on or"
                " read the purchase back before acting on it",
            )
        if _refused(sent.answer):
            return Check("old_replay", "pass", f"{_said(sent.answer)}: an old event was refused")
        return Check("old_replay", "fail", f"{_said(sent.answer)}: no usable answer")

    def _timeouts(self) -> Check:
        late = [s for s in self.sent if s.answer.status is None]
        if late:
            named = ", ".join(f"{s.label} ({s.answer.error})" for s in late)
            return Check(
                "timeout",
                "fail",
                f"no answer within {self.timeout:g} s to {named}: the platform gives up and"
                " retries; answer first, work later",
            )
        slowest = max(s.answer.seconds for s in self.sent)
        return Check(
            "timeout", "pass", f"every answer within {self.timeout:g} s (slowest {slowest:.2f} s)"
        )

    def _reads_back(self, sent: Sent, purchase_id: str) -> Check:
        path = f"/api/v1/purchases/{purchase_id}/"
        reads = [c for c in sent.calls if c["method"] == "GET" and c["path"] == path]
        if reads:
            return Check(
                "reads_back",
                "pass",
                f"good sign: the app read the purchase on receipt ({_call_line(reads[0])}), as"
                " the spec recommends: the API is the authoritative status",
            )
        return Check(
            "reads_back",
            "warn",
            f"the app did not read {path} while handling purchase.paid; the spec recommends"
            " reading the authoritative status before fulfilling",
        )


def first_total(purchase: dict[str, Any]) -> int:
    total = purchase.get("purchase", {}).get("total", 0)
    return total if isinstance(total, int) else 0


def _event(purchase: dict[str, Any], event_type: str, **changes: Any) -> bytes:
    obj = copy.deepcopy(purchase)
    total = changes.pop("total", None)
    obj.update(changes)
    if total is not None:
        obj.setdefault("purchase", {})["total"] = total
    return _encode.encode({**obj, "event_type": event_type})


def _old(purchase: dict[str, Any]) -> bytes:
    earlier = OLD_DAYS * 86_400
    return _event(
        purchase,
        "purchase.paid",
        status="paid",
        created_on=int(purchase.get("created_on", 0)) - earlier,
        updated_on=int(purchase.get("updated_on", 0)) - earlier,
    )


def _callback(purchase: dict[str, Any], status: str, at: str) -> bytes:
    """An EFT collection callback's body, as the bank sends it (its id is the check's purchase
    id: no collection of that id exists to read back)."""
    payload = {"id": purchase["id"], "status": status, "amountCents": first_total(purchase)}
    return _encode.encode(callbacks.body("EFT_COLLECTION", payload, at))
