"""The composition root: one object that builds and owns everything a running emulator has."""

from __future__ import annotations

import asyncio
import contextlib
import functools
from pathlib import Path
from types import TracebackType
from typing import Any

import httpx

from emulator import resources
from emulator.bank.callbacks.router import OBJECT_TYPES as BANK_OBJECT_TYPES
from emulator.bank.callbacks.router import WANTED as BANK_WANTED
from emulator.bank.callbacks.router import bank_router
from emulator.core.auth import service as auth
from emulator.core.merchants import repo as merchants_repo
from emulator.core.merchants import service as merchants
from emulator.core.retention import jobs as retention
from emulator.delivery.engine import DeliveryEngine
from emulator.delivery.signing import Signer
from emulator.delivery.transport import Sender
from emulator.domain.urls import UrlRule
from emulator.gateway.webhooks.router import (
    OBJECT_TYPES,
    WANTED,
    Bodies,
    gateway_presigner,
    gateway_router,
)
from emulator.kernel import ticker
from emulator.kernel.bounded import Bounded
from emulator.kernel.clock import Clock, Clocks
from emulator.kernel.context import ClientDeletedHook, PurchaseEventHook
from emulator.kernel.ids import Ids
from emulator.kernel.journal import Journal
from emulator.kernel.known_none import KnownNone
from emulator.kernel.notices import Notices
from emulator.kernel.outbox import Outbox
from emulator.kernel.per_merchant import PerMerchant
from emulator.kernel.ratelimit import FixedWindow
from emulator.kernel.scheduler import Scheduler
from emulator.kernel.storage import Database
from emulator.kernel.timeline import Timeline
from emulator.runtime.settings import Settings
from emulator.sandbox.control import service as control
from emulator.sandbox.scenarios import service as scenarios
from emulator.sandbox.schedule import jobs
from emulator.sandbox.state import service_load as state_load
from emulator.scenarios.engine import Scenarios


class Runtime:
    """Database, clock, ids, scheduler, outbox, journal, credentials and the HTTP client.

    ``start`` opens the database (applying migrations), restores or sets the clock, seeds the
    default merchant and starts the ticker; ``stop`` undoes all of it. Nothing here is global:
    two runtimes in one process are two independent emulators.
    """

    def __init__(
        self, settings: Settings, *, transport: httpx.AsyncBaseTransport | None = None
    ) -> None:
        self.settings = settings
        # Where webhooks and callbacks may be sent (plain HTTP to --callback-hosts too).
        self.url_rule = UrlRule.of(settings.callback_hosts)
        # The server clock and merchants' own; ``clock.now()`` is the one being served.
        self.clock = Clocks(Clock(settings.clock, settings.start))
        self.ids = Ids(settings.seed)
        self.db = Database(settings.db_path)
        self.scheduler = Scheduler(self.db, self.clock, save_clock=control.persist_clock)
        self.outbox = Outbox(self.ids)
        self.journal = Journal(self.db)
        # What was recorded for a merchant wakes the waits on its expectations.
        self.notices = Notices()
        self.outbox.notices = self.journal.notices = self.notices
        self.scenarios = Scenarios(self.db)
        # The (merchant, kind) pairs known to have no armed delivery hold (``delivery.holds``).
        self.unarmed = KnownNone()
        # The app's root URL by what it is made of (scheme, Host, server, root path): a few
        # per server; bounded, so that hostile Host headers cannot grow it without end.
        self.base_urls: Bounded[tuple[object, ...], str] = Bounded(256)
        self.limiter = FixedWindow()  # rate-limit windows: traffic, not state
        # The other side's moves, for the flow recorder (``sandbox/flows/routes_moves.py``):
        # 2,000 of a merchant, 50,000 in all (about 200 bytes each: 10 MB), of 1,000 merchants.
        self.moves: PerMerchant[Any] = PerMerchant(kept=50_000, per_merchant=2_000, merchants=1_000)
        self._start_scenarios: list[scenarios.StartScenario] = []
        self.credentials = auth.Credentials(self)
        # Called in the unit of work of every purchase event, of every deleted client.
        self.purchase_event_hooks: list[PurchaseEventHook] = [
            functools.partial(hook, self) for hook in jobs.PURCHASE_EVENT_HOOKS
        ]
        self.client_deleted_hooks: list[ClientDeletedHook] = [
            functools.partial(hook, self) for hook in jobs.CLIENT_DELETED_HOOKS
        ]
        self.default_merchant = resources.default_merchant()
        self.test_values: dict[str, Any] = resources.test_values()
        # Deliveries to the emulator's own address reach its app in-process while no real
        # server serves it (create_app sets ``app``; a served app's lifespan sets ``served``).
        self.app: Any = None
        self.served = False
        self._transport = transport
        self.sender: Sender | None = None  # how deliveries are sent, once started
        self._ticker: asyncio.Task[None] | None = None
        self.started = False
        for kind, handler in jobs.JOBS.items():  # every job kind the services run
            self.scheduler.handle(kind, functools.partial(handler, self))
        self.scheduler.housekeeping = jobs.HOUSEKEEPING
        self.signer = Signer()
        self.deliveries = DeliveryEngine(self)
        for kind, send in self.deliveries.jobs.items():  # delivery.send
            self.scheduler.handle_async(kind, send)
        # What an instant emitted is dispatched before the clock moves past it (its first
        # attempts are due then), and the engine is told of each watched event as it is written.
        self.scheduler.before_step = self.deliveries.dispatch_now
        self.outbox.listener = self.deliveries.noticed
        bodies = Bodies()  # made ahead by the presigner, taken by the router
        self.deliveries.register(
            gateway_router(self.signer, bodies),
            OBJECT_TYPES,
            gateway_presigner(self.signer, bodies),
            WANTED,
        )
        self.deliveries.register(bank_router, BANK_OBJECT_TYPES, only=BANK_WANTED)

    @property
    def snapshot_dir(self) -> Path:
        return self.db.beside(".snapshots")  # in memory: gone with the process

    async def start(self) -> None:
        if self.started:
            return
        await self.db.open()
        try:
            await self._start_on_open_database()
        except BaseException:
            await self.db.close()  # the file lock and the connections' threads
            raise
        self.started = True

    async def _start_on_open_database(self) -> None:
        if self.settings.seed is not None:
            # A seed repeats every id on a fresh database (no merchant yet, not even the
            # default one). On one that holds state, from whatever version or run, the same
            # stream would hand out its ids again: continue from an unpredictable one.
            fresh = await self.db.read(control.is_fresh)
            self.ids.reseed(self.settings.seed if fresh else None)
        if not self.settings.clock_explicit:  # flags win: the stored clock is not even read
            stored = await control.load_clock(self)
            if stored is not None:
                self.clock.server.restore(stored)
        await control.load_own_clocks(self)
        await control.save_clock(self)
        await merchants.seed_default(self)
        await self.scenarios.load()
        # Files are read once: a reset activates what the process was started with even if
        # a file has changed or gone since.
        self._start_scenarios = scenarios.resolve(self.settings.scenarios)
        await scenarios.activate_at_start(self, self._start_scenarios, keep_counts=True)
        await retention.ensure_job(self)
        await self.scheduler.refresh()
        for path in self.settings.load:  # every start: the file's merchants as it has them
            raw = await asyncio.to_thread(path.read_bytes)
            json_hint = path.suffix == ".json"
            await state_load.load_bytes(self, raw, self.settings.base_url, json_hint)
        trust = tuple(p for p in (self.settings.callback_ca, self.settings.tls_ca) if p)
        self.sender = Sender(
            self.settings.port, lambda: None if self.served else self.app, trust, self._transport
        )
        self._ticker = asyncio.get_running_loop().create_task(
            ticker.tick_forever(self.scheduler, self.settings.ticker_interval),
            name="scheduler-ticker",
        )
        self.deliveries.start()

    async def stop(self) -> None:
        if not self.started:
            return
        self.started = False
        await self.deliveries.stop()
        if self._ticker is not None:
            self._ticker.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._ticker
            self._ticker = None
        await self.scheduler.cancel_running()  # their jobs stay pending: sent after a restart
        if self.sender is not None:
            await self.sender.aclose()
            self.sender = None
        await self.journal.flush()
        await control.save_clock(self)
        await self.db.close()

    async def reload_state(self, *, wiped: bool) -> None:
        """After the whole state changed at once: drop caches, reseed. After a reset (``wiped``)
        a seed starts over, as on a fresh database; after a restore the restored ids may come
        from any point of the stream, so ids continue from an unpredictable one."""
        self.credentials.forget()
        self.limiter.clear()
        if self.settings.seed is not None:
            self.ids.reseed(self.settings.seed if wiped else None)
        await control.save_clock(self)
        await merchants.seed_default(self)
        await self.scenarios.load()
        if wiped:  # scenarios given at start are part of how this emulator was started
            await scenarios.activate_at_start(self, self._start_scenarios, keep_counts=False)
        await retention.ensure_job(self)
        await self.scheduler.refresh()
        self.deliveries.wake()

    def forget_credentials(self) -> None:
        """Drop the cached credentials (a merchant was deleted: its keys stop working)."""
        self.credentials.forget()

    async def enter(self, merchant_id: str | None) -> Timeline:
        """Serve the rest of this request (or task) on the merchant's clock, having run what
        is already due on it, so what the request observes is never stale."""
        timeline = self.scheduler.timeline_of(merchant_id)
        self.clock.use(timeline.clock)
        if timeline.has_due():
            await self.scheduler.run_due(timeline)
        return timeline

    async def enter_object(self, table: str, object_id: str) -> None:
        """``enter`` the clock of the merchant that owns this object (pages and control-plane
        actions, which name an object instead of a merchant); nothing if there is none."""
        merchant_id = await self.db.read_point(
            lambda tx: merchants_repo.owner(tx, table, object_id)
        )
        if merchant_id is not None:
            await self.enter(merchant_id)

    async def __aenter__(self) -> Runtime:
        await self.start()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.stop()
