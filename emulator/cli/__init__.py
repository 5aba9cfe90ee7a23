"""The ``payments-emulator`` commands: ``serve`` and the verbs that drive a running emulator over
its control plane (``client``, ``verbs``, ``trigger``, ``listen``)."""

from __future__ import annotations

from collections.abc import Sequence


def main(argv: Sequence[str] | None = None) -> int:
    """The console script. Each part is imported when its command runs: a client verb starts
    without the server's modules (the ones it needs are a fraction of the package)."""
    from emulator.cli.commands import main as run

    return run(argv)


__all__ = ["main"]
