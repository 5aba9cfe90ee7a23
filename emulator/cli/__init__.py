"""The ``payments-emulator`` commands: ``serve`` and the verbs that drive a running emulator over
its control plane (``client``, ``verbs``, ``trigger``, ``listen``)."""

from emulator.cli.commands import main

__all__ = ["main"]
