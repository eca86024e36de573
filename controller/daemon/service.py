"""The railguard daemon: one asyncio process, one :class:`asyncio.TaskGroup` of named tasks.

``reader``   serial link to the reader board -> SnapshotTracker -> core queue
``gpio``     console buttons and chip/puck sensors -> core queue; LEDs and buzzer out
``pcsc``     staff badges -> core queue (when enabled)
``core``     the only consumer of the queue: TableCore.handle, then alerts, state, records
``mqtt``     the venue link (commands in, state/alerts/hand records out)
``outbox``   completed hands -> OHH -> the link's durable outbox and the table store
``watchdog`` systemd READY/WATCHDOG/STATUS and the status LED

In-process use (tests, ``railguard demo``)::

    stop = asyncio.Event()
    await run_daemon(cfg, pin_factory=MockFactory(), stop=stop)   # returns once stop is set

or ``d = Daemon(cfg, pin_factory=...)``; ``await d.run(stop)``; ``await d.ready.wait()``.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any

from controller.daemon import inputs, observe, reader, recovery, storage, venue_commands
from controller.daemon.config import DaemonConfig
from controller.daemon.lights import IndicatorLane
from controller.daemon.live import LiveEvents, hole_secrets, withheld
from controller.daemon.observe import Observation
from controller.daemon.sdnotify import notify, watchdog_interval
from controller.daemon.translate import (
    ReaderInput,
    alert_payload,
    scrub,
    state_payload,
)
from controller.daemon.venue_commands import handle_command
from controller.link import Command, CommandResult, TableStore, VenueLink
from controller.link.errors import LinkError, RedactionError
from controller.link.outbox import Outbox
from controller.rules.cards import Card
from controller.rules.decisions import (
    SEVERITY_NAMES,
    Alert,
    AlertCode,
    HandComplete,
    HandRecord,
    Instruction,
)
from controller.rules.decisions import Severity as CoreSeverity
from controller.rules.engine import Step, TableCore
from controller.rules.errors import RailguardError
from controller.rules.events import (
    BadgeTap,
    ButtonPress,
    CardPlaced,
    CardRemoved,
    ChipsIn,
    ChipsOut,
    Event,
    SeatPlayer,
    SetLevel,
    Tick,
)
from controller.rules.handlog import encode_event
from controller.rules.phases import Phase
from controller.rules.profile import InterruptedHand, Profile
from controller.rules.state import TableState
from firmware_bridge.antennas import SnapshotTracker
from firmware_bridge.decks import Deck, DeckRegistry, parse_tag
from firmware_bridge.gpio import Indicators
from firmware_bridge.serial_link import BoardFactory, LinkStatus, ReaderBoard

log = logging.getLogger("railguard.daemon")

_PHYSICAL = (CardPlaced, CardRemoved, ChipsIn, ChipsOut, ButtonPress, BadgeTap)


@dataclass
class _Item:
    event: Event
    source: str
    reply: asyncio.Future[Step] | None = None


class _NullIndicators:
    def set_action_seat(self, seat: int | None) -> None: ...
    def alert(self, severity: Any) -> None: ...
    def status(self, status: Any) -> None: ...
    def clear(self) -> None: ...


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
    ) -> None:
        self.cfg = cfg
        self.pin_factory = pin_factory
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
        self.pending_profile: Profile | None = None
        # the hand counter: never below the last hand started, even one whose counter
        # write a full disk refused
        counter = max(self.store.hand_counter(), self.hand_slot.started)
        self.core: TableCore = TableCore(self._stored_profile(), cfg.table, hand_no=counter)
        self.names: dict[int, str] = {}
        self.level_no: int = 1  # the level in force; pending_level_no: set for the next hand
        self.pending_level_no: int | None = None
        self.queue: asyncio.Queue[_Item] = asyncio.Queue()
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
        self.link.secrets = lambda: hole_secrets(self.core)  # the hole-card guard's secrets
        self.link.guard.persist(self.store)  # request ids survive a restart (no replays)
        self.reader: ReaderBoard | None = None
        self.settler: reader.Settler | None = None  # changes_only: the burst-gap timer
        self.cycle_timer: reader.CycleTimer | None = None  # otherwise: an open cycle's timer
        self.frame = asyncio.Event()  # set by every frame from the board
        self.last_frame = 0.0
        self._indicators: Indicators = _NullIndicators()
        self.ready = asyncio.Event()
        self.stats: DaemonStats = DaemonStats()
        self.records: list[dict[str, Any]] = []  # OHH of hands completed in this run
        self._hand_start: dict[int, datetime] = {}
        self._last_state: dict[str, Any] | None = None
        self.live: LiveEvents = LiveEvents(cfg.venue, cfg.table)
        self.open_alerts: list[str] = []  # alert ids not yet acknowledged
        self.badge_reader: str | None = None  # PC/SC status (None: pcsc disabled)
        self.tick_interval = 1.0  # seconds between Ticks while a clock runs
        self._positions_saved: Any = None
        self._levels_saved: Any = None
        self.interrupted: list[int] = []
        self.interrupt_outcome = ""
        # called with every handled event and its step (hwsim's scenario runner: an alert's
        # card, pots' eligible seats); must not block; one that raises is logged and dropped
        self.watchers: list[Callable[[Event, Step], None]] = []
        self.lost: list[int] = []  # hands whose record and event log a full disk lost
        self._restore()
        refresh = board.full_refresh_cycles if board is not None and board.changes_only else 1
        self.reconciler = recovery.Reconciler(
            self.core, hand_restored=self.core.hand is not None,
            debounce=cfg.debounce_cycles, removal=cfg.removal_cycles,
            antennas=cfg.zones.antennas, period=self.scan_period, hold=self.tracker_changes,
            patience=(refresh + cfg.debounce_cycles + 2) * self.scan_period,
        )  # fmt: skip

    @property
    def indicators(self) -> Indicators:
        """The dealer's lights and buzzer; GPIO ones run on their own thread (lights.py)."""
        return self._indicators

    @indicators.setter
    def indicators(self, target: Indicators) -> None:
        old = self._indicators
        self._indicators = target if isinstance(target, _NullIndicators) else IndicatorLane(target)
        if isinstance(old, IndicatorLane):
            old.close()

    # ------------------------------------------------------------------ start-up

    def hand_id(self, hand_no: int) -> str:
        return f"{self.cfg.venue}-{self.cfg.table}-{hand_no}"

    def _stored_profile(self) -> Profile:
        """The profile a venue set at runtime (``set_profile``) wins over table.profile,
        unless table.profile was changed in the config since."""
        raw = self.store.get("runtime_profile")
        if isinstance(raw, dict) and raw.get("config") == self.cfg.profile.name:
            return recovery.profile_named(str(raw.get("name")), self.cfg.profile)
        return self.cfg.profile

    def _restore(self) -> None:
        """Seating, stacks, level, hand counter, button and decks from the table store;
        then the hand that was in progress (see :mod:`controller.daemon.recovery`)."""
        t = time.monotonic()
        for deck_id in self.store.decks():
            cards = {parse_tag(uid): Card.parse(c) for c, uid in self.store.deck(deck_id).items()}
            deck = Deck(deck_id, "", cards)
            deck.add_jokers(self.store.deck_jokers(deck_id))
            self.registry.put_deck(deck)
        for uid, value in self.cfg.chips.items():
            self.registry.add_chip(uid, value)
        lvl = self.store.level()
        self._levels_saved = self.store.get("levels")
        last = None if lvl is None else (lvl.small_blind, lvl.big_blind, lvl.ante)
        if lvl is not None:
            self.level_no = lvl.level
        if not recovery.apply_levels(self.core, self._levels_saved, last) and lvl is not None:
            self._apply(SetLevel(t, lvl.small_blind, lvl.big_blind, lvl.ante))
        for seat, rec in self.store.seating().items():
            self.names[seat] = rec.name
            self._apply(SeatPlayer(t, seat, rec.player_id, rec.stack))
        self._positions_saved = self.store.get("positions")
        recovery.apply_positions(self.core, self._positions_saved)
        self._restore_hand(t)
        venue_commands.restore_level_numbers(self)
        log.info(
            "restored table=%s hand_counter=%d seats=%d button=%s decks=%d chips=%d "
            "interrupted=%s",
            self.cfg.table, self.core.hand_no, len(self.core.seats),
            self.core.positions.button if self.core.positions else None,
            len(self.registry.decks), len(self.registry.chips),
            [self.hand_id(n) for n in self.interrupted],
        )  # fmt: skip

    def _restore_hand(self, now: float) -> None:
        hands = sorted(self.store.open_hands())
        self.lost = self.hand_slot.lost(hands)
        for old in hands[:-1]:  # kept while their record was not stored, or stale
            if not storage.stale_record(self, old, self.store.hand_events(old), now):
                log.warning("hand=%s: stale hand log dropped", self.hand_id(old))
                self.store.clear_hand_events(old)
        if not hands:
            return
        n = hands[-1]
        entries = self.store.hand_events(n)
        if entries and entries[0].get("type") == recovery.START:
            name = str(entries[0].get("profile", ""))
            current = self.core.profile
            self.core.switch_profile(recovery.profile_named(name, current))
            if self.core.profile is not current:
                self.pending_profile = current
        else:  # a log without its start record (an older version): nothing to rebuild
            log.error("hand=%s: hand log without a start record; not replayed", self.hand_id(n))
            self.store.clear_hand_events(n)
            self.interrupted, self.interrupt_outcome = [n], "misdeal"
            return
        hid = self.hand_id(n)
        res = recovery.replay_hand(self.core, entries, now, hand_id=hid)
        log.info("hand=%s replayed %d events (%d rejected) phase=%s", hid, res.events,
                 res.rejected, self.core.phase.value)  # fmt: skip
        if res.started_at:
            with contextlib.suppress(ValueError):
                self._hand_start[n] = datetime.fromisoformat(res.started_at)
        for d in res.decisions:
            if isinstance(d, HandComplete):  # completed before the stop, record not queued
                start = self._hand_start.pop(d.record.hand_no, datetime.now(UTC))
                self.hands.put_nowait((d.record, start))
        if self.core.phase in recovery.LIVE:
            self.interrupted = [n]
            policy = self.core.profile.interrupted_hand
            if policy is InterruptedHand.MISDEAL and recovery.rule_misdeal(self.core):
                self.store.append_hand_event(n, {"type": recovery.MISDEAL_MARK})
                self.interrupt_outcome = "misdeal"
            elif self.core.phase in recovery.PLAYING:
                self.interrupt_outcome = "resume"
            else:
                self.interrupt_outcome = self.core.phase.value  # a misdeal/void being cleared
        elif self.core.hand is None and not self.core.redeal_pending:
            self.store.clear_hand_events(n)
        self.live.resync(self.core)

    def _apply(self, ev: Event) -> None:
        step = self.core.handle(ev)
        if step.rejected is not None:
            log.warning("restore: %s rejected: %s", type(ev).__name__, step.rejected)

    def _flag_interrupted(self) -> None:
        """Tell the dealer (alert LED, buzzer) and the venue (alert, event) about a hand
        that a restart cut; the profile already decided how it goes on."""
        storage.flag_lost(self, self.lost)
        self.lost = []
        for hand_no in self.interrupted:
            hid = self.hand_id(hand_no)
            outcome = self.interrupt_outcome
            log.error("hand=%s interrupted by a restart; outcome=%s", hid, outcome)
            self.indicators.alert("critical")
            remedy = recovery.interrupted_remedy(hand_no, outcome)
            self.publish_alert({
                "code": "HAND_INTERRUPTED", "severity": "critical", "clause": "railguard restart",
                "remedy": remedy, "seat": None, "hand_no": hand_no or None,
            })  # fmt: skip
            self.event("hand_interrupted", {"hand_id": hid, "outcome": outcome}, hand_no)
        self.interrupted = []
        self.publish_state()

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
                    tg.create_task(self._core_task(), name="core"),
                    tg.create_task(self._mqtt_task(), name="mqtt"),
                    tg.create_task(storage.outbox_task(self), name="outbox"),
                    tg.create_task(self._watchdog_task(), name="watchdog"),
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
            log.info("stopped")

    # ------------------------------------------------------------------ inputs

    def put(self, ev: Event, source: str) -> None:
        self.queue.put_nowait(_Item(ev, source))

    def foreign_chip(self, seat: int) -> None:
        """A tag of no registry in seat's betting zone (reader.py): the dealer and venue."""
        self.indicators.alert("warning")
        self.publish_alert(reader.foreign_chip_alert(seat, self.core.hand_no or None))

    def observe(self, *, state: bool = False) -> Observation:
        """A frozen, read-only look at the daemon (controller/daemon/observe.py)."""
        return observe.observe(self, state=state)

    def acknowledge(self, alert_ids: list[str], *, by: str, publish: bool = True) -> None:
        inputs.acknowledge(self, alert_ids, by=by, publish=publish)

    # ------------------------------------------------------------------ core

    def clock_running(self) -> bool:
        h = self.core.hand
        return h is not None and bool(h.clock_seat)

    async def _core_task(self) -> None:
        """The queue's only consumer. While a player is on the clock and nothing else
        happens, a :class:`Tick` every ``tick_interval`` seconds lets the core rule on the
        countdown and the clock running out on time."""
        self.publish_state()
        getter: asyncio.Future[_Item] | None = None
        try:
            while True:
                if getter is None:
                    getter = asyncio.ensure_future(self.queue.get())
                timeout = self.tick_interval if self.clock_running() else None
                done, _ = await asyncio.wait({getter}, timeout=timeout)
                if not done:
                    self._serve(_Item(Tick(time.monotonic()), "clock"))
                    continue
                item, getter = getter.result(), None
                self._serve(item)
        finally:
            if getter is not None:
                getter.cancel()

    def _serve(self, item: _Item) -> None:
        try:
            step = self._handle(item)
        except Exception as exc:  # never let one event kill the table
            hid = self.hand_id(self.core.hand_no) if self.core.hand is not None else "-"
            log.exception("hand=%s core: %s from %s failed", hid, type(item.event).__name__,
                          item.source)  # fmt: skip
            if item.reply is not None and not item.reply.done():
                item.reply.set_exception(exc)
            return
        for watch in list(self.watchers):
            try:
                watch(item.event, step)
            except Exception:
                log.exception("watcher %r failed; dropped", watch)
                self.watchers.remove(watch)
        if item.reply is not None and not item.reply.done():
            item.reply.set_result(step)

    def _handle(self, item: _Item) -> Step:
        core = self.core
        ev = item.event
        if ev.t < core.t:  # a reading confirmed after a later command: keep time monotonic
            ev = replace(ev, t=core.t)
        before = core.hand_no
        pre = None
        if core.phase in (Phase.IDLE, Phase.COMPLETE) and isinstance(ev, _PHYSICAL):
            pre = recovery.capture(core, datetime.now(UTC).isoformat())
        step = core.handle(ev)
        self.stats.events += 1
        hid = self.hand_id(core.hand_no) if core.hand_no else "-"
        if step.rejected is not None:
            self.stats.rejected += 1
            log.warning("hand=%s event=%s source=%s rejected=%s: %s", hid, type(ev).__name__,
                        item.source, step.rejected.code,
                        scrub(str(step.rejected), hole_secrets(core)))  # fmt: skip
            if isinstance(ev, _PHYSICAL):
                self._alert(Alert(AlertCode.REJECTED, CoreSeverity.WARNING, "sensor input",
                                  f"Not accepted now: {step.rejected}", 0, None, ev.t))  # fmt: skip
            if not step.decisions:
                return step
            # the time that passed ran a clock out before the rejected event: the ruling
            # stands (logged as a Tick so that a restart replays it)
            ev = Tick(ev.t)
        if isinstance(ev, Tick):
            if not step.decisions:
                return step
            if core.phase in recovery.LIVE or any(
                isinstance(x, HandComplete) for x in step.decisions
            ):
                self._log_event(core.hand_no, encode_event(ev))
        # every accepted event, at DEBUG: a busy table makes a few a second, and the events
        # themselves are kept (SQLite event log, hand records); decisions are logged at INFO
        log.debug("hand=%s event=%s source=%s phase=%s", hid, type(ev).__name__, item.source,
                  step.phase.value)  # fmt: skip
        completed = any(isinstance(d, HandComplete) for d in step.decisions)
        if core.hand_no != before:
            self._hand_start[core.hand_no] = datetime.now(UTC)
            n = core.hand_no
            self.hand_slot.hand_started(n)  # in place, durable even on a full disk
            self.table_write(lambda st: st.put("hand_counter", n, durable=True),
                             f"hand={hid} hand counter")  # fmt: skip
            if pre is not None:
                self._log_event(n, pre)
        if isinstance(ev, _PHYSICAL) and (
            core.phase in recovery.LIVE or completed or core.redeal_pending
        ):
            self._log_event(core.hand_no, encode_event(ev))
        for d in step.decisions:
            if isinstance(d, Alert):
                self._alert(d)
            elif isinstance(d, Instruction):
                self._instruction(d, hid)
            elif isinstance(d, HandComplete):
                rec = d.record
                start = self._hand_start.pop(rec.hand_no, datetime.now(UTC))
                self.hands.put_nowait((rec, start))
        snap = core.snapshot()
        for kind, data, hand_no in self.live.after(core, snap, step.decisions):
            self.event(kind, data, hand_no)
        self._save_positions()
        self.apply_pending_profile()
        self.publish_state(snap)
        return step

    def _instruction(self, d: Instruction, hid: str) -> None:
        """An instruction to the dealer, also to the venue (``instruction`` event); card
        names are scrubbed as in alerts (live data)."""
        text = scrub(d.text, hole_secrets(self.core))
        log.info("hand=%s instruction seat=%d: %s", hid, d.seat, text)
        hand_no = self.core.hand_no if self.core.hand is not None else None
        self.event("instruction", {"text": text[:500], "seat": d.seat or None},
                   hand_no or None)  # fmt: skip

    def table_write(self, fn: Callable[[TableStore], Any], what: str) -> None:
        storage.table_write(self, fn, what)

    def _log_event(self, hand_no: int, entry: dict[str, Any]) -> None:
        self.table_write(lambda st: st.append_hand_event(hand_no, entry),
                         f"hand={self.hand_id(hand_no)} event log")  # fmt: skip

    def _save_positions(self) -> None:
        """Button position and level state, when they changed (see recovery)."""
        pos = recovery.positions_data(self.core)
        if pos != self._positions_saved:
            self.table_write(lambda st: st.put("positions", pos, durable=True), "button position")
            self._positions_saved = pos
        levels = recovery.levels_data(self.core)
        if levels != self._levels_saved:
            self.table_write(lambda st: st.put("levels", levels, durable=True), "level state")
            self._levels_saved = levels

    def apply_pending_profile(self) -> bool:
        """A profile set at runtime takes effect between hands."""
        prof = self.pending_profile
        core = self.core
        if prof is None or core.phase not in (Phase.IDLE, Phase.COMPLETE) or core.redeal_pending:
            return False
        old = core.profile.name
        core.switch_profile(prof)
        self.pending_profile = None
        log.info("hand=%s profile %s -> %s (from the next hand)",
                 self.hand_id(core.hand_no + 1), old, prof.name)  # fmt: skip
        self.event("profile_changed", {"profile": prof.name, "previous": old,
                                        "from_hand": core.hand_no + 1})  # fmt: skip
        self.publish_state()
        return True

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

    def _alert(self, a: Alert) -> None:
        self.stats.alerts += 1
        hand_no = self.core.hand_no if self.core.hand is not None else 0
        hid = self.hand_id(hand_no) if hand_no else "-"
        payload = alert_payload(a, hand_no, hole_secrets(self.core))
        log.warning("hand=%s alert=%s severity=%s seat=%d: %s", hid, a.code.value,
                    SEVERITY_NAMES[a.severity], a.seat, payload["remedy"])  # fmt: skip
        self.indicators.alert(SEVERITY_NAMES[a.severity])
        self.publish_alert(payload)

    def publish_alert(self, payload: dict[str, Any]) -> None:
        try:
            self.open_alerts.append(self.link.publish_alert(payload))
        except (LinkError, RailguardError) as exc:
            n = payload.get("hand_no")
            log.error("hand=%s alert not published: %s", self.hand_id(n) if n else "-", exc)
        del self.open_alerts[:-100]

    _publish_alert = publish_alert  # the older name

    def publish_state(self, snap: TableState | None = None) -> None:
        snap = snap or self.core.snapshot()
        payload = state_payload(snap, names=self.names, **venue_commands.level_fields(self))
        if self.badge_reader is not None:
            payload["badge_reader"] = self.badge_reader
        self.indicators.set_action_seat(snap.to_act or None)
        if payload == self._last_state:
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
        self._last_state = payload
        self.stats.states += 1

    # ------------------------------------------------------------------ commands

    async def submit(self, ev: Event) -> Step:
        fut: asyncio.Future[Step] = asyncio.get_running_loop().create_future()
        self.queue.put_nowait(_Item(ev, "venue", fut))
        return await fut

    async def on_command(self, cmd: Command) -> CommandResult:
        return await handle_command(self, cmd)

    # ------------------------------------------------------------------ link and outbox

    async def _mqtt_task(self) -> None:
        await self.link.run()

    async def _watchdog_task(self) -> None:
        interval = watchdog_interval()
        tick = min(interval or 1.0, 1.0)
        started = time.monotonic()
        last_ping = 0.0
        last_status = ""
        while True:
            now = time.monotonic()
            reader_ok = self.reader is not None and self.reader.status is LinkStatus.ONLINE
            # ready once the table on the board and the restored core agree (reconciled)
            settled = reader_ok and not self.reconciler.active
            if not self.ready.is_set() and (
                (settled and self.link.connected) or now - started > self.cfg.ready_timeout
            ):
                self._flag_interrupted()
                self.ready.set()
                notify("READY=1")
                # what start-up built lives as long as the daemon: out of the collector's
                # way, so that a full collection scans only what came since (it took 26 ms
                # with everything in it, once in 500 alerts of bench/e2e.py)
                gc.collect()
                gc.freeze()
                log.info("ready reader=%s broker=%s", reader_ok, self.link.connected)
            reader = self.reader.status.value if self.reader is not None else "offline"
            broker = "connected" if self.link.connected else "disconnected"
            status = f"reader {reader}, broker {broker}, hand {self.core.hand_no}"
            if status != last_status:
                notify(f"STATUS={status}")
                last_status = status
                health = "ok" if reader_ok and self.link.connected else (
                    "offline" if not reader_ok else "degraded")  # fmt: skip
                self.indicators.status(health)
            if interval is not None and now - last_ping >= interval:
                notify("WATCHDOG=1")
                last_ping = now
            await asyncio.sleep(tick if self.ready.is_set() else 0.05)


async def run_daemon(
    cfg: DaemonConfig,
    *,
    pin_factory: Any = None,
    board_factory: BoardFactory | None = None,
    stop: asyncio.Event | None = None,
) -> None:
    """Run the daemon until ``stop`` is set (or forever)."""
    await Daemon(cfg, pin_factory=pin_factory, board_factory=board_factory).run(stop)
