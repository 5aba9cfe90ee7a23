"""Test helpers that need no pytest: a live emulator, its control plane, merchants, sinks.

``emulator.testing.pytest_plugin`` is a thin shim over these classes::

    with EmulatorServer() as server, server.client() as control:
        merchant = control.new_merchant(clock="frozen")  # its own clock, at the server's now
        with control.gateway(merchant) as gateway:
            gateway.post("clients/", json={"email": "jane@example.com"})
        EmulatorClock(control, merchant).advance(timedelta(days=1))  # moves that merchant only

The in-process emulator's real-mode clocks read ``time.time()``, so freezegun (or
time-machine) in a test moves them too: the server clock (with every merchant that follows
it) and a merchant's own clock in real mode; a frozen clock stands still.
``emulator.testing.live_server.loop_factory`` says why the emulator's event loop keeps running
meanwhile. Waits here are the emulator's own (a sink's ``wait_for``, ``client.wait``, an
actor's ``wait_for_delivery``): it answers as soon as what they wait for has
happened, and they ask in slices whose lengths add up to the timeout, never against a
deadline read from a clock that a test may have frozen. Only a starting server's health is
polled, with ``time.sleep``.
"""

from emulator.testing.actors import BankOutcome, Delivery, DeliveryKind
from emulator.testing.client import EmulatorClient, EmulatorClock, Sink, unique_name
from emulator.testing.expectations import Expect, Expectation, ExpectationReport, expect
from emulator.testing.flows import load_flow, run_flow
from emulator.testing.live_server import EmulatorStartError
from emulator.testing.records import (
    ClientCredentials,
    ClockInfo,
    EmulatorError,
    Merchant,
    Profile,
    ScheduledJob,
    SinkMessage,
)
from emulator.testing.servers import Emulator, EmulatorServer, ExternalEmulator

__all__ = [
    "BankOutcome",
    "ClientCredentials",
    "ClockInfo",
    "Delivery",
    "DeliveryKind",
    "Emulator",
    "EmulatorClient",
    "EmulatorClock",
    "EmulatorError",
    "EmulatorServer",
    "EmulatorStartError",
    "Expect",
    "Expectation",
    "ExpectationReport",
    "ExternalEmulator",
    "Merchant",
    "Profile",
    "ScheduledJob",
    "Sink",
    "SinkMessage",
    "expect",
    "load_flow",
    "run_flow",
    "unique_name",
]
