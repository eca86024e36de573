"""A small fluent builder for rules-core scenarios (a helper module, not a test file).

    t = Table("a2c-000", players=4).post_blinds().deal()
    t.chips(4, 100).fold(1)
    assert t.snap.to_act == 2

Every event gets a strictly increasing timestamp (``same_t=True`` on :meth:`board` reads the
cards in one scan cycle, so their order is unknown). Every :class:`Step` is collected in
``steps``; :meth:`last` is the latest, :attr:`alerts` every alert since the table was built
(or since :meth:`mark`).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Self

from controller.rules.cards import STANDARD_DECK, Card
from controller.rules.decisions import (
    Alert,
    AlertCode,
    Decision,
    HandComplete,
    HandRecord,
    Instruction,
)
from controller.rules.engine import Step, TableCore
from controller.rules.events import (
    BadgeTap,
    ButtonPress,
    CardPlaced,
    CardRemoved,
    ChipsIn,
    ChipsOut,
    ConsoleButton,
    Declaration,
    Declare,
    Event,
    SeatPlayer,
    SetButton,
    SetLevel,
    SetPresence,
    StartButtonDraw,
    Sweep,
    Tick,
    UnseatPlayer,
    ZoneKind,
)
from controller.rules.phases import Phase
from controller.rules.profile import Profile, WrongFirstSeat, builtin_profile
from controller.rules.state import TableState

PROFILES = (
    "tda-2024",
    "roberts-rules",
    "a2c-000",
    "vistancia-002",
    "club-003",
    "shaved-dog-004",
)

# A deck order the builder deals from when a test does not name the cards. Hole cards are
# low and unpaired-ish, the board cards come from the end (the tests that care name cards).
_DECK = [str(c) for c in STANDARD_DECK]


def tag(card: str, deck: str = "A") -> str:
    """The simulated RFID tag of a card, as hwsim makes them: ``A-As``."""
    return f"{deck}-{Card.parse(card)}"


class Table:
    """One table's core plus a clock and the steps it returned."""

    def __init__(
        self,
        profile: str | Profile = "tda-2024",
        players: int | dict[int, int] = 0,
        *,
        stack: int = 1000,
        button: int = 0,
        sb: int = 50,
        bb: int = 100,
        ante: int = 0,
        table_hands: bool = True,
    ) -> None:
        prof = builtin_profile(profile) if isinstance(profile, str) else profile
        self.core = TableCore(prof, "t1")
        # at a showdown the dealer tables every hand (ACK per prompted seat) unless a test
        # plays the showdown itself (table_hands=False)
        self.table_hands = table_hands
        self.t = 0.0
        self.steps: list[Step] = []
        self._mark = 0
        self._used: set[str] = set()
        if sb or bb:
            self.level(sb, bb, ante)
        seats = dict.fromkeys(range(1, players + 1), stack) if isinstance(players, int) else players
        for s, st in seats.items():
            self.seat(s, st)
        if button:
            self.button(button)
        elif seats:
            self.button(min(seats))

    # ------------------------------------------------------------------ plumbing

    @property
    def profile(self) -> Profile:
        return self.core.profile

    def now(self, dt: float = 0.1) -> float:
        self.t = round(self.t + dt, 6)
        return self.t

    def send(self, event: Event) -> Step:
        step = self.core.handle(event)
        self.steps.append(step)
        if self.table_hands and self.core.phase is Phase.SHOWDOWN:
            self._table_all()
        return step

    def _table_all(self) -> None:
        """Every hand tabled (one ACK a prompted seat), and the losing hands killed where
        the profile waits for it (003 [L63]: the table names them, ``kill_next``). Only the
        step of the award is kept (the showdown's own prompts are the showdown tests')."""
        for _ in range(self.core.max_seats):
            if self.core.phase is not Phase.SHOWDOWN or not self.core.snapshot().show_next:
                break
            self._auto(ButtonPress(self.now(), ConsoleButton.ACK))
        if self.core.phase is not Phase.SHOWDOWN:
            return
        for seat in self.core.snapshot().kill_next:
            for t, zone, s in self.core.snapshot().tags:
                if zone == "hole" and s == seat and self.core.phase is Phase.SHOWDOWN:
                    self._auto(CardPlaced(self.now(), ZoneKind.MUCK, t, self.core.card_of.get(t)))

    def _auto(self, event: Event) -> Step:
        step = self.core.handle(event)
        if any(isinstance(d, HandComplete) for d in step.decisions):
            self.steps.append(step)
        return step

    def last(self) -> Step:
        return self.steps[-1]

    def mark(self) -> Self:
        """Forget the alerts and decisions so far (for :attr:`alerts` and friends)."""
        self._mark = len(self.steps)
        return self

    @property
    def decisions(self) -> list[Decision]:
        return [d for s in self.steps[self._mark :] for d in s.decisions]

    @property
    def alerts(self) -> list[Alert]:
        return [d for d in self.decisions if isinstance(d, Alert)]

    @property
    def codes(self) -> list[AlertCode]:
        return [a.code for a in self.alerts]

    @property
    def instructions(self) -> list[Instruction]:
        return [d for d in self.decisions if isinstance(d, Instruction)]

    def alert(self, code: AlertCode) -> Alert:
        """The one alert with ``code`` since the mark (fails if there is none or several)."""
        found = [a for a in self.alerts if a.code is code]
        assert len(found) == 1, f"expected one {code}, got {self.codes}"
        return found[0]

    @property
    def rejections(self) -> list[str]:
        return [s.rejected.code for s in self.steps[self._mark :] if s.rejected is not None]

    @property
    def records(self) -> list[HandRecord]:
        from controller.rules.decisions import HandComplete

        return [d.record for d in self.decisions if isinstance(d, HandComplete)]

    @property
    def snap(self) -> TableState:
        return self.core.snapshot()

    @property
    def phase(self) -> Phase:
        return self.core.phase

    def stack(self, seat: int) -> int:
        s = self.snap.seat(seat)
        assert s is not None, f"seat {seat} is empty"
        return s.stack

    # ------------------------------------------------------------------ table management

    def seat(self, n: int, stack: int = 1000, player: str = "", present: bool = True) -> Self:
        self.send(SeatPlayer(self.now(), n, player or f"p{n}", stack, present))
        return self

    def unseat(self, n: int) -> Self:
        self.send(UnseatPlayer(self.now(), n))
        return self

    def presence(self, n: int, present: bool) -> Self:
        self.send(SetPresence(self.now(), n, present))
        return self

    def level(self, sb: int, bb: int, ante: int = 0) -> Self:
        self.send(SetLevel(self.now(), sb, bb, ante))
        return self

    def button(self, n: int) -> Self:
        self.send(SetButton(self.now(), n))
        return self

    def start_draw(self) -> Self:
        self.send(StartButtonDraw(self.now()))
        return self

    # ------------------------------------------------------------------ chips

    def post_blinds(self) -> Self:
        """Push the due blinds (and antes) of the coming hand into the betting zones."""
        s = self.snap
        seated = {x.seat for x in s.seats if x.stack > 0}
        due: dict[int, int] = {}
        if s.small_blind_seat in seated and s.small_blind:
            due[s.small_blind_seat] = s.small_blind
        if s.big_blind_seat in seated:
            due[s.big_blind_seat] = due.get(s.big_blind_seat, 0) + s.big_blind
        for seat, amount in due.items():
            self.chips(seat, min(amount, self.stack(seat)))
        return self

    def chips(self, seat: int, amount: int | None, *chips: int) -> Self:
        self.send(ChipsIn(self.now(), seat, amount, tuple(chips)))
        return self

    def take_back(self, seat: int, amount: int | None = None) -> Self:
        self.send(ChipsOut(self.now(), seat, amount))
        return self

    def sweep(self) -> Self:
        self.send(Sweep(self.now()))
        return self

    # ------------------------------------------------------------------ cards

    def _next_card(self) -> str:
        for c in _DECK:
            if c not in self._used:
                return c
        raise AssertionError("the builder's deck is empty")

    def hole(self, seat: int, card: str | None = None, *, tag_: str = "") -> Self:
        """One hole card to ``seat`` (the next unused card when none is named)."""
        name = str(Card.parse(card)) if card else self._next_card()
        self._used.add(name)
        self.send(
            CardPlaced(self.now(), ZoneKind.HOLE, tag_ or tag(name), Card.parse(name), seat=seat)
        )
        return self

    def place(self, zone: ZoneKind, card: str, tag_: str, seat: int = 0) -> Self:
        """A card under an explicit tag (a second deck's copy, a duplicate)."""
        self.send(CardPlaced(self.now(), zone, tag_, Card.parse(card), seat=seat))
        return self

    def foreign(self, seat: int, zone: ZoneKind = ZoneKind.HOLE, tag_: str = "X-999") -> Self:
        """A tag from no registered deck."""
        self.send(CardPlaced(self.now(), zone, tag_, None, seat=seat))
        return self

    def deal_order(self) -> list[int]:
        """Seats in dealing order for the coming hand, from the snapshot (the core's view)."""
        from controller.rules.seating import clockwise, waits_for_button

        s = self.snap
        pos = self.core.positions
        dealt = [
            x.seat
            for x in s.seats
            if x.stack > 0
            and not (
                x.status == "waiting"
                and pos is not None
                and waits_for_button(x.seat, pos, self.profile)
            )
        ]
        return [n for n in clockwise(s.button, self.profile.max_seats) if n in dealt]

    def deal(self, cards: dict[int, str] | None = None, order: Iterable[int] | None = None) -> Self:
        """Deal two rounds in order (``cards`` maps a seat to its two cards, e.g. "AsKd")."""
        seats = list(order) if order is not None else self.deal_order()
        cards = cards or {}
        for rnd in range(2):
            for s in seats:
                named = cards.get(s)
                self.hole(s, named[2 * rnd : 2 * rnd + 2] if named else None)
        return self

    def fold(self, seat: int) -> Self:
        """The seat's hole cards go to the muck (the dealer kills the hand)."""
        for t, zone, s in self.snap.tags:
            if zone == "hole" and s == seat:
                self.send(CardPlaced(self.now(), ZoneKind.MUCK, t, self.core.card_of.get(t)))
        return self

    def to_muck(self, card: str) -> Self:
        self.send(CardPlaced(self.now(), ZoneKind.MUCK, tag(card), Card.parse(card)))
        return self

    def burn(self, card: str | None = None) -> Self:
        name = str(Card.parse(card)) if card else self._next_card()
        self._used.add(name)
        self.send(CardPlaced(self.now(), ZoneKind.BURN, tag(name), Card.parse(name)))
        return self

    def board(self, *cards: str, same_t: bool = False) -> Self:
        t = self.now()
        for c in cards:
            name = str(Card.parse(c))
            self._used.add(name)
            self.send(CardPlaced(t, ZoneKind.BOARD, tag(name), Card.parse(name)))
            if not same_t:
                t = self.now()
        return self

    def remove(self, card: str, zone: ZoneKind, seat: int = 0) -> Self:
        self.send(CardRemoved(self.now(), zone, tag(card), seat))
        return self

    def clear(self) -> Self:
        """Gather every card still read on the hole, board and burn antennas."""
        for t, zone, s in self.snap.tags:
            if zone != "muck":
                self.send(CardRemoved(self.now(), ZoneKind(zone), t, s))
        self._used.clear()
        return self

    # ------------------------------------------------------------------ console

    def declare(self, seat: int, word: str) -> Self:
        """A verbal declaration (``raise``, ``call``, ``not_a_check`` ...); seat 0 = in turn."""
        self.send(Declare(self.now(), Declaration(word), seat))
        return self

    def press(self, button: ConsoleButton, long: bool = False) -> Self:
        self.send(ButtonPress(self.now(), button, long))
        return self

    def badge(self, badge: str = "sup-1", supervisor: bool = True) -> Self:
        self.send(BadgeTap(self.now(), badge, supervisor))
        return self

    def tick(self, dt: float) -> Self:
        self.send(Tick(self.now(dt)))
        return self

    # ------------------------------------------------------------------ shortcuts

    def call_round(self, *, checks_close: bool = True) -> Self:
        """Everyone to act calls (or checks) in turn until the round closes."""
        guard = 0
        while self.phase is Phase.BETTING and guard < 20:
            s = self.snap
            seat = s.to_act
            me = s.seat(seat)
            assert me is not None
            owe = s.current_bet - me.bet
            if owe > 0:
                self.chips(seat, min(owe, me.stack))
            elif checks_close:
                self.press(ConsoleButton.ACK)
            guard += 1
        return self

    def flop(self, *cards: str) -> Self:
        return self.sweep().burn().board(*(cards or ("Ah", "Kh", "Qh")))

    def turn(self, card: str = "2h") -> Self:
        return self.sweep().burn().board(card)

    def river(self, card: str = "3h") -> Self:
        return self.sweep().burn().board(card)

    def misdeal_first_card(self, seat: int) -> Self:
        """The first card to the wrong seat, ruled a misdeal: at once, or by the floor (a
        supervisor's badge, then MISDEAL) where the profile leaves it to the floor (003), or
        by the dealer's MISDEAL where the rulebook is silent and it is only a note (004)."""
        self.hole(seat)
        if self.profile.wrong_first_seat is WrongFirstSeat.FLOOR:
            self.badge("td-1").press(ConsoleButton.MISDEAL)
        elif self.profile.wrong_first_seat is WrongFirstSeat.NOTE:
            self.press(ConsoleButton.MISDEAL)
        return self
