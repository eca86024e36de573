"""The scenario table without the hardware path: the rules core behind the daemon's own
translations, in one process, on a :class:`~controller.daemon.clock.ManualClock`
(``railguard scenario --core-only``).

What a scenario does physically becomes what the daemon's parts would have made of it,
through the same functions:

- tags on antennas: every mapped antenna's :class:`AntennaSnapshot` of each scan cycle, as the
  board sends them, to :func:`controller.daemon.reader.on_snapshot` (the daemon's
  :class:`~firmware_bridge.antennas.SnapshotTracker` with the table's zone map, deck registry,
  debounce and removal cycles; :class:`~controller.daemon.translate.ReaderInput` for moves and
  sweeps; the restart :class:`~controller.daemon.recovery.Reconciler`), cycle after cycle
  until the tracker has settled;
- console buttons, the DECLARE key and the button puck: the event the console would emit
  (:class:`~firmware_bridge.gpio.GpioConsole`: a press, a long press of a long-press button,
  DECLARE then a key, DECLARE held, the puck arriving) to
  :func:`controller.daemon.inputs.on_console`;
- venue commands: the command's JSON payload, :func:`controller.link.commands.parse_command`,
  :func:`controller.daemon.venue_commands.handle_command`;
- every event then through :func:`controller.daemon.core_loop.serve` (the core, the alerts'
  payloads with the hole cards scrubbed, instructions, live events, the state); what would go
  to the venue is kept per topic (``venue.on("alerts")``), checked by the hole-card guard as
  the link checks it; completed hands become their OHH record as the outbox task makes it.

Not here, so a scenario that needs them plays on the whole system
(:func:`hwsim.scenario.runner.hardware_path`): board faults (bytes on the wire, unplugging,
a stall), a bouncing button, the reader's status, the real scan timing and debounce of
pins, MQTT and the storage lanes.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

from controller.daemon import core_loop, inputs, reader, recovery, startup, venue_commands
from controller.daemon.clock import Clock, ManualClock
from controller.daemon.core_loop import Item
from controller.daemon.live import LiveEvents, withheld
from controller.daemon.service import DaemonStats
from controller.daemon.storage import HandSlot
from controller.daemon.table_store import TableStore
from controller.daemon.trace import StageTrace
from controller.daemon.translate import ReaderInput, state_payload
from controller.link.commands import parse_command
from controller.link.errors import CommandRefused, RedactionError
from controller.link.redact import check_no_hole_cards, redact_state
from controller.ohh import to_ohh
from controller.rules.decisions import HandRecord
from controller.rules.engine import Step, TableCore
from controller.rules.events import (
    ButtonPress,
    ConsoleButton,
    Declaration,
    Declare,
    Event,
    SetButton,
)
from controller.rules.state import TableState
from controller.rules.tabledata import TableData
from firmware_bridge.antennas import SnapshotTracker
from firmware_bridge.decks import DeckRegistry
from firmware_bridge.gpio import Indicators
from firmware_bridge.link_model import BoardFactory
from firmware_bridge.pcsc import BadgeFactory
from firmware_bridge.serial_link import ReaderBoard
from firmware_bridge.snapshots import AntennaSnapshot, TagRead
from hwsim.board import SimBoard
from hwsim.layout import TableFailure, daemon_config
from hwsim.scenario.rig import LAYOUT, DemoFailure, ScenarioTable, chip_bank
from hwsim.venue import command_payload

__all__ = ["CoreRig", "open_core_rig"]

#: scan cycles one change may take to settle before the table gives up (debounce and
#: removal are a few cycles)
MAX_CYCLES = 60


class _NoLights:
    def set_action_seat(self, seat: int | None) -> None: ...
    def alert(self, severity: Any) -> None: ...
    def status(self, status: Any) -> None: ...
    def clear(self) -> None: ...


def _no_hardware(what: str) -> DemoFailure:
    return DemoFailure(f"{what} needs the hardware path: play this scenario without --core-only")


class _SlotInMemory(HandSlot):
    """The hand slot without its file: a core-only table keeps nothing across a restart."""

    def __init__(self) -> None:
        self.path = Path("(in memory)")
        self.started, self.stored = 0, 0
        self.error = ""
        self._fd = None


class CoreVenue:
    """The venue's side: what the table published, per topic, and venue commands."""

    def __init__(self, rig: CoreRig) -> None:
        self.rig = rig
        self.heard: dict[str, list[Any]] = {}

    def on(self, suffix: str) -> list[Any]:
        return self.heard.setdefault(suffix, [])

    def add(self, suffix: str, msg: Any) -> None:
        self.on(suffix).append(msg)

    async def do(self, cmd: str, **args: Any) -> dict[str, Any]:
        """A venue command as the link takes it off the wire (parsed from its JSON), handled
        by the daemon's venue commands; a refusal raises as the simulated venue's does."""
        _rid, payload = command_payload(cmd, **args)
        try:
            command = parse_command(payload)
        except CommandRefused as exc:
            raise TableFailure(f"command {cmd} refused: {exc.reason}") from None
        result = await venue_commands.handle_command(self.rig, command)
        if not result.ok:
            raise TableFailure(f"command {cmd} refused: {result.reason}")
        return {"ok": True, "data": dict(result.data)}


class CoreConsole:
    """The dealer's console as :class:`~firmware_bridge.gpio.GpioConsole` reports it: the
    event each gesture makes, to :func:`controller.daemon.inputs.on_console`."""

    def __init__(self, rig: CoreRig) -> None:
        self.rig = rig

    def _emit(self, ev: Any) -> None:
        inputs.on_console(self.rig, ev)

    async def press(self, button: ConsoleButton, hold_s: float = 0.1) -> None:
        self._emit(ButtonPress(self.rig.now(), button))
        self.rig.advance(hold_s)

    async def long_press(self, button: ConsoleButton, extra_s: float = 0.1,
                         taken: Callable[[], bool] | None = None,
                         limit_s: float = 8.0) -> None:  # fmt: skip
        cfg = self.rig.cfg.gpio
        self.rig.advance(cfg.long_press_s)
        t = self.rig.now()
        if button is ConsoleButton.DECLARE:
            self._emit(Declare(t, Declaration.NOT_A_CHECK))
        else:  # a button without a long press acts at once, however long it is held
            self._emit(ButtonPress(t, button, long=button in cfg.long_press_buttons))
        self.rig.advance(extra_s)

    async def declare(self, word: Declaration, gap_s: float = 0.05,
                      taken: Callable[[], bool] | None = None) -> None:  # fmt: skip
        if word is Declaration.NOT_A_CHECK:
            await self.long_press(ConsoleButton.DECLARE, taken=taken)
            return
        self.rig.advance(gap_s)
        self._emit(Declare(self.rig.now(), word))

    async def bouncy_press(self, button: ConsoleButton, hold_s: float = 0.1, bounces: int = 4,
                           gap_s: float = 0.002) -> None:  # fmt: skip
        raise _no_hardware("a bouncing button")

    def set_puck(self, seat: int, present: bool) -> None:
        if present:  # the puck arriving at a seat's sensor; leaving one says nothing
            self._emit(SetButton(self.rig.now(), seat))


class CoreRig(ScenarioTable):
    """The rules core behind the daemon's translations (module docstring). It is the host
    each daemon part it runs asks for (``core_loop.CoreHost``, ``inputs.InputHost``,
    ``reader.ReaderHost``, ``venue_commands.CommandHost``, ``startup.StartupHost``): mypy
    checks it as it checks ``Daemon``."""

    def __init__(self, profile: str, workdir: Path, table_id: str) -> None:
        self.cfg = daemon_config("in-process", "127.0.0.1", 1, table_id, profile,
                                 workdir / "state", chip_bank(), layout=LAYOUT)  # fmt: skip
        self.manual = ManualClock()
        self.clock: Clock = self.manual
        self.core: TableCore = TableCore(self.cfg.profile, self.cfg.table)
        self.store = TableStore(":memory:")
        self.hand_slot: HandSlot = _SlotInMemory()
        self.registry = DeckRegistry()
        self.queue: asyncio.Queue[Item] = asyncio.Queue()  # unused: events are served at once
        self.hands: asyncio.Queue[tuple[HandRecord, datetime]] = asyncio.Queue()
        self.hand_start: dict[int, datetime] = {}
        self.positions_saved: Any = None
        self.levels_saved: Any = None
        self.seating_saved: Any = None
        self.dealer_saved = ""
        self.table_kept: tuple[int, TableData] | None = None  # core_loop.table_before
        self.core_wait: asyncio.Timeout | None = None  # no core task: every event served at once
        self.live = LiveEvents(self.cfg.venue, self.cfg.table)
        self.tick_interval = 1.0
        self.watchers: list[Callable[[Event, Step], None]] = []
        self.trace: StageTrace | None = None
        self.stats = DaemonStats()
        self.indicators: Indicators = _NoLights()
        self.open_alerts: list[str] = []
        self.badge_reader: str | None = None
        self.lost: list[int] = []
        self.interrupted: list[int] = []
        self.interrupt_outcome = ""
        # the reader's side: a board reporting every antenna every cycle
        self.pin_factory: Any = None
        self.badge_factory: BadgeFactory | None = None
        self.board_factory: BoardFactory | None = None
        self.reader: ReaderBoard | None = None
        self.settler: reader.Settler | None = None
        self.cycle_timer: reader.CycleTimer | None = None
        self.frame = asyncio.Event()
        self.last_frame = 0.0
        self.input = ReaderInput()
        board = self.cfg.daemon_link.board_config
        self.scan_period = board.scan_period_ms / 1000 if board is not None else 0.05
        self.tracker_changes = False
        self.tracker = SnapshotTracker(
            self.cfg.zones, self.registry, debounce_cycles=self.cfg.debounce_cycles,
            removal_cycles=self.cfg.removal_cycles, scan_period=self.scan_period,
            changes_only=False,
        )  # fmt: skip
        startup.restore(self)
        self.reconciler = recovery.Reconciler(
            self.core, hand_restored=False, debounce=self.cfg.debounce_cycles,
            removal=self.cfg.removal_cycles, antennas=self.cfg.zones.antennas,
            period=self.scan_period, hold=False,
            patience=(1 + self.cfg.debounce_cycles + 2) * self.scan_period,
        )  # fmt: skip
        self._where: dict[bytes, int] = {}
        self._cycle = 0
        self._venue = CoreVenue(self)
        self._console = CoreConsole(self)
        self.chips_on: dict[int, list[bytes]] = {}
        self.free_chips: dict[int, list[bytes]] = {}
        self.puck: int | None = None
        self.levels_sent = 0
        self.fill_bank()

    # ------------------------------------------------------------------ the table's side

    @property
    def venue(self) -> CoreVenue:
        return self._venue

    @property
    def gpio(self) -> CoreConsole:
        return self._console

    @property
    def board(self) -> SimBoard:
        raise _no_hardware("a board fault")

    @property
    def where(self) -> dict[bytes, int]:
        return self._where

    def now(self) -> float:
        return self.clock.monotonic()

    def advance(self, seconds: float) -> None:
        self.manual.advance(seconds)

    def events_handled(self) -> int:
        return self.stats.events

    def reader_status(self) -> str:
        raise _no_hardware("the reader's status")

    def snapshot(self) -> TableState:
        return self.core.snapshot()

    async def settled(self, timeout: float = 15.0) -> None:
        """Everything is handled as it happens: nothing to wait for."""

    async def move_tags(self, moves: list[tuple[bytes, int]]) -> None:
        for uid, ant in moves:
            self._where[uid] = ant
        zones = self.cfg.zones
        self._scan(lambda: all(self.tracker.present().get(u) == zones.zone_of(a) for u, a in moves))

    async def remove_tags(self, uids: list[bytes]) -> None:
        for uid in uids:
            if self._where.pop(uid, None) is None:
                raise TableFailure(f"tag {uid.hex().upper()} is not on the table")
        self._scan(lambda: not any(u in self.tracker.present() for u in uids))

    def _scan(self, done: Callable[[], bool]) -> None:
        """Scan cycles, every mapped antenna reporting, until ``done`` holds: the reader holds
        the tags where they now are (the whole system's table waits for the same)."""
        for _ in range(MAX_CYCLES):
            self._one_cycle()
            if done():
                return
        raise TableFailure(f"the reader did not settle within {MAX_CYCLES} scan cycles")

    def _one_cycle(self) -> None:
        self.advance(self.scan_period)
        self._cycle += 1
        t = self.now()
        on: dict[int, list[bytes]] = {}
        for uid, ant in self._where.items():
            on.setdefault(ant, []).append(uid)
        for ant in self.cfg.zones.antennas:
            tags = tuple(TagRead(u) for u in on.get(ant, ()))
            reader.on_snapshot(self, AntennaSnapshot(t, ant, self._cycle, tags))

    # ------------------------------------------------------------------ the daemon's side

    def put(self, ev: Event, source: str) -> None:
        core_loop.serve(self, Item(ev, source))
        self._records()

    async def submit(self, ev: Event, accepted: Callable[[], None] | None = None) -> Step:
        fut: asyncio.Future[Step] = asyncio.get_running_loop().create_future()
        core_loop.serve(self, Item(ev, "venue", fut, accepted=accepted))
        self._records()
        return await fut

    def _records(self) -> None:
        """Completed hands as the outbox task makes their record (storage.outbox_task)."""
        while not self.hands.empty():
            rec, start = self.hands.get_nowait()
            ohh = to_ohh(rec, start, table_name=self.cfg.table, table_size=self.cfg.table_size)
            self.stats.hands += 1
            self._venue.add("hands", {"hand_no": rec.hand_no, "ohh": ohh})

    def hand_id(self, hand_no: int) -> str:
        return f"{self.cfg.venue}-{self.cfg.table}-{hand_no}"

    def table_write(self, fn: Callable[[TableStore], Any], what: str) -> None:
        fn(self.store)

    def foreign_chip(self, seat: int) -> None:
        self.publish_alert(reader.foreign_chip_alert(seat, self.core.hand_no or None))

    def event(self, kind: str, data: dict[str, Any], hand_no: int | None = None) -> None:
        try:
            check_no_hole_cards(data, f"event {kind}", self.live.secrets)
        except RedactionError as exc:
            withheld(self, f"event {kind}", str(exc))
            return
        self.stats.live_events += 1
        self._venue.add("events", {"kind": kind, "hand_no": hand_no, "data": dict(data)})

    def publish_alert(self, payload: dict[str, Any]) -> None:
        msg = {"seat": None, **payload, "alert_id": uuid.uuid4().hex}
        try:
            check_no_hole_cards(msg, "alert", self.live.secrets)
        except RedactionError:
            return  # the link raises; the daemon logs it and the alert is not sent
        self.open_alerts.append(msg["alert_id"])
        del self.open_alerts[:-100]
        self._venue.add("alerts", msg)

    def publish_state(self, snap: TableState | None = None) -> None:
        """The live state as ``Daemon.publish_state`` builds it (without the storage health
        and the badge reader, which this table has not)."""
        snap = snap or self.core.snapshot()
        payload = state_payload(snap, **venue_commands.level_fields(self.core))
        payload["dealer"] = self.core.dealer[:64] or None
        payload["table_seats"] = list(venue_commands.table_seats(self))
        try:
            clean = redact_state(payload, self.live.secrets)
        except RedactionError as exc:
            withheld(self, "state", str(exc))
            return
        states = self._venue.on("state")
        if not states or states[-1] != clean:
            self.stats.states += 1
            states.append(clean)

    def acknowledge(self, alert_ids: list[str], *, by: str, publish: bool = True) -> None:
        inputs.acknowledge(self, alert_ids, by=by, publish=publish)

    async def close(self) -> None:
        self.store.close()
        self.hand_slot.close()


async def open_core_rig(profile: str, workdir: Path, table_id: str, *,
                        decks: set[str]) -> CoreRig:  # fmt: skip
    """A fresh core-only table: the restart window closed on an empty board (as the daemon's
    first scan cycles close it), the decks enrolled through the venue contract."""
    from hwsim.scenario.rig import enrol

    workdir.mkdir(parents=True, exist_ok=True)
    rig = CoreRig(profile, workdir, table_id)
    try:
        rig.publish_state()
        for _ in range(MAX_CYCLES):
            if not rig.reconciler.active:
                break
            rig._one_cycle()
        await enrol(rig, decks)
    except BaseException:
        await rig.close()
        raise
    return rig
