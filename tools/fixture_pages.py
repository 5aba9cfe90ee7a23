"""``docs/reference/test-values.md``: the magic cards, debtor accounts and unpaid codes of
``fixtures/`` (``fixtures/test_values.yaml`` and ``fixtures/unpaid_codes.yaml``), read through
``emulator.resources`` as ``GET /_emulator/test-values`` serves them."""

from __future__ import annotations

from typing import Any

from emulator import resources
from tools.markdown import code, page, table

# How a code's consequence reads on the page (fixtures/unpaid_codes.yaml says which).
CONSEQUENCES = {
    "temporary": "temporary: the mandate stays usable; the collection may be re-presented",
    "inactive": "the mandate becomes inactive",
    "authority": "dispute of authority: the mandate becomes inactive",
}


def _words(value: Any) -> str:
    return str(value).replace("_", " ")


def test_values_page() -> str:
    values = resources.test_values()
    cards: list[dict[str, str]] = values["cards"]  # type: ignore[assignment]
    rules: dict[str, str] = values["card_rules"]  # type: ignore[assignment]
    accounts: list[dict[str, str]] = values["accounts"]  # type: ignore[assignment]
    codes = resources.unpaid_codes().codes
    forced: list[dict[str, str]] = values["outcome_header"]  # type: ignore[assignment]
    body = [
        "Magic values with documented outcomes, on the emulator clock. The emulator serves the"
        " same values as `GET /_emulator/test-values`.",
        "",
        "## Cards",
        "",
        "The purchase outcomes apply to every way of paying (the checkout page, a direct post,"
        " `POST /_emulator/purchases/{id}/pay`); the payout outcomes to a payout's execution.",
        "",
        *table(
            ("Card", "Purchase outcome", "Payout outcome"),
            [[code(c["number"]), c.get("purchase", ""), c.get("payout", "")] for c in cards],
        ),
        "",
        *table(("Rule", "Value"), [[_words(k), v] for k, v in rules.items()]),
        "",
        "## Debtor accounts",
        "",
        "For v2 collections (the debtor's account) and payments (the creditor's account)."
        " `1200000NN` stands for the nine-digit accounts 120000002, 120000003... one per code"
        " of the schedule below (120000012: account closed); other numbers of that shape"
        " (120000001) are ordinary accounts.",
        "",
        *table(
            ("Debtor account", "Outcome"),
            [
                [code(a["number"]) if a["number"][:1].isdigit() else a["number"], a["outcome"]]
                for a in accounts
            ],
        ),
        "",
        "## Unpaid codes",
        "",
        "The clearing house's schedule of unpaid reason codes as the emulator applies them: an"
        " UNPAID or DISPUTED collection or payment carries `reasonCode` and `reason` (the code's"
        " text). A COMPLETED collection can be DISPUTED only with a code of authority.",
        "",
        *table(
            ("Code", "Reason", "Consequence"),
            [[code(c.code), c.text, CONSEQUENCES[c.consequence]] for c in codes],
        ),
        "",
        "## Outcome header",
        "",
        "A request header `X-Emulator-Outcome` on a creating call forces that object's outcome"
        " without a scenario (durations: days, hours, minutes, seconds, as `+1d12h`, on the"
        " merchant's clock). Any other value is a 400 in the interface's dialect naming the"
        " allowed ones; `serve --no-outcome-header` ignores the header, as the platform would."
        " The guide: [Testing your webhook handler](../webhook-testing.md).",
        "",
        *table(
            ("Value", "On", "Outcome"),
            [[code(f["value"]), f["call"], f["outcome"]] for f in forced],
        ),
    ]
    return page(
        "Test values",
        "`fixtures/test_values.yaml` and `fixtures/unpaid_codes.yaml`",
        body,
    )
