"""The railguard daemon: one asyncio process, one :class:`asyncio.TaskGroup` of named tasks.

``reader``   serial link to the reader board -> SnapshotTracker -> core queue
``gpio``     console buttons and chip/puck sensors -> core queue; LEDs and buzzer out
``pcsc``     staff badges -> core queue (when enabled)
``core``     the only consumer of the queue: TableCore.handle, then alerts, state, records
``mqtt``     the venue link (commands in, state/alerts/hand records out)
``outbox``   completed hands -> OHH -> the link's durable outbox and the table store
``watchdog`` systemd READY/WATCHDOG/STATUS and the status LED

This module is the composition root: :class:`Daemon` builds the parts' objects (stores,
writer lanes, tracker, reconciler, venue link), restores the table (startup.py) and runs
each task, handing itself to each part as that part's narrow Protocol:

=================  ==========================================  ==========================
task / part        module: entry                               interface
=================  ==========================================  ==========================
reader             reader.reader_task                          reader.ReaderHost
gpio, pcsc         inputs.gpio_task, inputs.pcsc_task          inputs.InputHost
core               core_loop.core_task                         core_loop.CoreHost
outbox, storage    storage.outbox_task, storage.Writer         storage.StorageHost
watchdog           watchdog.watchdog_task                      watchdog.WatchdogHost
venue commands     venue_commands.handle_command               venue_commands.CommandHost
start-up           startup.restore, startup.flag_interrupted   startup.StartupHost
observation        observe.observe                             observe.ObserveHost
=================  ==========================================  ==========================

No part imports this module (tests/test_import_graph.py); mypy checks that ``Daemon``
satisfies each Protocol where it hands itself over.

In-process use (tests, ``railguard demo``)::

    stop = asyncio.Event()
    await run_daemon(cfg, pin_factory=MockFactory(), stop=stop)   # returns once stop is set

or ``d = Daemon(cfg, pin_factory=...)``; ``await d.run(stop)``; ``await d.ready.wait()``.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from controller.daemon import (
    core_loop,
    health,
    inputs,
    observe,
    reader,
    recovery,
    startup,
    storage,
    venue_commands,
    watchdog,
)
from controller.daemon.clock import Clock, SystemClock
from controller.daemon.config import DaemonConfig
from controller.daemon.core_loop import Item
from controller.daemon.lights import IndicatorLane, NullIndicators
from controller.daemon.live import LiveEvents, withheld
from controller.daemon.observe import Observation
from controller.daemon.sdnotify import notify
from controller.daemon.table_store import TableStore
from controller.daemon.trace import StageTrace
from controller.daemon.translate import ReaderInput, state_payload
from controller.link import Command, CommandResult, VenueLink
from controller.link.errors import LinkError, RedactionError
from controller.link.outbox import Outbox
from controller.rules.decisions import HandRecord
from controller.rules.engine import Step, TableCore
from controller.rules.errors import RailguardError
from controller.rules.events import Event
from controller.rules.state import TableState
from controller.rules.tabledata import TableData
from firmware_bridge.antennas import SnapshotTracker
from firmware_bridge.decks import DeckRegistry
from firmware_bridge.gpio import Indicators
from firmware_bridge.pcsc import BadgeFactory
from firmware_bridge.serial_link import BoardFactory, ReaderBoard

log = logging.getLogger("railguard.daemon")


@dataclass
class DaemonStats:
    events: int = 0
    rejected: int = 0
    alerts: int = 0
    hands: int = 0
    states: int = 0
    commands: int = 0
    live_events: int = 0
    reader_ticks: int = 0  # the reader task's scan-period ticks of the tracker


class Daemon:
    """One table's daemon (see the module docstring)."""

    def __init__(
        self,
        cfg: DaemonConfig,
        *,
        pin_factory: Any = None,
        board_factory: BoardFactory | None = None,
        badge_factory: BadgeFactory | None = None,
        clock: Clock | None = None,
    ) -> None:
        self.cfg = cfg
        # every time the daemon reads, stamps or waits on (clock.py): the machine's unless
        # given (the scenario rig's clock jumps ahead; a manual one for tests)
        self.clock: Clock = clock or SystemClock()
        self.pin_factory = pin_factory
        # the badge reader (when pcsc.enabled): a PcscReader over pcscd unless given
        self.badge_factory = badge_factory
        # the reader board: a SerialReaderLink over cfg.reader_ports unless given (hwsim's
        # in-process board), as gpiozero takes a pin factory
        self.board_factory = board_factory
        if pin_factory is None and cfg.pin_factory == "mock":
            from gpiozero.pins.mock import MockFactory

            self.pin_factory = MockFactory()
        cfg.storage.mkdir(parents=True, exist_ok=True)
        # reads, venue commands and (while the table lane is idle) the hot path's writes, on
        # the loop: a short busy timeout, a locked file goes to the table lane instead
        self.store = TableStore(cfg.table_db, busy_timeout=0.25)
        # the hot path's writes: one thread and connection per database (see storage.py)
        self.writer_store = TableStore(cfg.table_db)
        self.writer_outbox = Outbox(cfg.outbox_db)
        # a full disk loses no hand (storage.py): space held back, and the hand numbers
        self.reserve = storage.Reserve(cfg.storage / "reserve")
        self.reserve.fill()
        self.hand_slot = storage.HandSlot(cfg.storage / "hand.slot")
        self.alarm = storage.StorageAlarm(self, self.reserve)
        self.table_writer = storage.Writer("table", self.alarm)
        self.outbox_writer = storage.Writer("outbox", self.alarm)
        self.unstored = 0  # completed hand records not yet in the outbox
        self.registry: DeckRegistry = DeckRegistry()
        # the hand counter: never below the last hand started, even one whose counter
        # write a full disk refused
        counter = max(self.store.hand_counter(), self.hand_slot.started)
        profile = startup.stored_profile(self.store, cfg)
        self.core: TableCore = TableCore(profile, cfg.table, hand_no=counter)
        self.queue: asyncio.Queue[Item] = asyncio.Queue()
        self.hands: asyncio.Queue[tuple[HandRecord, datetime]] = asyncio.Queue()
        self.input = ReaderInput()
        board = cfg.daemon_link.board_config
        self.scan_period = board.scan_period_ms / 1000 if board is not None else 0.05
        self.tracker_changes = board is not None and board.changes_only
        self.tracker: SnapshotTracker = SnapshotTracker(
            cfg.zones, self.registry, debounce_cycles=cfg.debounce_cycles,
            removal_cycles=cfg.removal_cycles, scan_period=self.scan_period,
            changes_only=self.tracker_changes,
        )  # fmt: skip
        self.link = VenueLink(
            cfg.broker, cfg.venue, cfg.table, cfg.outbox_db, self.on_command,
            command_key=cfg.command_key,
        )  # fmt: skip
        self.link.secrets = lambda: self.live.secrets  # the hole-card guard's (core_loop.py)
        self.link.on_alert_written = self.alert_written
        # opt-in stage stamps of the alert path (bench/e2e.py): None unless the env asks
        self.trace: StageTrace | None = StageTrace.from_env()
        if self.trace is not None:
            self.link.trace = self.trace.link
        self.link.guard.persist(self.store)  # request ids survive a restart (no replays)
        # the live state's storage health (health.py)
        self.health = health.Health(self, clock=self.clock.monotonic)
        self.dealer_saved = ""  # the dealer on duty as the table store has it (health.py)
        self.table_kept: tuple[int, TableData] | None = None  # core_loop.table_before
        self.core_wait: asyncio.Timeout | None = None  # core_loop.offer
        self.reader: ReaderBoard | None = None
        self.settler: reader.Settler | None = None  # changes_only: the burst-gap timer
        self.cycle_timer: reader.CycleTimer | None = None  # otherwise: an open cycle's timer
        self.frame = asyncio.Event()  # set by every frame from the board
        self.last_frame = 0.0
        self._indicators: Indicators = NullIndicators()
        self.ready = asyncio.Event()
        self.stats: DaemonStats = DaemonStats()
        self.records: list[dict[str, Any]] = []  # OHH of hands completed in this run
        self.hand_start: dict[int, datetime] = {}  # hand -> start (records)
        self.last_state: dict[str, Any] | None = None  # the state last published
        self.live: LiveEvents = LiveEvents(cfg.venue, cfg.table)
        self.open_alerts: list[str] = []  # alert ids not yet acknowledged
        self.badge_reader: str | None = None  # PC/SC status (None: pcsc disabled)
        self.tick_interval = 1.0  # seconds between Ticks while a clock runs
        self.positions_saved: Any = None  # button, levels last written (startup, core)
        self.levels_saved: Any = None
        self.seating_saved: Any = None  # the seating last written (startup, core loop)
        self.interrupted: list[int] = []
        self.interrupt_outcome = ""
        # called with every handled event and its step (hwsim's scenario runner: an alert's
        # card, pots' eligible seats); must not block; one that raises is logged and dropped
        self.watchers: list[Callable[[Event, Step], None]] = []
        self.lost: list[int] = []  # hands whose record and event log a full disk lost
        startup.restore(self)
        refresh = board.full_refresh_cycles if board is not None and board.changes_only else 1
        self.reconciler = recovery.Reconciler(
            self.core, hand_restored=self.core.hand is not None,
            debounce=cfg.debounce_cycles, removal=cfg.removal_cycles,
            antennas=cfg.zones.antennas, period=self.scan_period, hold=self.tracker_changes,
            patience=(refresh + cfg.debounce_cycles + 2) * self.scan_period,
        )  # fmt: skip
        self.health.refresh(refill=False)  # the first state says it already (no loop yet)

    @property
    def indicators(self) -> Indicators:
        """The dealer's lights and buzzer; GPIO ones run on their own thread (lights.py)."""
        return self._indicators

    @indicators.setter
    def indicators(self, target: Indicators) -> None:
        old = self._indicators
        self._indicators = target if isinstance(target, NullIndicators) else IndicatorLane(target)
        if isinstance(old, IndicatorLane):
            old.close()

    # ------------------------------------------------------------------ start-up

    def hand_id(self, hand_no: int) -> str:
        return f"{self.cfg.venue}-{self.cfg.table}-{hand_no}"

    def flag_interrupted(self) -> None:
        """Once ready: the hands a restart cut or a full disk lost (startup.py)."""
        startup.flag_interrupted(self)

    # ------------------------------------------------------------------ run

    async def run(self, stop: asyncio.Event | None = None) -> None:
        stop = stop or asyncio.Event()
        notify("STATUS=starting")
        try:
            async with asyncio.TaskGroup() as tg:
                tasks = [
                    tg.create_task(reader.reader_task(self), name="reader"),
                    tg.create_task(inputs.gpio_task(self), name="gpio"),
                    tg.create_task(inputs.pcsc_task(self), name="pcsc"),
                    tg.create_task(core_loop.core_task(self), name="core"),
                    tg.create_task(self._mqtt_task(), name="mqtt"),
                    tg.create_task(storage.outbox_task(self), name="outbox"),
                    tg.create_task(watchdog.watchdog_task(self), name="watchdog"),
                ]
                await stop.wait()
                notify("STOPPING=1")
                log.info("stopping")
                await self.link.stop()
                for task in tasks:
                    task.cancel()
        finally:
            if isinstance(self._indicators, IndicatorLane):
                self._indicators.close()
            for w in (self.table_writer, self.outbox_writer):
                w.close()
            for db in (self.store, self.writer_store, self.writer_outbox, self.link.outbox):
                db.close()
            self.hand_slot.close()
            if self.trace is not None:
                self.trace.write()
            log.info("stopped")

    # ------------------------------------------------------------------ inputs

    def put(self, ev: Event, source: str) -> None:
        item = Item(ev, source)
        if self.trace is not None:
            item.stamps = self.trace.queued(source)
        if not core_loop.offer(self, item):  # served at once while the core is idle
            self.queue.put_nowait(item)

    def foreign_chip(self, seat: int) -> None:
        """A tag of no registry in seat's betting zone (reader.py): the dealer and venue."""
        self.indicators.alert("warning")
        self.publish_alert(reader.foreign_chip_alert(seat, self.core.hand_no or None))

    def observe(self, *, state: bool = False) -> Observation:
        """A frozen, read-only look at the daemon (controller/daemon/observe.py)."""
        return observe.observe(self, state=state)

    def acknowledge(self, alert_ids: list[str], *, by: str, publish: bool = True) -> None:
        inputs.acknowledge(self, alert_ids, by=by, publish=publish)

    # ------------------------------------------------------------------ shared by the parts
    # (each part names the ones it calls in its Protocol)

    def clock_running(self) -> bool:
        return core_loop.clock_running(self.core)

    def table_write(self, fn: Callable[[TableStore], Any], what: str) -> None:
        storage.table_write(self, fn, what)

    def event(self, kind: str, data: dict[str, Any], hand_no: int | None = None) -> None:
        try:
            if self.link.publish_event(kind, data, hand_no):
                self.stats.live_events += 1
                self.live.withheld.discard(f"event {kind}")
        except RedactionError as exc:
            withheld(self, f"event {kind}", str(exc))
        except (LinkError, RailguardError) as exc:
            log.error("hand=%s event %s not published: %s",
                      self.hand_id(hand_no) if hand_no else "-", kind, exc)  # fmt: skip

    def publish_alert(self, payload: dict[str, Any]) -> None:
        try:
            self.open_alerts.append(self.link.publish_alert(payload))
        except (LinkError, RailguardError) as exc:
            n = payload.get("hand_no")
            log.error("hand=%s alert not published: %s", self.hand_id(n) if n else "-", exc)
        del self.open_alerts[:-100]

    def alert_written(self) -> None:
        """An alert is on its way to the broker (VenueLink's direct path): the reader board
        is held for ``reader.alert_hold_ms``, so that the rest of the scan, read now, does
        not compete with the alert's crossing for the CPU; it is read in one go after."""
        if self.reader is not None:
            self.reader.hold(self.cfg.alert_hold)

    def publish_state(self, snap: TableState | None = None) -> None:
        snap = snap or self.core.snapshot()
        payload = state_payload(snap, **venue_commands.level_fields(self.core))
        if self.badge_reader is not None:
            payload["badge_reader"] = self.badge_reader
        payload["dealer"] = self.core.dealer[:64] or None
        payload["storage"] = self.health.storage
        payload["table_seats"] = list(venue_commands.table_seats(self))
        self.indicators.set_action_seat(snap.to_act or None)
        if payload == self.last_state:
            return
        try:
            self.link.publish_state(payload)
        except RedactionError as exc:
            withheld(self, "state", str(exc))
            return
        except (LinkError, RailguardError) as exc:
            log.error("state not published: %s", exc)
            return
        self.live.withheld.discard("state")
        self.last_state = payload
        self.stats.states += 1

    # ------------------------------------------------------------------ commands

    async def submit(self, ev: Event, accepted: Callable[[], None] | None = None) -> Step:
        fut: asyncio.Future[Step] = asyncio.get_running_loop().create_future()
        self.queue.put_nowait(Item(ev, "venue", fut, accepted=accepted))
        return await fut

    async def on_command(self, cmd: Command) -> CommandResult:
        return await venue_commands.handle_command(self, cmd)

    # ------------------------------------------------------------------ link

    async def _mqtt_task(self) -> None:
        await self.link.run()


async def run_daemon(
    cfg: DaemonConfig,
    *,
    pin_factory: Any = None,
    board_factory: BoardFactory | None = None,
    badge_factory: BadgeFactory | None = None,
    clock: Clock | None = None,
    stop: asyncio.Event | None = None,
) -> None:
    """Run the daemon until ``stop`` is set (or forever)."""
    await Daemon(
        cfg,
        pin_factory=pin_factory,
        board_factory=board_factory,
        badge_factory=badge_factory,
        clock=clock,
    ).run(stop)
