"""The simulated table a scenario plays on. :class:`ScenarioTable` is what the verbs and the
checks use of a table, with the chip bank they share; two tables implement it:

- :class:`Rig`, the whole system: :class:`hwsim.table.SimTable` of ten seats (the daemon
  in-process, MockFactory GPIO, a venue subscriber on a private mosquitto; the reader board
  in-process, or on a pty behind a symlink, so that an unplugged board comes back at the same
  path, when the scenario has board faults) with its venue logger, the daemon on a
  :class:`~controller.daemon.clock.ShiftedClock` that ``wait`` moves ahead;
- :class:`hwsim.scenario.core_rig.CoreRig`, the rules core alone behind the daemon's own
  translations (``railguard scenario --core-only``).

This module adds what a scenario needs on top: a chip bank, card tags for a second deck and
a joker, and the instructions the daemon logs."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from controller.daemon.clock import ShiftedClock
from controller.rules.cards import JOKER, STANDARD_DECK, Card
from controller.rules.engine import Step
from controller.rules.events import ConsoleButton, Declaration, Event
from controller.rules.state import TableState
from hwsim.board import SimBoard
from hwsim.layout import (
    DENOMINATIONS,
    TEN,
    TableFailure,
    card_uid,
    chip_uid,
    wait_until,
)
from hwsim.scenario.model import CardRef, Scenario
from hwsim.table import OnSimTable, SimTable, Transport

LAYOUT = TEN
HOLE = LAYOUT.hole
BET = LAYOUT.bet
BOARD, BURN, MUCK = LAYOUT.board, LAYOUT.burn, LAYOUT.muck
DemoFailure = TableFailure  # the name the runner catches

CHIPS_PER_DENOMINATION = 60
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
    the joker a tag enrolled as deck A's joker, ``tag:HEX`` as written."""
    if ref.tag:
        return bytes.fromhex(ref.tag)
    card = Card.parse(ref.card)
    if card.is_joker:
        return card_uid(JOKER)
    if ref.deck == "B":
        return bytes([0xC0, 0xB0, int(card.suit), card.rank])
    return card_uid(card)


class VenueSide(Protocol):
    """What a scenario reads and sends as the venue: the messages on a topic, a command."""

    def on(self, suffix: str) -> list[Any]: ...

    async def do(self, cmd: str, **args: Any) -> dict[str, Any]: ...


class ConsoleSide(Protocol):
    """The dealer's console and the button puck, as a scenario works them."""

    async def press(self, button: ConsoleButton, hold_s: float = 0.1) -> None: ...

    async def long_press(self, button: ConsoleButton, extra_s: float = 0.1,
                         taken: Callable[[], bool] | None = None,
                         limit_s: float = 8.0) -> None: ...  # fmt: skip

    async def declare(self, word: Declaration, gap_s: float = 0.05,
                      taken: Callable[[], bool] | None = None) -> None: ...  # fmt: skip

    async def bouncy_press(self, button: ConsoleButton, hold_s: float = 0.1, bounces: int = 4,
                           gap_s: float = 0.002) -> None: ...  # fmt: skip

    def set_puck(self, seat: int, present: bool) -> None: ...


class ScenarioTable:
    """What the verbs (:mod:`hwsim.scenario.verbs`) and the checks
    (:mod:`hwsim.scenario.checks`) use of a table, and the chip bank they share."""

    chips_on: dict[int, list[bytes]]  # seat: chip tags in its betting zone
    free_chips: dict[int, list[bytes]]  # value: unused tags
    puck: int | None
    levels_sent: int  # set_level commands accepted (the next one's number is this + 1)
    watchers: list[Callable[[Event, Step], None]]  # the daemon's observers (every step)

    @property
    def venue(self) -> VenueSide:
        raise NotImplementedError

    @property
    def gpio(self) -> ConsoleSide:
        raise NotImplementedError

    @property
    def board(self) -> SimBoard:
        """The reader board, for board faults."""
        raise NotImplementedError

    @property
    def symlink(self) -> Path | None:
        return None

    @property
    def where(self) -> dict[bytes, int]:
        """Every tag on the table: its antenna."""
        raise NotImplementedError

    def now(self) -> float:
        raise NotImplementedError

    def advance(self, seconds: float) -> None:
        """``wait``: time passes at once for the whole table."""
        raise NotImplementedError

    def put(self, ev: Event, source: str) -> None:
        raise NotImplementedError

    def events_handled(self) -> int:
        raise NotImplementedError

    def phase(self) -> str:
        return self.snapshot().phase.value

    def reader_status(self) -> str:
        raise NotImplementedError

    def snapshot(self) -> TableState:
        raise NotImplementedError

    async def settled(self, timeout: float = 15.0) -> None:
        raise NotImplementedError

    async def move_tags(self, moves: list[tuple[bytes, int]]) -> None:
        raise NotImplementedError

    async def remove_tags(self, uids: list[bytes]) -> None:
        raise NotImplementedError

    async def close(self) -> None:
        raise NotImplementedError

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

    def fill_bank(self) -> None:
        bank = chip_bank()
        for value in DENOMINATIONS:
            self.free_chips[value] = [u for u, v in bank.items() if v == value]


class _Instructions(logging.Handler):
    """Collects the instructions the daemon logs, card names included (the venue's
    ``instruction`` events carry them scrubbed)."""

    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.texts: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        msg = record.getMessage()
        if " instruction seat=" in msg:
            self.texts.append(msg.split(": ", 1)[1] if ": " in msg else msg)


def transport_for(sc: Scenario) -> Transport:
    """A scenario with board faults (bytes on the wire, unplugging, a stall) plays with the
    board on a pty, where they happen; every other scenario with the board in-process."""
    return "pty" if any(step.action.verb == "fault" for step in sc.steps) else "inprocess"


@dataclass
class Rig(OnSimTable, ScenarioTable):
    """A running simulated table, the whole system (see the module docstring)."""

    sim: SimTable
    clock: ShiftedClock  # the daemon's: ``wait`` moves it ahead
    instructions: _Instructions
    chips_on: dict[int, list[bytes]] = field(default_factory=dict)
    free_chips: dict[int, list[bytes]] = field(default_factory=dict)
    puck: int | None = None
    levels_sent: int = 0

    @property
    def watchers(self) -> list[Callable[[Event, Step], None]]:  # type: ignore[override]
        return self.daemon.watchers

    def now(self) -> float:
        return self.clock.monotonic()

    def advance(self, seconds: float) -> None:
        self.clock.advance(seconds)

    def put(self, ev: Event, source: str) -> None:
        """An event the simulated hardware does not produce here (badge taps without pcscd,
        the button draw, the timer's tick) goes to the daemon as its drivers hand one over
        (``Daemon.put``)."""
        self.daemon.put(ev, source)

    # ------------------------------------------------------------------ looking

    def events_handled(self) -> int:
        """Events the daemon has handled (accepted or rejected)."""
        return self.sim.observe().events

    def phase(self) -> str:
        return self.sim.observe().phase.value

    def reader_status(self) -> str:
        return self.sim.observe().reader

    def snapshot(self) -> TableState:
        """The core's snapshot (TableState), as :meth:`Daemon.observe` gives it."""
        snap = self.sim.observe(state=True).snapshot
        assert snap is not None
        return snap

    async def close(self) -> None:
        await close_rig(self)

    # ------------------------------------------------------------------ settling

    async def settled(self, timeout: float = 15.0) -> None:
        """The rules core has handled everything sensed, and the venue has every alert,
        hand record and the current state."""
        d, v = self.daemon, self.venue
        await self.sim.handled(timeout)
        await asyncio.sleep(0.03)
        await self.sim.handled(timeout)
        await wait_until(lambda: len(v.on("alerts")) >= d.observe().alerts, "alerts over MQTT",
                         timeout)  # fmt: skip

        def records_out() -> bool:
            seen = d.observe()
            return not seen.records_pending and len(v.on("hands")) >= seen.records

        try:  # a record goes through the outbox's fsync first: as long as a command's answer
            await wait_until(records_out, "hand records over MQTT", max(timeout, 30.0))
        except TableFailure as exc:
            raise TableFailure(f"{exc} ({self._records_detail()})") from None

        def state_current() -> bool:
            states = v.on("state")
            want = d.observe(state=True).published_state
            if not states or want is None:
                return False
            got = _nameless(states[-1])
            return all(got.get(k) == val for k, val in _nameless(dict(want)).items())

        await wait_until(state_current, "the state over MQTT", timeout)

    def _records_detail(self) -> str:
        """Where the hand records stand, for a wait that timed out."""
        d, seen = self.daemon, self.daemon.observe()
        st = d.link.stats
        return (f"daemon: {seen.records} records made, queue "
                f"{'not ' if seen.records_pending else ''}empty, {d.unstored} not yet in the "
                f"outbox; link: {'connected' if d.link.connected else 'down'}, logger "
                f"{'online' if d.link.logger_online else 'not online'}, {st.records_sent} "
                f"sent, {st.records_acked} acked, {st.connects} connects"
                f"{', last error ' + st.last_error if st.last_error else ''}; venue: "
                f"{len(self.venue.on('hands'))} received")  # fmt: skip

    # ------------------------------------------------------------------ tags

    async def move_tags(self, moves: list[tuple[bytes, int]]) -> None:
        """Lay tags on antennas in one scan cycle (taking each off where it was) and wait
        until the daemon's reader holds them there."""
        await self.sim.move_tags(moves)

    async def remove_tags(self, uids: list[bytes]) -> None:
        await self.sim.remove_tags(uids)


async def open_rig(host: str, port: int, profile: str, workdir: Path, table_id: str,
                   *, decks: set[str], transport: Transport = "inprocess") -> Rig:  # fmt: skip
    """Start the table with its venue logger; enrol the decks used."""
    instructions = _Instructions()
    dlog = logging.getLogger("railguard.daemon")
    dlog.addHandler(instructions)
    if dlog.getEffectiveLevel() > logging.INFO:
        dlog.setLevel(logging.INFO)
    clock = ShiftedClock()  # the daemon's clock: ``wait`` moves it ahead
    try:
        sim = await SimTable.open(host, port, profile=profile, workdir=workdir,
                                  table_id=table_id, seats=LAYOUT, chips=chip_bank(),
                                  transport=transport, enrol=False, clock=clock,
                                  logger=True)  # fmt: skip
    except BaseException:
        dlog.removeHandler(instructions)
        raise
    rig = Rig(sim, clock, instructions)
    rig.fill_bank()
    try:
        await enrol(rig, decks)
    except BaseException:
        await close_rig(rig)
        raise
    return rig


async def enrol(table: ScenarioTable, decks: set[str]) -> None:
    """Deck A, and deck B and the joker when the scenario uses them, enrolled through the
    venue contract as any deck is."""
    main = {str(c): card_uid(c).hex().upper() for c in STANDARD_DECK}
    # a joker is enrolled with deck A (a joker left in the box)
    jokers = [card_uid(JOKER).hex().upper()] if "JK" in decks else []
    await table.venue.do("enrol_deck", deck_id="A", cards=main, jokers=jokers)
    if "B" in decks:
        cards = {str(c): tag_of(CardRef(str(c), "B")).hex().upper() for c in STANDARD_DECK}
        await table.venue.do("enrol_deck", deck_id="B", cards=cards)
    await table.settled()


async def close_rig(rig: Rig) -> None:
    await rig.sim.close()  # the venue logger and its database with it
    logging.getLogger("railguard.daemon").removeHandler(rig.instructions)


def hole_antenna(seat: int) -> int:
    return HOLE[seat]


def bet_antenna(seat: int) -> int:
    return BET[seat]
