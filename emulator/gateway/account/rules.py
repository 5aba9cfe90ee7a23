"""What a purchase can be paid with (GET /payment_methods/, FIDELITY "Payment methods").

The sandbox offers card methods only, in every currency and country; all of them support
recurring charges, skip_capture and preauthorization.
"""

from __future__ import annotations

from typing import Any

CARD_METHODS = ("visa", "mastercard")
AVAILABLE = CARD_METHODS
NAMES = {"visa": "Visa", "mastercard": "Mastercard"}
LOGOS = {
    "visa": "/static/images/icon-visa.svg",
    "mastercard": "/static/images/icon-mastercard.svg",
}


def listing() -> dict[str, Any]:
    """The body of GET /payment_methods/ (OpenAPI ``payment_methods`` response)."""
    return {
        "available_payment_methods": list(AVAILABLE),
        "by_country": {"any": ["card"]},
        "country_names": {"any": "Other"},
        "names": dict(NAMES),
        "logos": dict(LOGOS),
        "card_methods": list(CARD_METHODS),
    }


def allowed(card_brand: str, whitelist: list[str] | None) -> bool:
    """Whether a card of ``card_brand`` may pay a purchase with this whitelist ("card" in a
    whitelist stands for every card method)."""
    if whitelist is None:
        return True  # an unknown brand then declines as invalid_card_number (test values)
    return card_brand in whitelist or ("card" in whitelist and card_brand in CARD_METHODS)
