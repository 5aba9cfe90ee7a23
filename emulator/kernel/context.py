"""What the services use of a running emulator: ``Context``, a narrow interface.

The composition root (``runtime.runtime.Runtime``) satisfies it structurally; services are
typed against it and never import the runtime, so the layers below ``serving`` form no import
circle with it. What lives in an outer layer (the scenario engine, the delivery engine, the
settings) is typed here by the few members services use of it.

A job handler takes the context with the job's unit of work and the job (``JobHandler``):
each service declares its job kinds as a ``JOBS`` table next to its handlers,
``sandbox.schedule.jobs`` collects them and the runtime registers that one table with the scheduler.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import datetime
from pathlib import Path
from typing import Any, Protocol, TypeVar

from emulator.core.merchants.model import MerchantSeed
from emulator.domain.events import Event
from emulator.domain.urls import UrlRule
from emulator.kernel.clock import Clocks, Mode
from emulator.kernel.ids import Ids
from emulator.kernel.jobs import Job
from emulator.kernel.journal import Journal
from emulator.kernel.known_none import KnownNone
from emulator.kernel.notices import Notices
from emulator.kernel.outbox import Outbox
from emulator.kernel.scheduler import Scheduler
from emulator.kernel.storage import Database, Tx
from emulator.kernel.timeline import Timeline

T = TypeVar("T")
T_co = TypeVar("T_co", covariant=True)


class DecisionPoint(Protocol[T_co]):
    """A scenario decision point (``scenarios.points.Point``): its name and its outcome type."""

    @property
    def name(self) -> str: ...

    @property
    def outcome(self) -> type[T_co]: ...


class Decisions(Protocol):
    """The scenario engine (``scenarios.engine.Scenarios``) as services use it."""

    def decide(
        self, tx: Tx, point: DecisionPoint[T], merchant_id: str | None, subject: Mapping[str, Any]
    ) -> T | None: ...

    def decide_why(
        self, tx: Tx, point: DecisionPoint[T], merchant_id: str | None, subject: Mapping[str, Any]
    ) -> tuple[T | None, str | None]: ...

    async def load(self) -> None: ...


class Deliveries(Protocol):
    """The delivery engine (``delivery.engine.DeliveryEngine``) as services use it."""

    async def flush(
        self, *, merchant_id: str | None = None, sink_path: str | None = None
    ) -> None: ...


class SettingValues(Protocol):
    """The settings (``runtime.settings.Settings``) that services read."""

    @property
    def clock(self) -> Mode: ...

    @property
    def start(self) -> datetime | None: ...

    @property
    def retain_seconds(self) -> int | None: ...


# Called in the unit of work of every purchase event: (tx, merchant id, the event).
PurchaseEventHook = Callable[[Tx, str, Event], None]
# Called in the unit of work that deletes a client: (tx, merchant id, client id).
ClientDeletedHook = Callable[[Tx, str, str], None]


class Context(Protocol):
    """The database, clocks, ids, scheduler, outbox, journal, scenarios and deliveries of one
    running emulator, with the settings and fixtures that services read."""

    @property
    def settings(self) -> SettingValues: ...

    @property
    def db(self) -> Database: ...

    @property
    def clock(self) -> Clocks: ...

    @property
    def ids(self) -> Ids: ...

    @property
    def scheduler(self) -> Scheduler: ...

    @property
    def outbox(self) -> Outbox: ...

    @property
    def journal(self) -> Journal: ...

    @property
    def notices(self) -> Notices: ...

    @property
    def scenarios(self) -> Decisions: ...

    @property
    def deliveries(self) -> Deliveries: ...

    @property
    def url_rule(self) -> UrlRule: ...

    @property
    def default_merchant(self) -> MerchantSeed: ...

    @property
    def snapshot_dir(self) -> Path: ...

    @property
    def purchase_event_hooks(self) -> list[PurchaseEventHook]: ...

    @property
    def client_deleted_hooks(self) -> list[ClientDeletedHook]: ...

    @property
    def unarmed(self) -> KnownNone: ...

    async def enter(self, merchant_id: str | None) -> Timeline: ...

    async def reload_state(self, *, wiped: bool) -> None: ...


# A job's handler: (the context, the job's unit of work, the job).
JobHandler = Callable[[Context, Tx, Job], None]
