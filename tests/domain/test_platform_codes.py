"""Every error code the gateway puts in an attempt is one of the platform's own codes
(``fixtures/platform_error_codes.txt``, from its official Go SDK; FIDELITY.md "Codes are the
platform's"): the test cards, the scenario decline codes, the test values, and every code
written in ``emulator/`` where an attempt's error is made."""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import get_args

from emulator import resources
from emulator.domain import cards
from emulator.scenarios import library, points

ROOT = Path(__file__).resolve().parents[2]
PLATFORM = resources.platform_error_codes()

# Codes written in emulator/ that are not the platform's, and why they stay.
NOT_THE_PLATFORMS = {
    "card_declined": "the spec's answer to a decline (422 on charge/, the direct post's 400);"
    " declined() takes it as the mark of a decline and writes the reason's code",
    "purchase_capture_error": "the spec's code of a refused capture",
    "payout_failed": "a payout's own attempt (payouts are not in the SDK's list)",
    "payout_expired": "a payout's own attempt (payouts are not in the SDK's list)",
}


def test_the_list_is_the_sdks_with_where_it_comes_from():
    text = (resources.data_dir("fixtures") / "platform_error_codes.txt").read_text()
    assert text.startswith("# The gateway platform's error codes")
    assert "official Go SDK" in text
    assert len(PLATFORM) == 64
    assert {"invalid_card_number", "lost_card", "stolen_card", "do_not_honour"} <= PLATFORM
    assert all(re.fullmatch(r"[0-9a-z_]+", code) for code in PLATFORM)


def test_every_decline_code_is_the_platforms():
    declines = set(get_args(cards.DeclineCode))
    assert declines <= PLATFORM
    assert set(get_args(points.DeclineReason)) == declines
    assert set(cards.DECLINE_MESSAGES) == declines
    assert {cards.UNKNOWN_CARD, cards.WRONG_CVC} <= declines
    assert set(cards.OLDER_DECLINE_CODES.values()) <= declines


def test_every_test_cards_decline_is_the_platforms():
    reasons = {o.reason for o in cards.TEST_CARDS.values() if o.result == "decline"}
    assert len(reasons) == 10
    assert reasons <= PLATFORM


def test_the_older_codes_are_not_the_platforms():
    """They are what scenario files of earlier releases name; none is the platform's."""
    assert not set(cards.OLDER_DECLINE_CODES) & PLATFORM


def test_the_test_values_name_the_test_cards_codes():
    """fixtures/test_values.yaml says each card's code as cards.py has it."""
    values = resources.test_values()
    listed = {c["number"]: c["purchase"] for c in values["cards"]}  # type: ignore[index, union-attr]
    for number, outcome in cards.TEST_CARDS.items():
        if outcome.result == "decline":
            assert listed[number].startswith(f"card_declined, {outcome.reason}"), number
    other = values["card_rules"]["other_luhn_valid"]  # type: ignore[index, call-overload]
    assert other == f"card_declined, {cards.UNKNOWN_CARD}"
    written = re.findall(r"card_declined, ([a-z_0-9]+)", str(values))
    assert written and set(written) <= PLATFORM


# -- every code written in emulator/ where an attempt's error is made ----------------------


def _constants(tree: ast.Module) -> dict[str, str]:
    """The module's ``NAME = "text"`` assignments."""
    found: dict[str, str] = {}
    for node in tree.body:
        value = node.value if isinstance(node, ast.Assign | ast.AnnAssign) else None
        targets = node.targets if isinstance(node, ast.Assign) else []
        if isinstance(node, ast.AnnAssign):
            targets = [node.target]
        if isinstance(value, ast.Constant) and isinstance(value.value, str):
            for target in targets:
                if isinstance(target, ast.Name):
                    found[target.id] = value.value
    return found


def _strings(node: ast.expr | None, names: dict[str, str]) -> list[str]:
    """The texts an expression can be: a literal, a module constant, ``a or "b"``."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, ast.Name) and node.id in names:
        return [names[node.id]]
    if isinstance(node, ast.BoolOp):
        return [text for value in node.values for text in _strings(value, names)]
    return []


def _callee(call: ast.Call) -> str:
    func = call.func
    return func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")


def _argument(call: ast.Call, index: int | None, keyword: str) -> ast.expr | None:
    for kw in call.keywords:
        if kw.arg == keyword:
            return kw.value
    return call.args[index] if index is not None and len(call.args) > index else None


# (callee, position, keyword) of each call that writes an attempt's error code.
CODE_ARGUMENTS: list[tuple[str, int | None, str]] = [
    ("AttemptError", 0, "code"),  # purchases' and payouts' attempts
    ("CardPlan", None, "code"),  # a payout test card's error
    ("failed", 2, "code"),  # domain/purchases.py: a failed attempt
    ("declined", 2, "code"),  # domain/purchases.py: a decline or 3-D Secure's failure
    ("Outcome", 1, "reason"),  # a test card's decline
]


def codes_written_in_the_package() -> dict[str, set[str]]:
    """Every code written in ``emulator/`` as an attempt's error code, with where."""
    found: dict[str, set[str]] = {}
    for path in sorted((ROOT / "emulator").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        names = _constants(tree)
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            for callee, index, keyword in CODE_ARGUMENTS:
                if _callee(node) != callee:
                    continue
                for text in _strings(_argument(node, index, keyword), names):
                    where = f"{path.relative_to(ROOT)}:{node.lineno}"
                    found.setdefault(text, set()).add(where)
    return found


def test_every_code_written_in_the_package_is_the_platforms():
    written = codes_written_in_the_package()
    # The scan sees what it should: the 3-D Secure failure, a test card's, a payout's.
    assert {"3ds_authentication_failed", "do_not_honour", "payout_expired"} <= set(written)
    strangers = {
        code: sorted(where)
        for code, where in written.items()
        if code not in PLATFORM and code not in NOT_THE_PLATFORMS
    }
    assert not strangers, f"not codes of the platform: {strangers}"
    # Every exception is still written somewhere: the list does not outlive its reason.
    assert set(NOT_THE_PLATFORMS) <= set(written)
    assert not set(NOT_THE_PLATFORMS) & PLATFORM


def test_the_shipped_scenarios_use_no_older_form():
    """The library says the platform's codes (and reasonCode) itself: loading it notes
    nothing."""
    shipped = library.shipped()
    assert shipped
    assert {name: s.notes for name, s in shipped.items() if s.notes} == {}
