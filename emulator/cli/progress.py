"""A long verb's progress on the terminal: one line rewritten in place, only when the output is
a terminal and not JSON."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from emulator.cli.client import Context, printable

if TYPE_CHECKING:
    pass


@contextmanager
def progress(enabled: bool) -> Iterator[Callable[[str], None]]:
    """A one-line status on a terminal (rewritten in place), ended by a newline; nothing
    when ``enabled`` is false (stdout is not a terminal, or ``--json``)."""
    shown = [False]

    def show(text: str) -> None:
        if enabled:
            sys.stdout.write(f"\r\x1b[K{printable(text)}")
            sys.stdout.flush()
            shown[0] = True

    try:
        yield show
    finally:
        if shown[0]:
            sys.stdout.write("\n")
            sys.stdout.flush()


def on_terminal(context: Context) -> bool:
    return not context.json and sys.stdout.isatty()
