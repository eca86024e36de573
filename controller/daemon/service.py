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
import logging
import time
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any

from controller.daemon.config import DaemonConfig
from controller.daemon.sdnotify import notify, watchdog_interval
from controller.daemon.translate import ReaderInput, alert_payload, encode_event, state_payload
from controller.link import (
    AckAlert,
    Command,
    CommandResult,
    EnrolDeck,
    MovePlayer,
    SetProfile,
    TableStore,
    VenueLink,
)
from controller.link import SeatPlayer as SeatCmd
from controller.link import SetLevel as LevelCmd
from controller.link import UnseatPlayer as UnseatCmd
from controller.link.errors import LinkError
from controller.link.store import LevelRecord
from controller.ohh import to_ohh
from controller.rules.cards import Card
from controller.rules.decisions import Alert, AlertCode, HandComplete, HandRecord, Instruction
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
    ConsoleButton,
    Event,
    SeatPlayer,
    SetLevel,
    UnseatPlayer,
)
from controller.rules.hand import Phase
from firmware_bridge.antennas import Collision, SnapshotTracker, StrayTag
from firmware_bridge.decks import Deck, DeckRegistry, parse_tag
from firmware_bridge.gpio import GpioConsole, GpioFault, GpioIndicators, Indicators
from firmware_bridge.protocol import ErrorReport
from firmware_bridge.serial_link import LinkStatus, SerialReaderLink, StatusChange
from firmware_bridge.snapshots import AntennaSnapshot

log = logging.getLogger("railguard.daemon")

_SEVERITY = {CoreSeverity.INFO: "info", CoreSeverity.WARNING: "warning",
             CoreSeverity.CRITICAL: "critical"}  # fmt: skip
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


class Daemon:
    """One table's daemon (see the module docstring)."""

    def __init__(self, cfg: DaemonConfig, *, pin_factory: Any = None) -> None:
        self.cfg = cfg
        self.pin_factory = pin_factory
        if pin_factory is None and cfg.pin_factory == "mock":
            from gpiozero.pins.mock import MockFactory

            self.pin_factory = MockFactory()
        cfg.storage.mkdir(parents=True, exist_ok=True)
        self.store = TableStore(cfg.table_db)
        self.registry = DeckRegistry()
        self.core = TableCore(cfg.profile, cfg.table, hand_no=self.store.hand_counter())
        self.names: dict[int, str] = {}
        self.level_no = 1
        self.queue: asyncio.Queue[_Item] = asyncio.Queue()
        self.hands: asyncio.Queue[tuple[HandRecord, datetime]] = asyncio.Queue()
        self.input = ReaderInput()
        board = cfg.link.board_config
        self.scan_period = board.scan_period_ms / 1000 if board is not None else 0.05
        self.tracker = SnapshotTracker(
            cfg.zones, self.registry, debounce_cycles=cfg.debounce_cycles,
            removal_cycles=cfg.removal_cycles, scan_period=self.scan_period,
        )  # fmt: skip
        self.link = VenueLink(
            cfg.broker, cfg.venue, cfg.table, cfg.outbox_db, self._on_command,
            command_key=cfg.command_key,
        )  # fmt: skip
        self.reader: SerialReaderLink | None = None
        self.indicators: Indicators = _NullIndicators()
        self.ready = asyncio.Event()
        self.stats = DaemonStats()
        self.records: list[dict[str, Any]] = []  # OHH of hands completed in this run
        self._hand_start: dict[int, datetime] = {}
        self._last_state: dict[str, Any] | None = None
        self._restore()

    # ------------------------------------------------------------------ start-up

    def hand_id(self, hand_no: int) -> str:
        return f"{self.cfg.venue}-{self.cfg.table}-{hand_no}"

    def _restore(self) -> None:
        """Seating, stacks, level, hand counter and decks from the table store."""
        t = time.monotonic()
        for deck_id in self.store.decks():
            cards = {parse_tag(uid): Card.parse(c) for c, uid in self.store.deck(deck_id).items()}
            self.registry.put_deck(Deck(deck_id, "", cards))
        for uid, value in self.cfg.chips.items():
            self.registry.add_chip(uid, value)
        lvl = self.store.level()
        if lvl is not None:
            self.level_no = lvl.level
            self._apply(SetLevel(t, lvl.small_blind, lvl.big_blind, lvl.ante))
        for seat, rec in self.store.seating().items():
            self.names[seat] = rec.name
            self._apply(SeatPlayer(t, seat, rec.player_id, rec.stack))
        self.interrupted = sorted(self.store.open_hands())
        log.info(
            "restored table=%s hand_counter=%d seats=%d decks=%d chips=%d interrupted=%s",
            self.cfg.table, self.core.hand_no, len(self.core.seats), len(self.registry.decks),
            len(self.registry.chips), self.interrupted,
        )  # fmt: skip

    def _apply(self, ev: Event) -> None:
        step = self.core.handle(ev)
        if step.rejected is not None:
            log.warning("restore: %s rejected: %s", type(ev).__name__, step.rejected)

    def _flag_interrupted(self) -> None:
        for hand_no in self.interrupted:
            n = len(self.store.hand_events(hand_no))
            log.error("hand=%s interrupted by a restart after %d events", self.hand_id(hand_no), n)
            self.indicators.alert("critical")
            self._publish_alert({
                "code": "HAND_INTERRUPTED", "severity": "critical", "clause": "railguard restart",
                "remedy": f"Hand {hand_no} was in progress when the table controller restarted:"
                " the floor decides how it ends; stacks are as before the hand",
                "seat": None, "hand_no": hand_no or None,
            })  # fmt: skip
            self.store.clear_hand_events(hand_no)
        self.interrupted = []

    # ------------------------------------------------------------------ run

    async def run(self, stop: asyncio.Event | None = None) -> None:
        stop = stop or asyncio.Event()
        notify("STATUS=starting")
        try:
            async with asyncio.TaskGroup() as tg:
                tasks = [
                    tg.create_task(self._reader_task(), name="reader"),
                    tg.create_task(self._gpio_task(), name="gpio"),
                    tg.create_task(self._pcsc_task(), name="pcsc"),
                    tg.create_task(self._core_task(), name="core"),
                    tg.create_task(self._mqtt_task(), name="mqtt"),
                    tg.create_task(self._outbox_task(), name="outbox"),
                    tg.create_task(self._watchdog_task(), name="watchdog"),
                ]
                await stop.wait()
                notify("STOPPING=1")
                log.info("stopping")
                await self.link.stop()
                for task in tasks:
                    task.cancel()
        finally:
            self.store.close()
            log.info("stopped")

    async def _forever(self) -> None:
        await asyncio.Event().wait()

    # ------------------------------------------------------------------ inputs

    def _put(self, ev: Event, source: str) -> None:
        self.queue.put_nowait(_Item(ev, source))

    async def _reader_task(self) -> None:
        link = SerialReaderLink(
            list(self.cfg.reader_ports), self._on_snapshot, on_status=self._on_reader_status,
            on_error=self._on_reader_error, config=self.cfg.link,
        )  # fmt: skip
        self.reader = link
        await link.start()
        try:
            while True:  # a cycle that lost a frame closes half a period after it began
                await asyncio.sleep(self.scan_period)
                self._tracker_out(self.tracker.tick(time.monotonic()))
        finally:
            await link.stop()

    def _on_snapshot(self, snap: AntennaSnapshot) -> None:
        self._tracker_out(self.tracker.feed(snap))

    def _tracker_out(self, outputs: list[Any]) -> None:
        events = []
        for out in outputs:
            if isinstance(out, CardPlaced | CardRemoved | ChipsIn | ChipsOut):
                events.append(out)
            elif isinstance(out, Collision):
                log.warning("reader: collision on antenna %d (%s)", out.antenna, out.zone)
            elif isinstance(out, StrayTag):
                log.warning("reader: stray tag on %s: %s", out.zone, out.reason)
        for ev in self.input.batch(events):
            self._put(ev, "reader")

    def _on_reader_status(self, change: StatusChange) -> None:
        info = self.reader.board_info if self.reader is not None else None
        antennas = info.antenna_count if info is not None else 0
        log.info("reader: %s -> %s (%s) port=%s antennas=%d", change.previous.value,
                 change.status.value, change.detail, change.port, antennas)  # fmt: skip
        if change.status is LinkStatus.ONLINE and info is not None:
            missing = [a for a in self.cfg.zones.antennas if a >= info.antenna_count]
            if missing:
                log.error("reader: zone map uses antennas %s; the board has %d", missing,
                          info.antenna_count)  # fmt: skip

    def _on_reader_error(self, err: ErrorReport) -> None:
        log.warning("reader: board error %s antenna=%s detail=%d", err.code, err.antenna,
                    err.detail)  # fmt: skip

    async def _gpio_task(self) -> None:
        console = GpioConsole(self.cfg.gpio, pin_factory=self.pin_factory,
                              on_fault=self._on_gpio_fault)  # fmt: skip
        lights = GpioIndicators(self.cfg.gpio, pin_factory=self.pin_factory)
        self.indicators = lights
        try:
            console.start(self._on_console)
            await self._forever()
        finally:
            console.close()
            lights.close()

    def _on_console(self, ev: Any) -> None:
        if isinstance(ev, ChipsIn | ChipsOut):
            for e in self.input.sensor(ev):
                self._put(e, "gpio")
            return
        if isinstance(ev, ButtonPress) and ev.button is ConsoleButton.ACK:
            self.indicators.clear()
        self._put(ev, "gpio")

    def _on_gpio_fault(self, fault: GpioFault) -> None:
        log.warning("gpio: %s %s (%s)", fault.key, fault.fault, "on" if fault.active else "off")

    async def _pcsc_task(self) -> None:
        if not self.cfg.pcsc_enabled:
            log.info("pcsc: disabled")
            return
        from firmware_bridge.pcsc import PcscReader, PcscState

        def on_status(state: PcscState) -> None:
            log.info("pcsc: %s %s", state.status.value, state.detail)

        reader = PcscReader(self.cfg.badges, on_event=lambda e: self._put(e, "pcsc"),
                            on_status=on_status, reader_filter=self.cfg.pcsc_filter)  # fmt: skip
        reader.start()
        try:
            await self._forever()
        finally:
            await asyncio.to_thread(reader.close)

    # ------------------------------------------------------------------ core

    async def _core_task(self) -> None:
        self._publish_state()
        while True:
            item = await self.queue.get()
            try:
                step = self._handle(item)
            except Exception as exc:  # never let one event kill the table
                log.exception("core: %s from %s failed", type(item.event).__name__, item.source)
                if item.reply is not None and not item.reply.done():
                    item.reply.set_exception(exc)
                continue
            if item.reply is not None and not item.reply.done():
                item.reply.set_result(step)

    def _handle(self, item: _Item) -> Step:
        core = self.core
        ev = item.event
        if ev.t < core.t:  # a reading confirmed after a later command: keep time monotonic
            ev = replace(ev, t=core.t)
        before = core.hand_no
        in_hand = core.hand is not None
        step = core.handle(ev)
        self.stats.events += 1
        hid = self.hand_id(core.hand_no) if core.hand_no else "-"
        if step.rejected is not None:
            self.stats.rejected += 1
            log.warning("hand=%s event=%s source=%s rejected=%s: %s", hid, type(ev).__name__,
                        item.source, step.rejected.code, step.rejected)  # fmt: skip
            if isinstance(ev, _PHYSICAL):
                self._alert(Alert(AlertCode.REJECTED, CoreSeverity.WARNING, "sensor input",
                                  f"Not accepted now: {step.rejected}", 0, None, ev.t))  # fmt: skip
            return step
        log.info("hand=%s event=%s source=%s phase=%s", hid, type(ev).__name__, item.source,
                 step.phase.value)  # fmt: skip
        if core.hand_no != before:
            self._hand_start[core.hand_no] = datetime.now(UTC)
            self.store.put("hand_counter", core.hand_no, durable=True)
        started = in_hand or core.hand_no != before
        if core.hand is not None and started and isinstance(ev, _PHYSICAL):
            self.store.append_hand_event(core.hand_no, encode_event(ev))
        for d in step.decisions:
            if isinstance(d, Alert):
                self._alert(d)
            elif isinstance(d, Instruction):
                log.info("hand=%s instruction seat=%d: %s", hid, d.seat, d.text)
            elif isinstance(d, HandComplete):
                rec = d.record
                start = self._hand_start.pop(rec.hand_no, datetime.now(UTC))
                self.hands.put_nowait((rec, start))
        self._publish_state()
        return step

    def _alert(self, a: Alert) -> None:
        self.stats.alerts += 1
        hand_no = self.core.hand_no if self.core.hand is not None else 0
        hid = self.hand_id(hand_no) if hand_no else "-"
        log.warning("hand=%s alert=%s severity=%s seat=%d: %s", hid, a.code.value,
                    _SEVERITY[a.severity], a.seat, a.remedy)  # fmt: skip
        self.indicators.alert(_SEVERITY[a.severity])
        self._publish_alert(alert_payload(a, hand_no))

    def _publish_alert(self, payload: dict[str, Any]) -> None:
        try:
            self.link.publish_alert(payload)
        except (LinkError, RailguardError) as exc:
            log.error("alert not published: %s", exc)

    def _publish_state(self) -> None:
        snap = self.core.snapshot()
        payload = state_payload(snap, names=self.names, level=self.level_no)
        self.indicators.set_action_seat(snap.to_act or None)
        if payload == self._last_state:
            return
        try:
            self.link.publish_state(payload)
        except (LinkError, RailguardError) as exc:
            log.error("state not published: %s", exc)
            return
        self._last_state = payload
        self.stats.states += 1

    # ------------------------------------------------------------------ commands

    async def _submit(self, ev: Event) -> Step:
        fut: asyncio.Future[Step] = asyncio.get_running_loop().create_future()
        self.queue.put_nowait(_Item(ev, "venue", fut))
        return await fut

    async def _on_command(self, cmd: Command) -> CommandResult:
        self.stats.commands += 1
        t = time.monotonic()
        seating = self.store.seating()
        if isinstance(cmd, SeatCmd):
            taken = seating.get(cmd.seat)
            if taken is not None and taken.player_id != cmd.player_id:
                return CommandResult.error(f"seat {cmd.seat} is taken by {taken.player_id}")
            step = await self._submit(SeatPlayer(t, cmd.seat, cmd.player_id, cmd.stack))
            if step.rejected is not None:
                return CommandResult.error(str(step.rejected))
            if taken is not None:
                self.store.unseat_player(cmd.seat)
            self.store.seat_player(cmd.seat, cmd.player_id, cmd.name, cmd.stack)
            self.names[cmd.seat] = cmd.name
            return CommandResult.success(seat=cmd.seat)
        if isinstance(cmd, UnseatCmd):
            step = await self._submit(UnseatPlayer(t, cmd.seat))
            if step.rejected is not None:
                return CommandResult.error(str(step.rejected))
            if cmd.seat in seating:
                self.store.unseat_player(cmd.seat)
            self.names.pop(cmd.seat, None)
            return CommandResult.success(seat=cmd.seat)
        if isinstance(cmd, MovePlayer):
            return await self._move(cmd, t)
        if isinstance(cmd, LevelCmd):
            step = await self._submit(SetLevel(t, cmd.small_blind, cmd.big_blind, cmd.ante))
            if step.rejected is not None:
                return CommandResult.error(str(step.rejected))
            self.level_no = cmd.level
            self.store.set_level(LevelRecord(cmd.level, cmd.small_blind, cmd.big_blind, cmd.ante,
                                             cmd.big_blind_ante))  # fmt: skip
            self._publish_state()
            return CommandResult.success(level=cmd.level)
        if isinstance(cmd, EnrolDeck):
            try:
                cards = {parse_tag(uid): Card.parse(c) for c, uid in cmd.cards}
                self.registry.put_deck(Deck(cmd.deck_id, "", cards))
                self.store.enrol_deck(cmd.deck_id, dict(cmd.cards))
            except RailguardError as exc:
                return CommandResult.error(str(exc))
            log.info("deck %s enrolled (%d cards)", cmd.deck_id, len(cards))
            return CommandResult.success(deck_id=cmd.deck_id, cards=len(cards))
        if isinstance(cmd, AckAlert):
            self.indicators.clear()
            return CommandResult.success()
        if isinstance(cmd, SetProfile):
            if cmd.profile == self.core.profile.name:
                return CommandResult.success(profile=cmd.profile)
            return CommandResult.error(
                "the profile is set by table.profile in the daemon config (restart to change)"
            )
        return CommandResult.error("not handled by this table")

    async def _move(self, cmd: MovePlayer, t: float) -> CommandResult:
        seat = self.core.seats.get(cmd.from_seat)
        if seat is None:
            return CommandResult.error(f"seat {cmd.from_seat} is empty")
        if cmd.to_seat in self.core.seats:
            return CommandResult.error(f"seat {cmd.to_seat} is taken")
        if self.core.hand is not None and self.core.phase is not Phase.COMPLETE:
            return CommandResult.error("players move between hands")
        step = await self._submit(UnseatPlayer(t, cmd.from_seat))
        if step.rejected is not None:
            return CommandResult.error(str(step.rejected))
        step = await self._submit(SeatPlayer(t, cmd.to_seat, seat.player, seat.stack))
        if step.rejected is not None:
            await self._submit(SeatPlayer(t, cmd.from_seat, seat.player, seat.stack))
            return CommandResult.error(str(step.rejected))
        with contextlib.suppress(RailguardError):
            self.store.move_player(cmd.from_seat, cmd.to_seat)
        self.names[cmd.to_seat] = self.names.pop(cmd.from_seat, seat.player)
        return CommandResult.success(seat=cmd.to_seat)

    # ------------------------------------------------------------------ link and outbox

    async def _mqtt_task(self) -> None:
        await self.link.run()

    async def _outbox_task(self) -> None:
        while True:
            rec, start = await self.hands.get()
            hid = self.hand_id(rec.hand_no)
            ohh = to_ohh(rec, start, table_name=self.cfg.table, table_size=self.cfg.table_size)
            self.records.append(ohh)
            try:
                self.link.submit_hand(hid, rec.hand_no, ohh)
            except (LinkError, RailguardError) as exc:
                log.error("hand=%s record not queued: %s", hid, exc)
            stacks = {s: seat.stack for s, seat in self.core.seats.items()}
            seated = self.store.seating()
            try:
                for s in [s for s in seated if s not in stacks]:
                    self.store.unseat_player(s)  # busted
                self.store.set_stacks({s: v for s, v in stacks.items() if s in seated})
                self.store.clear_hand_events(rec.hand_no)
            except RailguardError as exc:
                log.error("hand=%s table store not updated: %s", hid, exc)
            self.stats.hands += 1
            log.info("hand=%s complete pots=%d stacks=%s", hid, len(rec.pots), stacks)

    async def _watchdog_task(self) -> None:
        interval = watchdog_interval()
        tick = min(interval or 1.0, 1.0)
        started = time.monotonic()
        last_ping = 0.0
        last_status = ""
        while True:
            now = time.monotonic()
            reader_ok = self.reader is not None and self.reader.status is LinkStatus.ONLINE
            if not self.ready.is_set() and (
                (reader_ok and self.link.connected) or now - started > self.cfg.ready_timeout
            ):
                self._flag_interrupted()
                self.ready.set()
                notify("READY=1")
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
    cfg: DaemonConfig, *, pin_factory: Any = None, stop: asyncio.Event | None = None
) -> None:
    """Run the daemon until ``stop`` is set (or forever)."""
    await Daemon(cfg, pin_factory=pin_factory).run(stop)
