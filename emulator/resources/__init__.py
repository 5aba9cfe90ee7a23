"""Where the data folders shipped with the emulator are (fixtures/, scenarios/).

In a wheel they sit inside the package (``emulator/_data/``); in a source checkout or an
editable install they are beside the package, at the repository root.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import msgspec

from emulator.core.merchants.model import MerchantSeed
from emulator.domain.unpaids import Schedule

_PACKAGE = Path(__file__).resolve().parent.parent  # emulator/


def data_dir(name: str) -> Path:
    for candidate in (_PACKAGE / "_data" / name, _PACKAGE.parent / name):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(f"the emulator's {name}/ folder is missing (looked beside {_PACKAGE})")


def default_merchant() -> MerchantSeed:
    raw = (data_dir("fixtures") / "default_merchant.yaml").read_bytes()
    return msgspec.yaml.decode(raw, type=MerchantSeed)


def test_values() -> dict[str, object]:
    """The test values with the schedule of unpaid codes (for the ``1200000NN`` accounts)."""
    raw = (data_dir("fixtures") / "test_values.yaml").read_bytes()
    values = msgspec.yaml.decode(raw, type=dict[str, object])
    values["unpaid_codes"] = msgspec.to_builtins(unpaid_codes().codes)
    return values


@lru_cache(maxsize=1)
def platform_error_codes() -> frozenset[str]:
    """The gateway platform's error codes (``fixtures/platform_error_codes.txt``, a copy of
    the list in its official Go SDK), read once: every ``error.code`` the gateway puts in an
    attempt is one of them."""
    text = (data_dir("fixtures") / "platform_error_codes.txt").read_text(encoding="utf-8")
    lines = (line.strip() for line in text.splitlines())
    return frozenset(line for line in lines if line and not line.startswith("#"))


@lru_cache(maxsize=1)
def unpaid_codes() -> Schedule:
    """The schedule of unpaid reason codes (``fixtures/unpaid_codes.yaml``), read once."""
    raw = (data_dir("fixtures") / "unpaid_codes.yaml").read_bytes()
    return msgspec.yaml.decode(raw, type=Schedule)
