"""The payer's HTML pages: plain forms, no JavaScript, everything escaped."""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

from emulator.gateway.purchases.model import Product, Purchase
from emulator.gateway.purchases.rules import PAYABLE

_STYLE = (
    "body{font-family:system-ui,sans-serif;max-width:32rem;margin:2rem auto;padding:0 1rem}"
    "label{display:block;margin:.6rem 0 .2rem}input[type=text]{width:100%;padding:.4rem}"
    "button{margin-top:1rem;padding:.5rem 1.2rem}.error{color:#b00020}table{width:100%}"
    "td.amount{text-align:right}.sandbox{background:#fff4cf;border:1px solid #e0b84a;"
    "padding:.4rem .8rem;font-size:.9rem}.sandbox td{padding:0 .4rem 0 0}"
)


def _page(title: str, body: str) -> str:
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{escape(title)}</title><style>{_STYLE}</style></head>"
        f"<body>{body}</body></html>\n"
    )


def money(amount: int, currency: str) -> str:
    return f"{amount / 100:,.2f} {escape(currency)}"


def _quantity(raw: str) -> float:
    try:
        return float(raw)
    except ValueError:
        return 1.0


def _line(item: Product, currency: str) -> str:
    """A product's line: its price times its quantity, less its discount (as the total)."""
    quantity = _quantity(item.quantity)
    amount = round(item.price * quantity) - item.discount
    shown = f"{quantity:.4f}".rstrip("0").rstrip(".")
    each = money(item.price, currency)
    times = "" if quantity == 1 else f" <small>{escape(shown)} &times; {each}</small>"
    return (
        f"<tr><td>{escape(item.name)}{times}</td>"
        f'<td class="amount">{money(amount, currency)}</td></tr>'
    )


def _summary(p: Purchase) -> str:
    rows = "".join(_line(item, p.purchase.currency) for item in p.purchase.products)
    issuer = escape(p.issuer_details.brand_name or "Merchant")
    return (
        f"<h1>{issuer}</h1><p>Purchase <code>{escape(p.reference or p.reference_generated)}</code>"
        f"</p><table>{rows}</table><p><strong>Total: "
        f'<span id="total">{money(p.purchase.total, p.purchase.currency)}</span></strong></p>'
    )


Cards = Sequence[tuple[str, str]]  # test card number, its purchase outcome


def sandbox_banner(cards: Cards) -> str:
    """This is a sandbox: which test cards to use, and what each does."""
    rows = "".join(
        f"<tr><td><code>{escape(number)}</code></td><td>{escape(outcome)}</td></tr>"
        for number, outcome in cards
    )
    return (
        '<aside class="sandbox" id="sandbox"><strong>Sandbox</strong>: no real money moves. '
        "Pay with a test card (any name, expiry this month or later, CVC 123):"
        f"<table>{rows}</table></aside>"
    )


def decline_text(code: str, message: str) -> str:
    """A failed attempt said once: its message, without the API's ``(reason: CODE)`` tail,
    and its code (escaped HTML)."""
    said = message.removesuffix(f" (reason: {code})")
    return f"{escape(said)} ({escape(code)})" if code and code not in said else escape(said)


def checkout(
    p: Purchase, error: str = "", values: dict[str, str] | None = None, cards: Cards = ()
) -> str:
    """The checkout page: the purchase and a card form posting back to the same URL."""
    if p.status not in PAYABLE:
        return result(p, cards)
    values = values or {}
    field = {k: escape(values.get(k, ""), quote=True) for k in ("cardholder_name", "expires")}
    problem = f'<p class="error" id="error">{escape(error)}</p>' if error else ""
    last = p.transaction_data.attempts[0].error if p.transaction_data.attempts else None
    if not error and p.status == "error" and last is not None:
        problem = f'<p class="error" id="error">{decline_text(last.code, last.message)}</p>'
    remember = (
        ""
        if p.force_recurring
        else '<label><input type="checkbox" name="remember_card" value="on"> Remember card</label>'
    )
    form = (
        f'<form method="post" action="/p/{escape(p.id)}/">'
        '<label for="cardholder_name">Cardholder name</label>'
        '<input type="text" id="cardholder_name" name="cardholder_name" maxlength="30" '
        f'autocomplete="cc-name" value="{field["cardholder_name"]}" required>'
        '<label for="card_number">Card number</label>'
        '<input type="text" id="card_number" name="card_number" maxlength="23" '
        'inputmode="numeric" autocomplete="cc-number" required>'
        '<label for="expires">Expiry (MM/YY)</label>'
        '<input type="text" id="expires" name="expires" maxlength="5" placeholder="MM/YY" '
        f'autocomplete="cc-exp" value="{field["expires"]}" required>'
        '<label for="cvc">CVC</label>'
        '<input type="text" id="cvc" name="cvc" maxlength="4" inputmode="numeric" '
        f'autocomplete="cc-csc" required>{remember}'
        f'<button type="submit">Pay {money(p.purchase.total, p.purchase.currency)}</button>'
        "</form>"
    )
    return _page("Checkout", sandbox_banner(cards) + _summary(p) + problem + form)


def result(p: Purchase, cards: Cards = ()) -> str:
    """Where a payment ends when the purchase has no redirect URL for it."""
    messages = {
        "paid": "Payment successful.",
        "hold": "Payment authorised.",
        "preauthorized": "Card saved.",
        "error": "Payment failed.",
        "cancelled": "This purchase was cancelled.",
        "expired": "This purchase has expired.",
    }
    text = messages.get(p.status, f"Purchase status: {p.status}.")
    why = ""
    last = p.transaction_data.attempts[0].error if p.transaction_data.attempts else None
    if p.status == "error" and last is not None:
        why = f'<p class="error" id="reason">{decline_text(last.code, last.message)}</p>'
    again = ""
    if p.status in PAYABLE:
        again = f'<p><a id="retry" href="/p/{escape(p.id)}/">Try again with another card</a></p>'
        why = sandbox_banner(cards) + why
    status = f'<p id="status" data-status="{escape(p.status)}">{text}</p>'
    return _page(text, _summary(p) + status + why + again)


def challenge(p: Purchase, action: str, masked: str) -> str:
    """The 3-D Secure challenge the issuer would show: complete or cancel."""
    body = (
        "<h1>3-D Secure</h1>"
        f"<p>Confirm the payment of {money(p.purchase.total, p.purchase.currency)} "
        f"with card <code>{escape(masked)}</code>.</p>"
        f'<form method="post" action="{escape(action, quote=True)}">'
        '<button type="submit" name="action" value="complete">Complete authentication</button> '
        '<button type="submit" name="action" value="cancel">Cancel</button></form>'
    )
    return _page("3-D Secure", body)


def error_page(status: int, message: str) -> str:
    return _page(
        "Error", f'<h1>Error {status}</h1><p class="error" id="error">{escape(message)}</p>'
    )
