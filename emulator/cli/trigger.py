"""``payments-emulator trigger EVENT``: make what an event needs for a merchant and drive it
until the emulator emits that event, over HTTP only: the merchant's own API (gateway with its
API key, bank with an OAuth token), the control plane's actors (the payer, the provider, the
debtor, the bank) and, for events that need time, that merchant's clock (its own, or the server
clock it follows), advanced to the job that emits the event."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from emulator.cli import delivered
from emulator.cli.client import (
    Context,
    Refused,
    UsageError,
    client_parent,
    merchant_option,
    segment,
)
from emulator.cli.wire import api_answer as _answer
from emulator.kernel.ids import Ids  # light: random and string

if TYPE_CHECKING:
    import httpx

    from emulator.testing import Merchant

DECLINED = "4000000000000002"  # card_declined, do_not_honour
PENDING_PAYOUT = "5555555555554444"  # payout pending, success after 3 days
FAILING_PAYOUT = "4000000000009995"  # payout pending, failed after 5 days
UNPAID_LATER = "110000002"  # debtor: UNPAID 40 seconds after submission
ANY_ACCOUNT = ("62000000001", "250655")  # no test outcome: the bank's, or an actor's


@dataclass
class Trigger:
    """One run: the merchant's clients and what was made, in order."""

    context: Context
    merchant: Merchant
    made: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    ids: Ids = field(default_factory=Ids)
    reason_code: str | None = None
    _gateway: httpx.Client | None = None
    _bank: httpx.Client | None = None

    def close(self) -> None:
        for client in (self._gateway, self._bank):
            if client is not None:
                client.close()

    def gateway(self, method: str, path: str, body: Any = None) -> dict[str, Any]:
        if self._gateway is None:
            self._gateway = self.merchant.gateway(self.context.url, timeout=self.context.timeout)
        return _answer(self._gateway.request(method, path, json=body))

    def bank(self, method: str, path: str, body: Any = None) -> dict[str, Any]:
        if self._bank is None:
            self._bank = self.merchant.bank(self.context.url, timeout=self.context.timeout)
        return _answer(self._bank.request(method, path, json=body))

    def control(self, method: str, path: str, body: Any = None) -> dict[str, Any]:
        return self.context.call(method, path, json=body)

    def keep(self, kind: str, obj: dict[str, Any]) -> dict[str, Any]:
        self.made.append((kind, obj))
        return obj

    @property
    def company(self) -> str:
        """The merchant's company id as a path segment."""
        return segment(self.merchant.company_id, "company_id")

    def reference(self, prefix: str) -> str:
        return f"{prefix}-{self.ids.token(10)}"

    def profile(self) -> str:
        if not self.merchant.profiles:
            raise Refused(f"merchant {self.merchant.company_id} has no bank profile")
        return self.merchant.profiles[0].profile_code

    def today(self) -> str:
        """The merchant's date, on its clock."""
        clock = self.control("GET", f"merchants/{self.company}/clock")
        return str(clock["now"])[:10]

    def wait_for_job(self, object_id: str | int, kind: str) -> None:
        """Advance the merchant's clock (its own, or the server clock it follows) to the next
        job of ``kind`` acting on ``object_id``, running everything due on the way."""
        company = self.company
        query = {"object_id": str(object_id)}
        jobs = self.context.call("GET", f"merchants/{company}/schedule", params=query)
        due = next((job["due"] for job in jobs["jobs"] if job["kind"] == kind), None)
        if due is None:
            raise NotEmitted(f"no {kind} job is scheduled for {object_id}")
        own = self.control("GET", f"merchants/{company}/clock").get("own")
        path = f"merchants/{company}/clock/advance" if own else "clock/advance"
        answer = self.control("POST", path, {"to": due})
        whose = "the merchant's own clock" if own else "the server clock"
        self.notes.append(f"advanced {whose} to {answer['now']} ({answer['jobs_run']} job(s) run)")


class NotEmitted(Refused):
    """The event could not be driven: exit 1 with this message."""


def _seg(obj: dict[str, Any]) -> str:
    """An object's id as one path segment."""
    return segment(str(obj["id"]), "id")


def _purchase(run: Trigger, **fields: Any) -> dict[str, Any]:
    body = {
        "client": {"email": "payer@example.com"},
        "purchase": {"currency": "ZAR", "products": [{"name": "Widget", "price": 1000}]},
        "brand_id": run.merchant.brand_id,
        **fields,
    }
    return run.keep("purchase", run.gateway("POST", "purchases/", body))


def _paid(run: Trigger, card: str | None = None, **fields: Any) -> dict[str, Any]:
    purchase = _purchase(run, **fields)
    body = {"card_number": card} if card else {}
    run.made.pop()
    return run.keep("purchase", run.control("POST", f"purchases/{_seg(purchase)}/pay", body))


def _refetch(run: Trigger, purchase: dict[str, Any]) -> dict[str, Any]:
    run.made[:] = [(k, o) for k, o in run.made if o.get("id") != purchase["id"]]
    return run.keep("purchase", run.gateway("GET", f"purchases/{_seg(purchase)}/"))


def purchase_created(run: Trigger) -> None:
    _purchase(run)


def purchase_paid(run: Trigger) -> None:
    _paid(run)


def purchase_failure(run: Trigger) -> None:
    _paid(run, DECLINED)


def purchase_hold(run: Trigger) -> None:
    _paid(run, skip_capture=True)


def purchase_captured(run: Trigger) -> None:
    held = _paid(run, skip_capture=True)
    run.gateway("POST", f"purchases/{_seg(held)}/capture/", {})
    _refetch(run, held)


def purchase_refunded(run: Trigger) -> None:
    paid = _paid(run)
    run.keep("payment", run.gateway("POST", f"purchases/{_seg(paid)}/refund/", {}))
    _refetch(run, paid)


def purchase_cancelled(run: Trigger) -> None:
    purchase = _purchase(run)
    run.gateway("POST", f"purchases/{_seg(purchase)}/cancel/", {})
    _refetch(run, purchase)


def _payout(run: Trigger, card: str) -> dict[str, Any]:
    body = {
        "client": {"email": "payee@example.com"},
        "payment": {"amount": 1000, "currency": "ZAR", "description": "Payout"},
        "brand_id": run.merchant.brand_id,
    }
    payout = run.gateway("POST", "payouts/", body)
    card_body = {
        "card_number": card,
        "cardholder_name": "Jane Payee",
        "expiry_month": "12",
        "expiry_year": "99",
    }
    import httpx

    with httpx.Client(timeout=run.context.timeout) as plain:  # the execution URL is the capability
        _answer(plain.post(payout["execution_url"], json=card_body))
    return payout


def payout_success(run: Trigger) -> None:
    payout = _payout(run, PENDING_PAYOUT)
    run.keep("payout", run.control("POST", f"payouts/{_seg(payout)}/settle", {}))


def payout_failed(run: Trigger) -> None:
    payout = _payout(run, FAILING_PAYOUT)
    run.wait_for_job(payout["id"], "payout.settlement")  # the settlement, 5 days on
    run.keep("payout", run.gateway("GET", f"payouts/{_seg(payout)}/"))


def subscription_cancelled(run: Trigger) -> None:
    template = run.keep(
        "billing_template",
        run.gateway(
            "POST",
            "billing_templates/",
            {
                "purchase": {"currency": "ZAR", "products": [{"name": "Plan", "price": 1000}]},
                "is_subscription": True,
                "brand_id": run.merchant.brand_id,
            },
        ),
    )
    email = f"{run.reference('subscriber').lower()}@example.com"
    client = run.keep("client", run.gateway("POST", "clients/", {"email": email}))
    added = run.gateway(
        "POST", f"billing_templates/{_seg(template)}/add_subscriber/", {"client_id": client["id"]}
    )
    subscriber = added["billing_template_client"]
    if added.get("purchase"):
        run.keep("purchase", run.control("POST", f"purchases/{added['purchase']['id']}/pay", {}))
    path = f"billing_templates/{_seg(template)}/clients/{_seg(subscriber)}/"
    run.keep("billing_template_client", run.gateway("GET", path))
    run.gateway("DELETE", path)
    run.notes.append(f"unsubscribed billing_template_client {subscriber['id']} (deleted)")


def _debtor(account: str, branch: str = "051001") -> dict[str, Any]:
    return {
        "accountNumber": account,
        "branchCode": branch,
        "accountType": "CURRENT",
        "name": "J Doe",
    }


def _collection(run: Trigger, account: str, branch: str = "051001") -> dict[str, Any]:
    body = {
        "debtor": _debtor(account, branch),
        "amountCents": 12_345,
        "profileCode": run.profile(),
        "externalReference": run.reference("EFT"),
        "abbreviatedName": "GYM",
        "contractReference": "C-1",
    }
    return run.bank("POST", "collection/eft", body)


def collection_completed(run: Trigger) -> None:
    collection = _collection(run, *ANY_ACCOUNT)
    run.keep("collection", run.control("POST", f"collections/{_seg(collection)}/settle", {}))


def collection_unpaid(run: Trigger) -> None:
    if run.reason_code is not None:  # the bank's outcome now, with that unpaid reason code
        collection = _collection(run, *ANY_ACCOUNT)
        body = {"status": "UNPAID", "reasonCode": run.reason_code}
        run.keep("collection", run.control("POST", f"collections/{_seg(collection)}/settle", body))
        return
    collection = _collection(run, UNPAID_LATER)
    run.wait_for_job(collection["id"], "collection.outcome")  # the bank's outcome, 40 seconds on
    run.keep("collection", run.bank("GET", f"collection/eft/{_seg(collection)}/status"))


def mandate_authenticated(run: Trigger) -> None:
    body = {
        "debtor": _debtor(*ANY_ACCOUNT),
        "profileCode": run.profile(),
        "externalReference": run.reference("DC"),
        "contractReference": "C-9",
        "maxAmountCents": 50_000,
    }
    mandate = run.bank("POST", "mandate/debicheck", body)
    run.keep("mandate", run.control("POST", f"mandates/{_seg(mandate)}/authorise"))


def payment_completed(run: Trigger) -> None:
    body = {
        "debtor": _debtor("4052218811"),
        "creditor": {"accountNumber": ANY_ACCOUNT[0], "branchCode": ANY_ACCOUNT[1], "name": "S"},
        "amountCents": 25_000,
        "profileCode": run.profile(),
        "abbreviatedName": "PAYROLL",
        "contractReference": "INV-1",
        "externalReference": run.reference("PAY"),
        "paymentDate": run.today(),
    }
    payment = run.bank("POST", "payment/eft", body)
    run.keep("payment", run.control("POST", f"payments/{_seg(payment)}/settle", {}))


Recipe = Callable[[Trigger], None]
# event: (recipe, what it does, the status its last object shows once the event is emitted)
EVENTS: dict[str, tuple[Recipe, str, str | None]] = {
    "purchase.created": (purchase_created, "a purchase", "created"),
    "purchase.paid": (purchase_paid, "a purchase, paid by the payer (default card)", "paid"),
    "purchase.payment_failure": (purchase_failure, f"a purchase, paid with {DECLINED}", "error"),
    "purchase.hold": (purchase_hold, "a skip_capture purchase, authorised by the payer", "hold"),
    "purchase.captured": (purchase_captured, "a purchase on hold, then captured", "paid"),
    "payment.refunded": (purchase_refunded, "a paid purchase, refunded in full", "refunded"),
    "purchase.cancelled": (purchase_cancelled, "a purchase, cancelled", "cancelled"),
    "payout.success": (
        payout_success, "a payout executed (pending), settled by the provider", "success"
    ),
    "payout.failed": (payout_failed, "a payout with a failing card; 5 days pass", "error"),
    "billing_template_client.subscription_billing_cancelled": (
        subscription_cancelled,
        "a subscription template, a subscriber that pays, then unsubscribed",
        None,
    ),
    "collection.completed": (
        collection_completed, "an EFT collection, settled by the bank", "COMPLETED"
    ),
    "collection.unpaid": (
        collection_unpaid, f"an EFT collection from {UNPAID_LATER}; 40 s pass", "UNPAID"
    ),
    "mandate.authenticated": (
        mandate_authenticated, "a DebiCheck mandate the debtor authorises", "AUTHENTICATED"
    ),
    "payment.completed": (payment_completed, "an EFT payment, settled by the bank", "COMPLETED"),
}  # fmt: skip
ALIASES = {"purchase.refunded": "payment.refunded"}


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
