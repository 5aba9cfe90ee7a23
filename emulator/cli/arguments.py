"""What a verb's arguments must be: a merchant given (--merchant), a name that fits its rule,
refused in one line before anything is sent."""

from __future__ import annotations

import argparse
import re
from typing import TYPE_CHECKING

from emulator.cli.client import UsageError, segment

if TYPE_CHECKING:
    pass


def checked_name(value: str, pattern: re.Pattern[str], what: str, rule: str) -> str:
    """A name the server would accept (``pattern`` is the server's own), as a path segment."""
    if not pattern.match(value):
        raise UsageError(f"{what} {value!r}: {rule}")
    return segment(value, what)


def merchant_option(parser: argparse.ArgumentParser, what: str) -> None:
    parser.add_argument("--merchant", metavar="COMPANY_ID", default=argparse.SUPPRESS, help=what)
