"""The simulated table of ``railguard demo``: the table of :mod:`hwsim.table` (the daemon
in-process, the reader board on a pty, MockFactory GPIO, a venue subscriber) plus a venue
logger on one broker; the virtual dealer plays each hand through the antennas, the chip zones
and the button puck. The board stays on a pty here: the demo shows a newcomer the whole
system, serial link included (the scenario runner and the system replay, which only need the
table, use the in-process board)."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import random
from collections.abc import Callable, Coroutine, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from controller.demo.hands import DemoHand
from controller.demo.view import View
from controller.rules.events import (
    ButtonPress,
    CardPlaced,
    CardRemoved,
    ChipsIn,
    ConsoleButton,
    Event,
    SeatPlayer,
    SetButton,
    SetLevel,
    Sweep,
)
from controller.rules.hand import Phase
from hwsim.inject import KINDS, TWIN_DECK, Feedback, Injection
from hwsim.layout import (
    DENOMINATIONS,
    SIX,
    STEP_TIMEOUT,
    VENUE,
    Layout,
    TableFailure,
    card_uid,
    chip_uid,
    config_mapping,
    daemon_config,
    deck_cards,
    ohh_stacks,
    split_chips,
    tag_uid,
    wait_until,
)
from hwsim.table import OnSimTable, SimTable, venue_logger
from hwsim.venue import Venue, command_payload

__all__ = [
    "BET",
    "BOARD",
    "BURN",
    "DENOMINATIONS",
    "HOLE",
    "MUCK",
    "PUCK",
    "SEATS",
    "STEP_TIMEOUT",
    "VENUE",
    "Delivered",
    "DemoFailure",
    "Outcome",
    "RoomTable",
    "Table",
    "Venue",
    "antenna_of",
    "card_uid",
    "chip_table",
    "chip_uid",
    "command_payload",
    "config_mapping",
    "daemon_config",
    "deal_room",
    "ohh_stacks",
    "run_table",
    "split_chips",
    "tag_uid",
    "wait_until",
]  # fmt: skip

# the six-seat layout (hwsim.layout.SIX) under the names the six-seat tests know
SEATS = SIX.seats
HOLE = SIX.hole
BOARD, BURN, MUCK = SIX.board, SIX.burn, SIX.muck
BET = SIX.bet
PUCK = SIX.puck
antenna_of = SIX.antenna_of
DemoFailure = TableFailure


def chip_table(hands: list[DemoHand]) -> dict[bytes, int]:
    """A chip tag for each chip of each ChipsIn of each hand."""
    out: dict[bytes, int] = {}
    for h, hand in enumerate(hands):
        i = 0
        for e in hand.plan.events:
            if isinstance(e, ChipsIn):
                for value in split_chips(e.amount or 0):
                    out[chip_uid(h, i)] = value
                    i += 1
    return out


@dataclass
class Outcome:
    hands: int = 0
    records: int = 0
    mismatches: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    errors_injected: int = 0


class Table(OnSimTable):
    """The demo's dealer on a running simulated table; :meth:`play` deals one
    :class:`DemoHand`. It sees the daemon through its published MQTT output and
    :meth:`Daemon.observe` only."""

    def __init__(self, sim: SimTable, view: View, rng: random.Random,
                 error_rate: float) -> None:  # fmt: skip
        self.sim = sim
        self.sim.poll = 0.01
        self.view, self.rng, self.error_rate = view, rng, error_rate
        self.layout = sim.layout
        self.kinds: tuple[str, ...] = ()  # given: hand i's dealer error is kinds[i % n]
        self.button: int | None = None
        self.level: tuple[int, int, int] | None = None
        self.seated: set[int] = set()
        self.outcome = Outcome()
        # an injected hand's chips (_do): the hand's index, the next chip, those in the zones
        self.hand_index = 0
        self.chip_i = 0
        self.chips_on: list[bytes] = []

    async def setup(self) -> None:
        """Deck A (the one dealt) and its twin deck B (hwsim.inject's duplicate cards), unless
        the daemon has them already (restored after a restart, when a hand may be open)."""
        enrolled = self.sim.observe().decks
        for deck in ("A", TWIN_DECK):
            if deck not in enrolled:
                await self.venue.do("enrol_deck", deck_id=deck, cards=deck_cards(deck))

    async def _settled(self) -> None:
        await self.sim.handled()
        await asyncio.sleep(0.02)

    def _records(self) -> int:
        return self.daemon.observe().records

    async def _clear_table(self) -> None:
        await self.sim.clear()
        await wait_until(lambda: self.daemon.observe().phase is Phase.IDLE, "the table to reset")

    async def _table_setup(self, hand: DemoHand) -> None:
        seats = {}
        button = 0
        for ev in hand.plan.events:
            if isinstance(ev, SetLevel):
                lvl = (ev.small_blind, ev.big_blind, ev.ante)
                if lvl != self.level:
                    await self.venue.do("set_level", level=1, small_blind=lvl[0],
                                        big_blind=lvl[1], ante=lvl[2])  # fmt: skip
                    self.level = lvl
            elif isinstance(ev, SeatPlayer):
                seats[ev.seat] = ev
            elif isinstance(ev, SetButton):
                button = ev.seat
        for s in sorted(self.seated - set(seats)):
            await self.venue.do("unseat", seat=s)
        for s, ev in sorted(seats.items()):
            await self.venue.do("seat", seat=s, player_id=f"p{s}", name=ev.player, stack=ev.stack)
        self.seated = set(seats)
        await self._settled()
        if self.button is not None:  # the puck leaves the last button seat...
            self.gpio.set_puck(self.button, False)
            await asyncio.sleep(0.3)
        self.gpio.set_puck(button, True)  # ...and arrives at this hand's
        self.button = button
        await wait_until(lambda: self.daemon.observe().button_set, "the button puck")

    async def play(self, index: int, hand: DemoHand) -> None:
        self.view.hand_start(index, hand)
        await self._table_setup(hand)
        # a dealer error in this hand? one of hwsim.inject's kinds, each with its remedy
        if self.kinds:
            kind = self.kinds[index % len(self.kinds)]
        else:
            kind = self.rng.choice(sorted(KINDS)) if self.rng.random() < self.error_rate else ""
        inject = kind == "wrong-first-seat"
        records_before = self._records()
        self.hand_index, self.chip_i, self.chips_on = index, 0, []
        if kind and not inject:
            await self._deal_injected(Injection(hand.plan, kind, seed=self.rng.randrange(2**31)))
        else:
            physical = [
                e
                for e in hand.plan.events
                if isinstance(e, ChipsIn | CardPlaced | Sweep | ButtonPress)
            ]
            for ev in physical:
                if inject and isinstance(ev, CardPlaced):
                    # dealer error: the first card to the wrong seat, then a re-deal
                    inject = False
                    assert ev.card is not None
                    await self._misdeal(ev.seat, card_uid(ev.card), hand.plan.seats)
                await self._do(ev)
                await self._settled()
        await self._ack_checks(records_before)
        await self._end_hand(hand, records_before)

    async def _ack_checks(self, records_before: int) -> None:
        """A checked-through last round leaves no trace: the dealer confirms each check."""
        await self._settled()
        for _ in range(self.layout.seats * 2):
            seen = self.daemon.observe()
            if seen.records > records_before or not seen.hand_open:
                break
            await self.gpio.press(ConsoleButton.ACK, 0.06)
            await asyncio.sleep(0.08)

    async def _end_hand(self, hand: DemoHand, records_before: int) -> None:
        try:
            await wait_until(lambda: self._records() > records_before, "the hand record")
            # the record as the venue gets it
            await wait_until(lambda: len(self.venue.on("hands")) > records_before,
                             "the hand record over MQTT")  # fmt: skip
        except DemoFailure:
            self.outcome.missing.append(hand.label)
            self.view.result(hand, None, "record missing")
            await self._clear_table()
            return
        self.outcome.hands += 1
        got_by_id = ohh_stacks(self.venue.on("hands")[-1]["ohh"])
        got = tuple(got_by_id.get(str(s), -1) for s in hand.plan.seats)
        problem = "" if got == hand.expected else f"expected {list(hand.expected)}"
        if problem:
            self.outcome.mismatches.append(f"{hand.label}: got {list(got)}, {problem}")
        self.view.result(hand, got, problem)
        await self._clear_table()

    async def _deal_injected(self, inj: Injection) -> None:
        """The hand as hwsim.inject's dealer plays it with one error and its remedy: each
        event through the simulated hardware, the alerts it raised sent back to the dealer."""
        gen = inj.events()
        ev: Event | None = next(gen, None)
        while ev is not None:
            since = len(self.view.alerts)
            await self._do(ev)
            await self._settled()
            feedback: Feedback | None = None
            if inj.awaiting:
                self.outcome.errors_injected += 1
                what = KINDS[inj.kind][1].replace("the Nth card", f"card {inj.n} of the deal")
                self.view.note(f"dealer error: {what}")
                fired = functools.partial(self._alert_since, inj.expected.upper(), since)
                with contextlib.suppress(DemoFailure):
                    await wait_until(fired, "the alert", 3.0)
                await self._settled()
                feedback = tuple((str(a["code"]).lower(), str(a["severity"]))
                                 for a in self.view.alerts[since:])  # fmt: skip
            try:
                ev = gen.send(feedback) if feedback is not None else next(gen)
            except StopIteration:
                ev = None
        if inj.remedy:
            self.view.note(f"remedy: {inj.remedy}")

    def _alert_since(self, code: str, since: int) -> bool:
        return any(a.get("code") == code for a in self.view.alerts[since:])

    async def _do(self, ev: Event) -> None:
        """One physical event of the dealer's through the board or the console (table
        set-up events are the venue's commands, done by _table_setup: skipped here)."""
        lay = self.layout
        if isinstance(ev, ChipsIn):  # every chip of the action lands in one scan
            uids = []
            for _ in split_chips(ev.amount or 0):  # the order chip_table registered them in
                uids.append(chip_uid(self.hand_index, self.chip_i))
                self.chip_i += 1
            self.chips_on += uids
            await self.sim.move_tags([(u, lay.bet[ev.seat]) for u in uids])
        elif isinstance(ev, Sweep):
            if self.chips_on:
                self.sim.lift(self.chips_on)
                self.chips_on = []
                await wait_until(self.sim.no_chips, "a sweep")
            if self.sim.observe().redeal_pending:
                # a void hand's bets went back: it is posted and dealt again from its
                # first chip (hwsim.inject's duplicate-card / foreign-card remedy)
                self.chip_i = 0
        elif isinstance(ev, CardPlaced):
            await self.sim.move_tags([(tag_uid(ev.tag), lay.antenna_of(ev))])
        elif isinstance(ev, CardRemoved):
            uid = tag_uid(ev.tag)
            if uid in self.where:
                self.sim.lift([uid])
            await wait_until(lambda: uid not in self.daemon.observe().tags, "a tag to leave")
        elif isinstance(ev, ButtonPress):
            # the next event only once the daemon has taken the press: the console (GPIO)
            # and the board are two inputs, and a showdown's ACK (a hand tabled) overtaken
            # by the next scan (a losing hand mucked) read as the winner mucked before the
            # other hand was shown (WINNING_HAND_MUCKED on clean play, issue 24)
            before = self.daemon.stats.events
            await self.gpio.press(ev.button, 0.06)
            await wait_until(lambda: self.daemon.stats.events > before, "a console press")

    async def _misdeal(self, seat: int, uid: bytes, seats: tuple[int, ...]) -> None:
        self.outcome.errors_injected += 1
        ring = sorted(seats)
        wrong = ring[(ring.index(seat) + 1) % len(ring)] if seat in ring else seat
        self.view.note(f"dealer error: first card pitched to seat {wrong} instead of seat {seat}")
        n_alerts = len(self.view.alerts)
        hole = self.layout.hole
        self.sim.lay([(uid, hole[wrong])])
        await wait_until(lambda: len(self.view.alerts) > n_alerts, "the misdeal alert")
        await self.sim.remove_tags([uid])
        await self._settled()
        # a misdeal: the table clear, ready to re-deal; under 004 (silent: a note) the card
        # taken back restarts the deal in order, no misdeal
        ready = (Phase.IDLE, Phase.DEALING)
        await wait_until(lambda: self.daemon.observe().phase in ready, "the re-deal")
        self.view.note("card gathered; the dealer deals again")


def layout_for(hands: list[DemoHand]) -> Layout:
    """The smallest table (six seats at least) that seats every hand."""
    most = max((max(h.plan.seats) for h in hands if h.plan.seats), default=6)
    return Layout(max(6, most))


@dataclass(frozen=True, slots=True)
class RoomTable:
    """A table :func:`deal_room` opens: its id, its folder, its seats, the hands it will
    deal (the chips' tags registered for them), the view that prints it."""

    table_id: str
    workdir: Path
    layout: Layout
    hands: list[DemoHand]
    view: View


@dataclass(frozen=True, slots=True)
class Delivered:
    """A table's hand records: written by its daemon, seen over MQTT."""

    records: int
    over_mqtt: int


def _sent(venue: Venue, n: int) -> Callable[[], bool]:
    return lambda: len(venue.on("hands")) >= n


async def deal_room(
    tables: Sequence[RoomTable],
    deal: Callable[[int, SimTable], Coroutine[Any, Any, None]],
    *,
    host: str,
    port: int,
    profile: str,
    workdir: Path,
    logger_group: str = "venuelog",
    logger_instance: str = "main",
) -> tuple[list[Delivered], int]:
    """Open ``tables`` on one broker with one venue logger (``workdir``/venue.db), run
    ``deal`` (the table's index, the table) for every table at once (the first that fails
    raises), then give each table's records up to 10 s to arrive over MQTT and in the
    logger; each table's :class:`Delivered` and the hands the logger stored."""
    async with venue_logger(host, port, workdir, instance=logger_instance,
                            group=logger_group) as logger:  # fmt: skip
        sims: list[SimTable] = []
        try:
            for t in tables:
                sims.append(await SimTable.open(
                    host, port, profile=profile, workdir=t.workdir, table_id=t.table_id,
                    seats=t.layout, chips=chip_table(t.hands), transport="pty", view=t.view,
                    enrol=False))  # fmt: skip
            try:
                async with asyncio.TaskGroup() as tg:
                    for i, (sim, t) in enumerate(zip(sims, tables, strict=True)):
                        tg.create_task(deal(i, sim), name=t.table_id)
            except ExceptionGroup as eg:  # the first table that failed says why
                raise eg.exceptions[0] from None
            out = []
            for sim in sims:
                n = sim.observe().records
                with contextlib.suppress(TableFailure):
                    await wait_until(_sent(sim.venue, n), "hands over MQTT", 10)
                out.append(Delivered(n, len(sim.venue.on("hands"))))
            total = sum(d.records for d in out)
            with contextlib.suppress(TableFailure):
                await wait_until(lambda: logger.stats.stored >= total, "the venue logger", 10)
            return out, logger.stats.stored
        finally:
            for sim in sims:
                await sim.close()


async def run_table(
    hands: list[DemoHand],
    *,
    host: str,
    port: int,
    profile: str,
    seed: int,
    error_rate: float,
    workdir: Path,
    view: View,
    table_id: str = "t1",
    logger_group: str = "venuelog",
    logger_instance: str = "main",
    kinds: tuple[str, ...] = (),
) -> tuple[Outcome, dict[str, int]]:
    """Play ``hands`` on a fresh simulated table; (outcome, counts of records received).
    ``kinds``: the dealer error of each hand in turn (hwsim.inject's kinds, "" for none),
    instead of ``error_rate``'s random draw."""
    rng = random.Random(f"{seed}-errors")
    played: list[Table] = []

    async def deal(_: int, sim: SimTable) -> None:
        table = Table(sim, view, rng, error_rate)
        table.kinds = kinds
        played.append(table)
        await table.setup()
        for i, hand in enumerate(hands):
            await table.play(i, hand)

    [sent], stored = await deal_room(
        [RoomTable(table_id, workdir, layout_for(hands), hands, view)], deal, host=host,
        port=port, profile=profile, workdir=workdir, logger_group=logger_group,
        logger_instance=logger_instance)  # fmt: skip
    outcome = played[0].outcome
    outcome.records = sent.records
    return outcome, {"daemon": sent.records, "mqtt": sent.over_mqtt, "logger": stored}
