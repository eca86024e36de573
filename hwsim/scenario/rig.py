"""The simulated table a scenario plays on: the reader board on a pty (behind a symlink, so
an unplugged board comes back at the same path), MockFactory GPIO, the daemon in-process
and a venue subscriber on a private mosquitto. The pieces and their wiring are those of
``railguard demo`` (:mod:`controller.demo.table`); this module adds what a scenario needs
on top: a chip bank, card tags for a second deck and a joker, a scenario clock that can
jump ahead, and the instructions the daemon logs."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from controller.daemon import Daemon
from controller.demo.table import (
    BET,
    BOARD,
    BURN,
    DENOMINATIONS,
    HOLE,
    MUCK,
    VENUE,
    DemoFailure,
    Venue,
    card_uid,
    chip_uid,
    daemon_config,
    wait_until,
)
from controller.link.config import BrokerConfig
from controller.rules.cards import JOKER, STANDARD_DECK, Card
from controller.rules.events import Event
from controller.venuelog import SqliteHandStore, VenueLogger
from firmware_bridge.decks import Deck
from firmware_bridge.protocol import SetConfig
from hwsim.board import SimBoard
from hwsim.gpio import SimGpio, wired_factory
from hwsim.scenario.model import CardRef

CHIPS_PER_DENOMINATION = 60
ANTENNAS = 16
ZONE_ANTENNA = {"board": BOARD, "burn": BURN, "muck": MUCK}


def _nameless(state: dict[str, Any]) -> dict[str, Any]:
    """A state message without the players' display names: the daemon republishes the state
    on the next change after a seat command, not when only the name changed."""
    seats = [{k: v for k, v in s.items() if k != "name"} for s in state.get("seats", [])]
    return {**state, "seats": seats}


def chip_bank() -> dict[bytes, int]:
    """Tags for ``CHIPS_PER_DENOMINATION`` chips of each denomination the demo uses."""
    return {
        chip_uid(0x5C00 + d, i): value
        for d, value in enumerate(DENOMINATIONS)
        for i in range(CHIPS_PER_DENOMINATION)
    }


def tag_of(ref: CardRef) -> bytes:
    """The tag UID of a scenario card: deck A as the demo enrols it, deck B its own tags,
    the joker a one-card deck, ``tag:HEX`` as written."""
    if ref.tag:
        return bytes.fromhex(ref.tag)
    card = Card.parse(ref.card)
    if card.is_joker:
        return card_uid(JOKER)
    if ref.deck == "B":
        return bytes([0xC0, 0xB0, int(card.suit), card.rank])
    return card_uid(card)


class ShiftedClock(asyncio.Queue[Any]):
    """The daemon's input queue with the scenario clock: every event's ``t`` is moved
    ``offset`` seconds ahead, so ``wait 70`` makes 70 seconds pass for the rules core at
    once while events read in one scan cycle keep sharing a ``t``."""

    def __init__(self) -> None:
        super().__init__()
        self.offset = 0.0

    def put_nowait(self, item: Any) -> None:
        if self.offset:
            item.event = replace(item.event, t=item.event.t + self.offset)
        super().put_nowait(item)


class _Instructions(logging.Handler):
    """Collects the instructions the daemon logs (they are not sent to the venue)."""

    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.texts: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        msg = record.getMessage()
        if " instruction seat=" in msg:
            self.texts.append(msg.split(": ", 1)[1] if ": " in msg else msg)


@dataclass
class Rig:
    """A running simulated table (see the module docstring)."""

    daemon: Daemon
    board: SimBoard
    gpio: SimGpio
    venue: Venue
    factory: Any
    symlink: Path
    clock: ShiftedClock
    stop: asyncio.Event
    task: asyncio.Task[None]
    instructions: _Instructions
    logger: VenueLogger
    where: dict[bytes, int] = field(default_factory=dict)  # every tag on the board: antenna
    chips_on: dict[int, list[bytes]] = field(default_factory=dict)  # seat: chip tags
    free_chips: dict[int, list[bytes]] = field(default_factory=dict)  # value: unused tags
    puck: int | None = None
    level_no: int = 0

    def now(self) -> float:
        return time.monotonic()

    def put(self, ev: Event, source: str) -> None:
        """An event the hardware cannot produce here (badge taps without pcscd, the button
        draw, the timer's tick) goes on the daemon's input queue, as its drivers do."""
        self.daemon._put(ev, source)

    # ------------------------------------------------------------------ settling

    async def settled(self, timeout: float = 5.0) -> None:
        """The rules core has handled everything sensed, and the venue has every alert,
        hand record and the current state."""
        d, v = self.daemon, self.venue
        await wait_until(d.queue.empty, "the rules core", timeout)
        await asyncio.sleep(0.03)
        await wait_until(d.queue.empty, "the rules core", timeout)
        await wait_until(lambda: len(v.on("alerts")) >= d.stats.alerts, "alerts over MQTT",
                         timeout)  # fmt: skip
        await wait_until(lambda: d.hands.empty() and len(v.on("hands")) >= len(d.records),
                         "hand records over MQTT", timeout)  # fmt: skip
        from controller.daemon.translate import state_payload
        from controller.daemon.venue_commands import level_fields

        def state_current() -> bool:
            states = v.on("state")
            if not states:
                return False
            snap = d.core.snapshot()
            want = _nameless(state_payload(snap, names=d.names, **level_fields(d)))
            got = _nameless(states[-1])
            return all(got.get(k) == val for k, val in want.items())

        await wait_until(state_current, "the state over MQTT", timeout)

    # ------------------------------------------------------------------ tags

    async def move_tags(self, moves: list[tuple[bytes, int]]) -> None:
        """Lay tags on antennas in one scan cycle (taking each off where it was) and wait
        until the daemon's tracker reads them there."""
        for uid, ant in moves:
            old = self.where.get(uid)
            if old is not None:
                self.board.remove(old, uid)
            self.board.place(ant, uid)
            self.where[uid] = ant
        zones = self.daemon.cfg.zones
        present = self.daemon.tracker.present
        await wait_until(lambda: all(present().get(u) == zones.zone_of(a) for u, a in moves),
                         "the tags to be read")  # fmt: skip

    async def remove_tags(self, uids: list[bytes]) -> None:
        for uid in uids:
            ant = self.where.pop(uid, None)
            if ant is None:
                raise DemoFailure(f"tag {uid.hex().upper()} is not on the table")
            self.board.remove(ant, uid)
        present = self.daemon.tracker.present
        await wait_until(lambda: not any(u in present() for u in uids), "the tags to go")

    def take_chips(self, value: int) -> bytes:
        tags = self.free_chips.get(value)
        if not tags:
            raise DemoFailure(f"the chip bank has no more {value} chips (values: "
                              f"{', '.join(map(str, DENOMINATIONS))})")  # fmt: skip
        return tags.pop()

    def return_chips(self, uids: list[bytes]) -> None:
        bank = chip_bank()
        for u in uids:
            self.free_chips[bank[u]].append(u)


async def open_rig(host: str, port: int, profile: str, workdir: Path, table_id: str,
                   *, decks: set[str]) -> Rig:  # fmt: skip
    """Start the board, the daemon and the venue subscriber; enrol the decks used."""
    workdir.mkdir(parents=True, exist_ok=True)
    board = SimBoard(ANTENNAS, config=SetConfig(scan_period_ms=20, heartbeat_interval_ms=200))
    symlink = workdir / "reader"
    await board.start_pty(symlink)
    bank = chip_bank()
    cfg = daemon_config(str(symlink), host, port, table_id, profile, workdir / "state", bank)
    factory = wired_factory()
    gpio = SimGpio(factory, cfg.gpio)
    daemon = Daemon(cfg, pin_factory=factory)
    clock = ShiftedClock()
    daemon.queue = clock
    instructions = _Instructions()
    dlog = logging.getLogger("railguard.daemon")
    dlog.addHandler(instructions)
    if dlog.getEffectiveLevel() > logging.INFO:
        dlog.setLevel(logging.INFO)
    venue = Venue(host, port, f"railguard/{VENUE}/{table_id}")
    logger = VenueLogger(BrokerConfig(host=host, port=port, tls=False, allow_plaintext=True),
                         SqliteHandStore(workdir / "venue.db"))  # fmt: skip
    stop = asyncio.Event()
    task = asyncio.create_task(daemon.run(stop))
    rig = Rig(daemon, board, gpio, venue, factory, symlink, clock, stop, task, instructions,
              logger)  # fmt: skip
    for value in DENOMINATIONS:
        rig.free_chips[value] = [u for u, v in bank.items() if v == value]
    try:
        logger.start()
        await venue.start()
        await wait_until(lambda: logger.stats.connects > 0, "the venue logger")
        await asyncio.wait_for(daemon.ready.wait(), 15)
        main = {str(c): card_uid(c).hex().upper() for c in STANDARD_DECK}
        await venue.do("enrol_deck", deck_id="A", cards=main)
        if "B" in decks:
            cards = {str(c): tag_of(CardRef(str(c), "B")).hex().upper() for c in STANDARD_DECK}
            await venue.do("enrol_deck", deck_id="B", cards=cards)
        if "JK" in decks:  # the venue contract enrols 52-card decks only: as the wizard would
            daemon.registry.put_deck(Deck("JK", "", {card_uid(JOKER): JOKER}))
        await rig.settled()
    except BaseException:
        await close_rig(rig)
        raise
    return rig


async def close_rig(rig: Rig) -> None:
    rig.stop.set()
    with contextlib.suppress(Exception):
        await asyncio.wait_for(rig.task, 10)
    if not rig.task.done():
        rig.task.cancel()
        with contextlib.suppress(BaseException):
            await rig.task
    await rig.venue.stop()
    with contextlib.suppress(Exception):
        await rig.logger.stop()
    await rig.board.stop()
    rig.factory.reset()
    logging.getLogger("railguard.daemon").removeHandler(rig.instructions)


def hole_antenna(seat: int) -> int:
    return HOLE[seat]


def bet_antenna(seat: int) -> int:
    return BET[seat]
