"""The payer's HTML pages: plain forms, no JavaScript, everything escaped."""

from __future__ import annotations

from html import escape

from emulator.domain.purchase_model import Purchase
from emulator.domain.purchases import PAYABLE

_STYLE = (
    "body{font-family:system-ui,sans-serif;max-width:32rem;margin:2rem auto;padding:0 1rem}"
    "label{display:block;margin:.6rem 0 .2rem}input[type=text]{width:100%;padding:.4rem}"
    "button{margin-top:1rem;padding:.5rem 1.2rem}.error{color:#b00020}table{width:100%}"
    "td.amount{text-align:right}"
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


def _summary(p: Purchase) -> str:
    rows = "".join(
        f'<tr><td>{escape(item.name)}</td><td class="amount">'
        f"{money(item.price, p.purchase.currency)}</td></tr>"
        for item in p.purchase.products
    )
    issuer = escape(p.issuer_details.brand_name or "Merchant")
    return (
        f"<h1>{issuer}</h1><p>Purchase <code>{escape(p.reference or p.reference_generated)}</code>"
        f"</p><table>{rows}</table><p><strong>Total: "
        f'<span id="total">{money(p.purchase.total, p.purchase.currency)}</span></strong></p>'
    )


def checkout(p: Purchase, error: str = "", values: dict[str, str] | None = None) -> str:
    """The checkout page: the purchase and a card form posting back to the same URL."""
    if p.status not in PAYABLE:
        return result(p)
    values = values or {}
    field = {k: escape(values.get(k, ""), quote=True) for k in ("cardholder_name", "expires")}
    problem = f'<p class="error" id="error">{escape(error)}</p>' if error else ""
    last = p.transaction_data.attempts[0].error if p.transaction_data.attempts else None
    if not error and p.status == "error" and last is not None:
        problem = f'<p class="error" id="error">{escape(last.message)}</p>'
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
    return _page("Checkout", _summary(p) + problem + form)


def result(p: Purchase) -> str:
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
    return _page(text, _summary(p) + f'<p id="status" data-status="{escape(p.status)}">{text}</p>')


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
