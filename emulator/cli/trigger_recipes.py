"""What each event ``trigger`` knows needs, as a recipe over a ``Trigger`` run: the objects
made with the merchant's API, the other side's moves, the clock advanced (``EVENTS``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from emulator.cli.trigger_run import Trigger
from emulator.cli.trigger_run import seg as _seg
from emulator.cli.wire import api_answer as _answer

DECLINED = "4000000000000002"  # card_declined, do_not_honour
PENDING_PAYOUT = "5555555555554444"  # payout pending, success after 3 days
FAILING_PAYOUT = "4000000000009995"  # payout pending, failed after 5 days
UNPAID_LATER = "110000002"  # debtor: UNPAID 40 seconds after submission
ANY_ACCOUNT = ("62000000001", "250655")  # no test outcome: the bank's, or an actor's


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
