"""The rules core: one table, one event at a time, no I/O.

``TableCore.handle(event)`` returns a :class:`Step` with the decisions the event caused.
The table's full state is read with :meth:`TableCore.snapshot` (frozen values). A rejected
event raises nothing: the step carries a :class:`TableError` and the state is unchanged.

Phases and the events each accepts are listed once, in :data:`ACCEPTS`; the only place the
phase changes is :meth:`TableCore.enter`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from controller.rules import betting, board, dealing, draw, misdeal, records, showdown
from controller.rules.cards import Card
from controller.rules.decisions import Alert, AlertCode, Decision, HandRecord, Instruction, Severity
from controller.rules.errors import TableError
from controller.rules.events import (
    BadgeTap,
    ButtonPress,
    CardPlaced,
    CardRemoved,
    ChipsIn,
    ChipsOut,
    ConsoleButton,
    Event,
    Interrupted,
    SeatPlayer,
    SetButton,
    SetDealer,
    SetLevel,
    SetPresence,
    StartButtonDraw,
    Sweep,
    Tick,
    UnseatPlayer,
    ZoneKind,
)
from controller.rules.hand import Draw, Hand, Level
from controller.rules.phases import Phase
from controller.rules.profile import Profile
from controller.rules.seating import Positions, Seat, SeatStatus, first_positions, next_positions
from controller.rules.state import TableState, snapshot_of
from controller.rules.tabledata import TableData, export_table, restore_table

_TABLE_EVENTS: Final = (SeatPlayer, UnseatPlayer, SetPresence, SetLevel, SetDealer, Tick)
_CARDS: Final = (CardPlaced, CardRemoved)
_CHIPS: Final = (ChipsIn, ChipsOut, Sweep)
_CONSOLE: Final = (ButtonPress, BadgeTap)

# A hole card in these phases starts a (re-)deal.
_STARTS_HAND: Final = (Phase.IDLE, Phase.COMPLETE, Phase.MISDEAL, Phase.VOID)

# Which events each phase accepts; anything else is rejected with the state unchanged.
ACCEPTS: Final[dict[Phase, frozenset[type]]] = {
    Phase.IDLE: frozenset(
        (*_TABLE_EVENTS, *_CARDS, *_CHIPS, *_CONSOLE, SetButton, StartButtonDraw)
    ),
    Phase.DRAW: frozenset((*_TABLE_EVENTS, *_CARDS, *_CONSOLE)),
    Phase.DEALING: frozenset((*_TABLE_EVENTS, *_CARDS, *_CHIPS, *_CONSOLE, Interrupted)),
    Phase.BETTING: frozenset((*_TABLE_EVENTS, *_CARDS, *_CHIPS, *_CONSOLE, Interrupted)),
    Phase.BOARD: frozenset((*_TABLE_EVENTS, *_CARDS, *_CHIPS, *_CONSOLE, Interrupted)),
    Phase.COMPLETE: frozenset((*_TABLE_EVENTS, *_CARDS, *_CHIPS, *_CONSOLE, SetButton)),
    Phase.MISDEAL: frozenset((*_TABLE_EVENTS, *_CARDS, *_CHIPS, *_CONSOLE)),
    Phase.VOID: frozenset((*_TABLE_EVENTS, *_CARDS, *_CHIPS, *_CONSOLE)),
}


# The locations a card can have (TableCore.where), built once rather than per card.
_HOLE_LOCS: Final = tuple((ZoneKind.HOLE, s) for s in range(11))
_MUCK_LOC: Final = (ZoneKind.MUCK, 0)
_BOARD_LOC: Final = (ZoneKind.BOARD, 0)
_BURN_LOC: Final = (ZoneKind.BURN, 0)

# ACCEPTS as two parallel tuples, for TableCore.enter
_PHASE_SEQ: Final[tuple[Phase, ...]] = tuple(ACCEPTS)
_ACCEPTS_SEQ: Final[tuple[frozenset[type], ...]] = tuple(ACCEPTS.values())


@dataclass(init=False, unsafe_hash=True, slots=True)
class Step:
    """The result of one event (read-only; an explicit ``__init__``: see decisions.py)."""

    phase: Final[Phase]
    hand_no: Final[int]
    decisions: Final[tuple[Decision, ...]]
    rejected: Final[TableError | None]

    def __init__(
        self,
        phase: Phase,
        hand_no: int,
        decisions: tuple[Decision, ...] = (),
        rejected: TableError | None = None,
    ) -> None:
        self.phase = phase
        self.hand_no = hand_no
        self.decisions = decisions
        self.rejected = rejected

    @property
    def alerts(self) -> tuple[Alert, ...]:
        return tuple(d for d in self.decisions if isinstance(d, Alert))


class TableCore:
    """One table's rules engine. Construct with a profile; feed events to :meth:`handle`."""

    def __init__(self, profile: Profile, table: str = "table", *, hand_no: int = 0) -> None:
        self._profile = profile
        self.max_seats = profile.max_seats  # read on every action: kept with the profile
        self.table = table
        self.seats: dict[int, Seat] = {}
        self.level = Level(0, 0, 0)
        self.pending_level: Level | None = None
        # G11: the pending level came after the coming hand's blinds: it waits one more hand
        self.level_waits = False
        self.positions: Positions | None = None  # the current (or next) hand's positions
        self.button_set = False  # a button was placed and no hand played since
        self.hand_no = hand_no  # the last hand started
        self.deal_no = 0
        # G1: a misdeal or void was cleared; the next deal re-deals the same hand number
        self.redeal_pending = False
        self.hand: Hand | None = None
        self.phase = Phase.IDLE
        self._accepts = ACCEPTS[Phase.IDLE]
        # the Step of an event that decided nothing, reused while phase and hand stay the same
        self._quiet = Step(Phase.IDLE, hand_no)
        self.where: dict[str, tuple[ZoneKind, int]] = {}
        self.card_of: dict[str, Card | None] = {}
        self.posted: dict[int, int] = {}  # chips in betting zones before the deal
        self.presence_posts: set[int] = set()  # of those, seats sensed by presence only (L3)
        self.draw: Draw | None = None
        self.dealer = ""
        self.t = 0.0
        self.out: list[Decision] = []
        self.last_record: HandRecord | None = None

    # ------------------------------------------------------------------ public API

    @property
    def profile(self) -> Profile:
        """The house-rule profile (the daemon may switch it between hands)."""
        return self._profile

    def switch_profile(self, profile: Profile) -> None:
        """Judge by ``profile`` from now on (the daemon switches it between hands)."""
        self._profile = profile
        self.max_seats = profile.max_seats

    def export(self) -> TableData:
        """The whole state as frozen values (:mod:`controller.rules.tabledata`)."""
        return export_table(self)

    def restore(self, data: TableData) -> None:
        """Become ``data`` (from :meth:`export`, possibly changed with
        :func:`dataclasses.replace`, or decoded by :mod:`controller.rules.handlog`)."""
        restore_table(self, data)

    def handle(self, event: Event) -> Step:
        """Apply one event. Never raises for anything the table can produce."""
        self.out.clear()  # the decisions of this event (copied into its Step)
        kind = type(event)
        if kind not in self._accepts:
            return self._reject(
                TableError("not_now", f"{kind.__name__} is not accepted while {self.phase.value}")
            )
        if event.t < self.t:
            return self._reject(
                TableError("time_backwards", f"event time {event.t} is before {self.t}")
            )
        clock: tuple[Decision, ...] = ()
        h = self.hand
        if h is not None and h.clock_seat:
            try:
                self._check_clock(event.t)
            except TableError as err:
                return self._reject(err)
            clock = tuple(self.out)
        saved_t = self.t
        try:
            self.t = event.t
            self._dispatch(event)
        except TableError as err:
            self.t = saved_t
            if clock:
                # 002-Clock-1 / G8: the time that passed ran the clock out (countdown, dead
                # hand) before this event; that ruling stands and is reported even though the
                # event itself is rejected (it changed nothing)
                return Step(self.phase, self.hand_no, clock, err)
            return self._reject(err)
        if self.out:
            return Step(self.phase, self.hand_no, tuple(self.out))
        quiet = self._quiet
        if quiet.phase is not self.phase or quiet.hand_no != self.hand_no:
            quiet = self._quiet = Step(self.phase, self.hand_no)
        return quiet

    def _dispatch(self, event: Event) -> None:
        """Hand the event to its handler. A chain of isinstance tests, the most frequent
        kinds first: the compiled core turns it into direct calls (a dict of bound methods
        costs a Python-level call per event in either build)."""
        if isinstance(event, CardPlaced):
            self._card_placed(event)
        elif isinstance(event, CardRemoved):
            self._card_removed(event)
        elif isinstance(event, ChipsIn):
            self._chips_in(event)
        elif isinstance(event, Sweep):
            betting.sweep(self, event)
        elif isinstance(event, ChipsOut):
            self._chips_out(event)
        elif isinstance(event, ButtonPress):
            self._button(event)
        elif isinstance(event, BadgeTap):
            self._badge(event)
        elif isinstance(event, Tick):
            return
        elif isinstance(event, SeatPlayer):
            self._seat_player(event)
        elif isinstance(event, UnseatPlayer):
            self._unseat_player(event)
        elif isinstance(event, SetPresence):
            self._set_presence(event)
        elif isinstance(event, SetLevel):
            self._set_level(event)
        elif isinstance(event, SetButton):
            self._set_button(event)
        elif isinstance(event, StartButtonDraw):
            self._start_draw(event)
        elif isinstance(event, SetDealer):
            self.dealer = event.dealer
        elif isinstance(event, Interrupted):
            misdeal.interrupted(self)

    def can(self, event: Event) -> bool:
        """Would this event be accepted in the current phase? (No side effects.)"""
        return type(event) in self._accepts and event.t >= self.t

    def snapshot(self) -> TableState:
        return snapshot_of(self)

    # ------------------------------------------------------------------ helpers for rule modules

    def enter(self, phase: Phase) -> None:
        self.set_phase(phase)

    def set_phase(self, phase: Phase) -> None:
        self.phase = phase
        # not ACCEPTS[phase]: hashing an Enum member is a Python-level call
        self._accepts = _ACCEPTS_SEQ[_PHASE_SEQ.index(phase)]

    def alert(
        self,
        code: AlertCode,
        severity: Severity,
        clause: str,
        remedy: str,
        seat: int = 0,
        tag: str = "",
    ) -> Alert:
        a = Alert(
            code, severity, clause, remedy, seat, self.card_of.get(tag) if tag else None, self.t
        )
        self.out.append(a)
        if self.hand is not None:
            self.hand.alerts.append(a)
        return a

    def instruct(self, text: str, seat: int = 0, tag: str = "") -> None:
        self.out.append(Instruction(text, seat, self.card_of.get(tag) if tag else None, self.t))

    def card_name(self, tag: str) -> str:
        card = self.card_of.get(tag)
        return str(card) if card is not None else f"tag {tag}"

    def live_seated(self) -> frozenset[int]:
        return frozenset(
            [
                s
                for s, seat in self.seats.items()
                if seat.stack > 0 and seat.status is not SeatStatus.BUSTED
            ]
        )

    def tags_in(self, zone: ZoneKind, seat: int = 0) -> list[str]:
        return [
            t
            for t, (z, s) in self.where.items()
            if z is zone and (zone is not ZoneKind.HOLE or s == seat)
        ]

    def table_clear(self) -> bool:
        return not any(z is not ZoneKind.MUCK for z, _ in self.where.values())

    # ------------------------------------------------------------------ rejection

    def _reject(self, err: TableError) -> Step:
        return Step(self.phase, self.hand_no, (), err)

    # ------------------------------------------------------------------ table management

    def _seat_player(self, e: SeatPlayer) -> None:
        if not 1 <= e.seat <= self.max_seats:
            raise TableError("bad_seat", f"seat {e.seat} is not 1..{self.max_seats}")
        if e.stack < 0:
            raise TableError("bad_stack", f"stack {e.stack} is negative")
        cur = self.seats.get(e.seat)
        if cur is not None and cur.player != e.player and cur.stack > 0:
            raise TableError("seat_taken", f"seat {e.seat} is taken by {cur.player}")
        in_hand = self.hand is not None and e.seat in self.hand.players
        if in_hand:
            raise TableError("in_hand", f"seat {e.seat} is in the hand; change it after the hand")
        # A new player waits for the button unless the table has no button yet.
        status = (
            SeatStatus.WAITING
            if self.positions is not None and not self.button_set
            else SeatStatus.ACTIVE
        )
        if cur is not None and cur.player == e.player and cur.status is SeatStatus.ACTIVE:
            status = SeatStatus.ACTIVE
        self.seats[e.seat] = Seat(e.player, e.stack, e.present, status)

    def _unseat_player(self, e: UnseatPlayer) -> None:
        if e.seat not in self.seats:
            raise TableError("empty_seat", f"seat {e.seat} is empty")
        if self.hand is not None and e.seat in self.hand.players and self.hand.players[e.seat].live:
            raise TableError("in_hand", f"seat {e.seat} is in the hand; unseat it after the hand")
        del self.seats[e.seat]

    def _set_presence(self, e: SetPresence) -> None:
        if e.seat not in self.seats:
            raise TableError("empty_seat", f"seat {e.seat} is empty")
        self.seats[e.seat].present = e.present

    def _set_level(self, e: SetLevel) -> None:
        if e.small_blind < 0 or e.big_blind <= 0 or e.ante < 0 or e.small_blind > e.big_blind:
            raise TableError(
                "bad_level", f"level {e.small_blind}/{e.big_blind} ante {e.ante} is invalid"
            )
        lvl = Level(e.small_blind, e.big_blind, e.ante)
        if self.hand is None and self.hand_no == 0:
            self.level = lvl  # before the first hand: applies at once
        else:
            self.pending_level = lvl  # G11: from the first hand whose blinds come after it
            # blinds already in the zones for the coming (new) hand keep it at the old level
            self.level_waits = (
                bool(self.posted)
                and self.phase in (Phase.IDLE, Phase.COMPLETE)
                and not self.redeal_pending
            )

    def _set_button(self, e: SetButton) -> None:
        live = self.live_seated()
        if e.seat not in self.seats and len(live) >= 2:
            pass  # a dead button may sit in front of an empty seat
        if len(live) < 2:
            raise TableError("too_few_players", "a hand needs at least two players with chips")
        if self.hand is not None and self.phase is not Phase.COMPLETE:
            raise TableError("in_hand", "the button moves between hands")
        self.positions = first_positions(e.seat, live, self.max_seats)
        self.button_set = True
        for seat in self.seats.values():
            if seat.status is SeatStatus.WAITING:
                seat.status = SeatStatus.ACTIVE

    def _start_draw(self, e: StartButtonDraw) -> None:
        if len(self.live_seated()) < 2:
            raise TableError("too_few_players", "a button draw needs at least two players")
        if not self.table_clear():
            raise TableError("table_not_clear", "clear the table before the button draw")
        self.draw = Draw()
        self.enter(Phase.DRAW)
        rule = self.profile.draw_rule.value
        self.instruct(f"Button draw ({rule}): deal one card face up to each seat")

    # ------------------------------------------------------------------ cards

    def _card_placed(self, e: CardPlaced) -> None:
        zone, tag = e.zone, e.tag
        loc: tuple[ZoneKind, int]
        dealt: set[int] | None = None
        if zone is ZoneKind.HOLE:
            if not 1 <= e.seat <= self.max_seats:
                raise TableError("bad_seat", f"hole-card zone of seat {e.seat} does not exist")
            if self.phase in _STARTS_HAND:
                # a hand must be able to start: else rejected, unchanged
                dealt = dealing.dealt_in(self)
            loc = _HOLE_LOCS[e.seat]
        elif zone is ZoneKind.MUCK:
            loc = _MUCK_LOC
        elif zone is ZoneKind.BOARD:
            loc = _BOARD_LOC
        else:
            loc = _BURN_LOC
        prev = self.where.get(tag)
        if prev == loc:
            raise TableError("already_there", f"{self.card_name(tag)} is already on that zone")
        self.card_of[tag] = e.card
        if prev is not None:
            # A move: the removal may be reported late (L5), so the placement implies it.
            self._remove(prev[0], tag, prev[1])
        self.where[tag] = loc
        if self.phase is Phase.DRAW:
            draw.draw_card(self, e)
            return
        dealing.on_card_placed(self, e, prev, dealt)

    def _card_removed(self, e: CardRemoved) -> None:
        loc = self.where.get(e.tag)
        if loc is None or loc[0] is not e.zone or (e.zone is ZoneKind.HOLE and loc[1] != e.seat):
            raise TableError(
                "not_there", f"tag {e.tag} was not on {e.zone.value} {e.seat or ''}".strip()
            )
        self._remove(e.zone, e.tag, e.seat)

    def _remove(self, zone: ZoneKind, tag: str, seat: int) -> None:
        """A card known to be on ``zone`` (of ``seat``) left it."""
        del self.where[tag]
        if self.phase is Phase.DRAW:
            draw.draw_removed(self, tag)
            return
        dealing.on_card_removed(self, zone, tag, seat)

    # ------------------------------------------------------------------ chips

    def _chips_in(self, e: ChipsIn) -> None:
        if e.seat not in self.seats:
            raise TableError("empty_seat", f"chips in the betting zone of empty seat {e.seat}")
        if e.amount is not None and e.amount <= 0:
            raise TableError("bad_amount", f"chip amount {e.amount} must be positive")
        betting.chips_in(self, e)

    def _chips_out(self, e: ChipsOut) -> None:
        if e.seat not in self.seats:
            raise TableError("empty_seat", f"chips left the betting zone of empty seat {e.seat}")
        betting.chips_out(self, e)

    # ------------------------------------------------------------------ console

    def _button(self, e: ButtonPress) -> None:
        b = e.button
        if b is ConsoleButton.EXPOSED or b is ConsoleButton.BOXED:
            misdeal.exposed_or_boxed(self, boxed=b is ConsoleButton.BOXED)
        elif b is ConsoleButton.MISDEAL:
            misdeal.misdeal_pressed(self)
        elif b is ConsoleButton.CLOCK:
            betting.start_clock(self)
        elif b is ConsoleButton.FLOOR:
            self.alert(
                AlertCode.FLOOR_CALLED,
                Severity.INFO,
                "all profiles: floor call",
                "Floor called to the table",
            )
        elif b is ConsoleButton.ACK:
            betting.ack(self)

    def _badge(self, e: BadgeTap) -> None:
        if not e.supervisor:
            self.dealer = e.badge
            return
        board.supervisor(self, e)

    def _check_clock(self, t: float) -> None:
        if self.hand is not None and self.hand.clock_seat:
            betting.clock_tick(self, t)

    # ------------------------------------------------------------------ hand lifecycle

    def finish_hand(self) -> None:
        """The hand is decided: build the record, update stacks and the next positions."""
        h = self.hand
        assert h is not None
        if sum(1 for p in h.players.values() if p.live) > 1:
            # C19: who shows first (002 ShowdownOrder-1, 000 SHOWDOWN 6, 004 HE-10)
            first = showdown.showdown_first(self, h)
            self.instruct(f"Showdown: seat {first} shows first", first)
        rec = records.build(self, h)
        self.last_record = rec
        records.eliminations(self, rec)  # 000-S1-elim-2, 004-TG-27: the finishing order
        for p in h.players.values():
            seat = self.seats.get(p.seat)
            if seat is not None:
                seat.stack = p.stack
                if seat.stack == 0:
                    seat.status = SeatStatus.BUSTED
        self.out.append(records.complete(rec))
        self.enter(Phase.COMPLETE)
        self._advance_positions()

    def _advance_positions(self) -> None:
        for s in [s for s, seat in self.seats.items() if seat.status is SeatStatus.BUSTED]:
            del self.seats[s]
        live = self.live_seated()
        if self.positions is not None and len(live) >= 2:
            self.positions = next_positions(self.positions, live, self.profile)
        self.button_set = False

    def void_or_misdeal_cleared(self) -> None:
        """Every dealt card is off the table after a misdeal or a void: ready to re-deal."""
        self.hand = None
        self.redeal_pending = True  # G1: same hand number, new deal number
        self.enter(Phase.IDLE)
        self.instruct("Table clear: shuffle and deal again; button and blinds stay")
