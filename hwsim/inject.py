"""Dealer errors injected into a planned hand, and the remedy the virtual dealer performs.

One error per hand, of one KIND (see :data:`KINDS`). The dealer is a generator of table
events: it deals the hand as planned (:func:`hwsim.dealer.plan_hand`), makes the error at
its point, and after the erroneous event receives the alerts that event raised (``send``)
to choose the remedy the profile prescribes - take the card back and re-deal the same hand
after a misdeal, move a fourth flop card to the burn, deal the next street without a burn.
Both replays use it: the core-only one feeds the rules core directly, the full-system one
performs each event on the simulated reader board and console.

A hand that has no place for the error (no flop for a four-card flop, no flop bet for a
premature turn) is dealt as planned and reported as not injected.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Generator, Iterator
from dataclasses import dataclass, field

from controller.rules.cards import STANDARD_DECK, Card
from controller.rules.catalogue import AlertCode
from controller.rules.errors import BadInput
from controller.rules.events import (
    BadgeTap,
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
    ZoneKind,
)
from controller.rules.profile import (
    ExtraCardRule,
    ForeignCard,
    FourCardFlop,
    PrematureTurn,
    WrongFirstSeat,
)
from hwsim.dealer import PlannedHand, tag_of

__all__ = [
    "FOREIGN_PREFIX",
    "KINDS",
    "TWIN_DECK",
    "Feedback",
    "Injection",
    "InjectionError",
    "parse_kind",
]

# kind -> (the alert code it must raise, what the dealer does wrong); the codes are the
# catalogue's (controller/rules/catalogue.py), the kinds their kebab-case names on the CLI
KINDS: dict[str, tuple[AlertCode, str]] = {
    "exposed": (AlertCode.EXPOSED_CARD, "a hole card exposed (console EXPOSED) after the Nth card"),
    "four-card-flop": (AlertCode.FOUR_CARD_FLOP, "a fourth card dealt on the flop"),
    "missing-burn": (AlertCode.MISSING_BURN, "the first flop card dealt without a burn"),
    "premature-turn": (AlertCode.PREMATURE_TURN, "the turn dealt while a flop bet is unanswered"),
    "wrong-first-seat": (
        AlertCode.WRONG_FIRST_SEAT,
        "the first hole card pitched to the wrong seat",
    ),
    "extra-hole-card": (AlertCode.EXTRA_HOLE_CARD, "a third hole card to the first seat dealt"),
    "duplicate-card": (
        AlertCode.DUPLICATE_CARD,
        "the second hole card is a twin of the first (deck B)",
    ),
    "foreign-card": (AlertCode.FOREIGN_CARD, "the second hole card is from no registered deck"),
}
#: the deck of a duplicate card's twin, and the tags of foreign cards (no registered deck)
TWIN_DECK = "B"
FOREIGN_PREFIX = "X-"
DEFAULT_EXPOSED_N = 3

# the alerts an event raised: (code, severity), lower case as in the rules core
Feedback = tuple[tuple[str, str], ...]


class InjectionError(BadInput):
    """An unknown injection kind."""


def parse_kind(text: str) -> tuple[str, int]:
    """``KIND`` or ``exposed:N`` -> (kind, N); N is the exposed card's place in the deal."""
    kind, _, arg = text.partition(":")
    if kind not in KINDS:
        raise InjectionError(f"unknown injection {text!r}; one of {', '.join(KINDS)}")
    n = DEFAULT_EXPOSED_N
    if arg:
        if kind != "exposed" or not arg.isdigit() or int(arg) < 1:
            raise InjectionError(f"injection {text!r}: only exposed takes :N (N >= 1)")
        n = int(arg)
    return kind, n


@dataclass
class Injection:
    """One hand dealt with one dealer error; :meth:`events` is the dealer."""

    plan: PlannedHand
    kind: str
    n: int = DEFAULT_EXPOSED_N
    seed: int = 0
    applied: bool = False  # the error was made (the hand had a place for it)
    awaiting: bool = False  # the last event yielded is the error: send its alerts back
    seen: list[tuple[str, str]] = field(default_factory=list)  # alerts after the error
    remedy: str = ""  # what the dealer did about it
    t: float = 0.0

    @property
    def label(self) -> str:
        return f"exposed:{self.n}" if self.kind == "exposed" else self.kind

    @property
    def expected(self) -> str:
        return KINDS[self.kind][0].value

    @property
    def fired(self) -> bool:
        return any(code == self.expected for code, _ in self.seen)

    def problem(self) -> str:
        """'' when the error raised its alert (or was not made)."""
        if not self.applied or self.fired:
            return ""
        got = ", ".join(sorted({c for c, _ in self.seen})) or "no alert"
        return f"injected {self.kind}: expected alert {self.expected}, got {got}"

    # ---------------------------------------------------------------- helpers

    def _tick(self) -> float:
        self.t = round(self.t + 0.3, 6)
        return self.t

    def _spares(self) -> list[Card]:
        used = {e.card for e in self.plan.events if isinstance(e, CardPlaced)}
        spare = [c for c in STANDARD_DECK if c not in used]
        random.Random(f"{self.seed}-{self.kind}").shuffle(spare)
        return spare

    def _place(self, zone: ZoneKind, card: Card, seat: int = 0) -> CardPlaced:
        return CardPlaced(self._tick(), zone, tag_of(card), card, seat=seat)

    def _remove(self, e: CardPlaced) -> CardRemoved:
        return CardRemoved(self._tick(), e.zone, e.tag, e.seat if e.zone is ZoneKind.HOLE else 0)

    def _error(self, ev: Event) -> Generator[Event, Feedback | None, bool]:
        """Yield the erroneous event; record its alerts; True if one was a misdeal."""
        self.applied = True
        self.awaiting = True
        fb = yield ev
        self.awaiting = False
        self.seen.extend(fb or ())
        return any(sev == "critical" for _, sev in (fb or ()))

    def _retime(self, e: Event) -> Event:
        return dataclasses.replace(e, t=self._tick())

    # ---------------------------------------------------------------- the dealer

    def events(self) -> Generator[Event, Feedback | None, None]:
        evs: list[Event] = list(self.plan.events)
        setup: list[Event] = [e for e in evs if isinstance(e, SeatPlayer | SetButton | SetLevel)]
        rest: list[Event] = [e for e in evs if e not in setup]
        yield from setup
        self.t = max((e.t for e in setup), default=0.0)
        first_hole = next(i for i, e in enumerate(rest) if _is(e, ZoneKind.HOLE))
        n_hole = 2 * len(self.plan.seats)
        holes = [e for e in rest[first_hole : first_hole + n_hole] if isinstance(e, CardPlaced)]
        after: list[Event] = rest[first_hole + n_hole :]
        for e in rest[:first_hole]:  # blinds and antes
            yield self._retime(e)
        spare = self._spares()
        burn_sub: Card | None = None  # a card that replaces the flop burn
        if self.kind in ("duplicate-card", "foreign-card"):
            yield from self._deal_bad_card(holes, rest[:first_hole])
        elif self.kind in ("exposed", "wrong-first-seat", "extra-hole-card"):
            burn_sub = yield from self._deal_with_error(holes, spare)
        else:
            for e in holes:
                yield self._retime(e)
        yield from self._play(after, spare, burn_sub)

    def _deal_clean(self, holes: list[CardPlaced]) -> Iterator[Event]:
        for e in holes:
            yield self._retime(e)

    def _redeal(self, on_table: list[CardPlaced], holes: list[CardPlaced]) -> Iterator[Event]:
        """Misdeal: every card back, the same hand dealt again."""
        self.remedy = "misdeal: cards taken back, the same hand dealt again"
        for e in on_table:
            yield self._remove(e)
        yield from self._deal_clean(holes)

    def _deal_bad_card(
        self, holes: list[CardPlaced], posts: list[Event]
    ) -> Generator[Event, Feedback | None, None]:
        """The second hole card is a duplicate (the first card's twin from deck B) or a
        foreign card: the hand is void (000 IRREGULARITIES 4-5 [L136-137]). The dealer takes
        every card back, returns the bets, the blinds are posted again and the hand is dealt
        again with the right card."""
        first = self._retime(holes[0])
        assert isinstance(first, CardPlaced) and first.card is not None
        yield first
        seat = holes[1].seat
        if self.kind == "duplicate-card":
            bad = CardPlaced(self._tick(), ZoneKind.HOLE, tag_of(first.card, TWIN_DECK),
                             first.card, seat=seat, deck=TWIN_DECK)  # fmt: skip
        else:
            tag = f"{FOREIGN_PREFIX}{random.Random(f'{self.seed}-foreign').randrange(1, 4096)}"
            bad = CardPlaced(self._tick(), ZoneKind.HOLE, tag, None, seat=seat)
        voided = yield from self._error(bad)
        floor = (self.kind == "foreign-card" and not voided
                 and self.plan.profile.foreign_card is ForeignCard.FLOOR)  # fmt: skip
        if floor:  # 003 leaves it to the floor (floor.py): the director rules a misdeal
            yield BadgeTap(self._tick(), "floor-1", supervisor=True)
            yield ButtonPress(self._tick(), ConsoleButton.MISDEAL)
        for card in (bad, first):
            yield self._remove(card)
        if floor:
            self.remedy = "floor ruling: misdeal, the same hand dealt again"
        elif voided:
            self.remedy = "hand void: cards and bets back, blinds posted again, dealt again"
            yield Sweep(self._tick())
            for post in posts:
                yield self._retime(post)
        else:
            self.remedy = "the card taken back, the hand dealt again"
        yield from self._deal_clean(holes)

    def _deal_with_error(
        self, holes: list[CardPlaced], spare: list[Card]
    ) -> Generator[Event, Feedback | None, Card | None]:
        dealt: list[CardPlaced] = []
        if self.kind == "wrong-first-seat":
            first = holes[0]
            wrong = holes[1].seat
            bad = CardPlaced(self._tick(), ZoneKind.HOLE, first.tag, first.card, seat=wrong)
            misdeal = yield from self._error(bad)
            if misdeal:
                yield from self._redeal([bad], holes)
            elif self.plan.profile.wrong_first_seat is WrongFirstSeat.FLOOR:
                # 003 leaves it to the floor (floor.py): the director rules a misdeal
                yield BadgeTap(self._tick(), "floor-1", supervisor=True)
                yield ButtonPress(self._tick(), ConsoleButton.MISDEAL)
                yield from self._redeal([bad], holes)
                self.remedy = "floor ruling: misdeal, the same hand dealt again"
            else:  # 004, silent (a note): the card goes to its seat and the deal goes on
                self.remedy = "card moved to the right seat"
                yield self._remove(bad)
                yield from self._deal_clean(holes)
            return None
        if self.kind == "extra-hole-card":
            for e in holes:
                ev = self._retime(e)
                assert isinstance(ev, CardPlaced)
                dealt.append(ev)
                yield ev
            extra = self._place(ZoneKind.HOLE, spare.pop(), holes[0].seat)
            misdeal = yield from self._error(extra)
            if misdeal:
                yield from self._redeal([*dealt, extra], holes)
                return None
            yield self._remove(extra)
            if self.plan.profile.extra_card is ExtraCardRule.FIRST_PLAYER_BURN:
                self.remedy = "extra card returned to the deck: it is the flop burn"
                assert extra.card is not None
                return extra.card
            self.remedy = "extra card taken back"
            return None
        # exposed: the Nth card is a card the hand does not use, and is exposed
        n = min(self.n, len(holes))
        for e in holes[: n - 1]:
            ev = self._retime(e)
            assert isinstance(ev, CardPlaced)
            dealt.append(ev)
            yield ev
        target = holes[n - 1]
        shown = self._place(ZoneKind.HOLE, spare.pop(), target.seat)
        dealt.append(shown)
        yield shown
        misdeal = yield from self._error(ButtonPress(self._tick(), ConsoleButton.EXPOSED))
        if misdeal:
            yield from self._redeal(dealt, holes)
            return None
        # deal on; after the deal the seat gets the next card; the exposed one is the burn
        self.remedy = "dealt on, exposed card replaced after the deal; it is the flop burn"
        yield from self._deal_clean(holes[n:])
        yield self._retime(target)
        yield self._remove(shown)
        assert shown.card is not None
        return shown.card

    def _play(
        self, after: list[Event], spare: list[Card], burn_sub: Card | None
    ) -> Generator[Event, Feedback | None, None]:
        prof = self.plan.profile
        skip_burn: int = 0  # street (2 turn, 3 river) whose planned burn is not dealt
        street = 0  # board streets begun: 1 flop, 2 turn, 3 river
        board: list[CardPlaced] = []
        premature_done = False
        i = 0
        while i < len(after):
            e = after[i]
            i += 1
            if _is(e, ZoneKind.BURN):
                street += 1
                if street == skip_burn:
                    continue
                if street == 1 and burn_sub is not None:
                    yield self._place(ZoneKind.BURN, burn_sub)
                    continue
                if street == 1 and self.kind == "missing-burn":
                    assert isinstance(e, CardPlaced) and e.card is not None
                    wrong = self._place(ZoneKind.BOARD, e.card)
                    yield from self._error(wrong)
                    self.remedy = "the card dealt without a burn moved to the burn"
                    yield self._remove(wrong)
                    yield self._retime(e)
                    continue
                yield self._retime(e)
                continue
            if _is(e, ZoneKind.BOARD):
                ev = self._retime(e)
                assert isinstance(ev, CardPlaced)
                yield ev
                if street == 1:
                    board.append(ev)
                nxt = after[i] if i < len(after) else None
                if self.kind == "four-card-flop" and street == 1 and len(board) == 3 \
                        and not _is(nxt, ZoneKind.BOARD) and not self._runout():  # fmt: skip
                    skip_burn = yield from self._four_card_flop(board, spare, prof.four_card_flop)
                continue
            if (
                self.kind == "premature-turn"
                and street == 1
                and not premature_done
                and isinstance(e, ChipsIn)
                and i < len(after)
                and not isinstance(after[i], Sweep)
            ):
                premature_done = True
                yield self._retime(e)
                early = self._place(ZoneKind.BOARD, spare.pop())
                yield from self._error(early)
                yield self._remove(early)
                if prof.premature_turn is PrematureTurn.WOULD_BE_RIVER:
                    self.remedy = "premature turn set aside; the river is dealt without a burn"
                    skip_burn = 3
                else:
                    self.remedy = "premature turn taken back; the turn is dealt without a burn"
                    skip_burn = 2
                continue
            yield self._retime(e)

    def _runout(self) -> bool:
        """Nobody can bet on the flop (all in but one): a fourth card after the flop is the
        turn dealt without a burn, not a four-card flop."""
        seat_of: dict[str, int] = {}
        put: dict[int, int] = dict.fromkeys(self.plan.seats, 0)
        folded: set[int] = set()
        for e in self.plan.events:
            if isinstance(e, ChipsIn):
                put[e.seat] += e.amount or 0
            elif _is(e, ZoneKind.HOLE):
                assert isinstance(e, CardPlaced)
                seat_of[e.tag] = e.seat
            elif _is(e, ZoneKind.MUCK):
                assert isinstance(e, CardPlaced)
                folded.add(seat_of.get(e.tag, 0))
            elif _is(e, ZoneKind.BURN):
                break
        start = dict(zip(self.plan.seats, self.plan.starting, strict=True))
        can_bet = [s for s in self.plan.seats if s not in folded and put[s] < start[s]]
        return len(can_bet) <= 1

    def _four_card_flop(
        self, board: list[CardPlaced], spare: list[Card], rule: FourCardFlop
    ) -> Generator[Event, Feedback | None, int]:
        fourth = self._place(ZoneKind.BOARD, spare.pop())
        yield from self._error(fourth)
        yield self._remove(fourth)
        if rule is FourCardFlop.FOURTH_IS_BURN:
            self.remedy = "the fourth card moved to the burn: it is the turn's burn"
            assert fourth.card is not None
            yield self._place(ZoneKind.BURN, fourth.card)
            return 2
        self.remedy = "the flop returned, reshuffled and dealt again without a burn"
        for e in board:
            yield self._remove(e)
        for e in board:
            yield self._retime(e)
        return 0


def _is(e: Event | None, zone: ZoneKind) -> bool:
    return isinstance(e, CardPlaced) and e.zone is zone
