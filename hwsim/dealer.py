"""The virtual dealer: turns a recorded hand (PHH) into the physical events a real table
would produce - seating, blinds and antes pushed into the betting zones, hole cards pitched
one at a time from the first seat left of the button, burns from cards the hand does not
use, folds into the muck, bets with the recorded amounts, sweeps, board cards.

The same conversion feeds the core-only replay and the full-system replay (through the
simulated reader board)."""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Iterator
from dataclasses import dataclass
from fractions import Fraction

from controller.rules.cards import STANDARD_DECK, Card
from controller.rules.errors import BadInput
from controller.rules.evaluate import score
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
    ZoneKind,
)
from controller.rules.pots import build_pots
from controller.rules.profile import AnteStyle, Profile
from hwsim.phh import BetRaise, CheckCall, DealBoard, DealHole, Fold, HandHistory, Show

CARD_PITCH_S = 0.3  # a dealer pitches a card every third of a second


def tag_of(card: Card, deck: str = "A") -> str:
    """The simulated RFID tag of a card (deck letter + card)."""
    return f"{deck}-{card}"


@dataclass(frozen=True, slots=True)
class PlannedHand:
    """A hand ready to deal: its table setup, events, and the seat of each PHH player."""

    events: tuple[Event, ...]
    seats: tuple[int, ...]  # seat of p1, p2, ...
    profile: Profile
    starting: tuple[int, ...]


def _whole(x: int | Fraction | None, what: str, source: str) -> int:
    if x is None:
        raise BadInput(f"{source}: {what} is unknown; a table needs every stack")
    if isinstance(x, Fraction):
        if x.denominator != 1:
            raise BadInput(f"{source}: {what} {x} is not a whole number of chips")
        return int(x)
    return x


class _Clock:
    def __init__(self) -> None:
        self.t = 0.0

    def tick(self, dt: float = CARD_PITCH_S) -> float:
        self.t = round(self.t + dt, 6)
        return self.t


def plan_hand(hh: HandHistory, profile: Profile, seed: int = 0) -> PlannedHand:
    """Convert one PHH hand into table events (refusing what a table cannot do)."""
    src = hh.source
    if hh.variant != "NT":
        raise BadInput(f"{src}: variant {hh.variant!r} is not no-limit hold'em")
    n = hh.player_count
    if n < 2 or n > profile.max_seats:
        raise BadInput(f"{src}: {n} players do not fit a {profile.max_seats}-seat table")
    blinds = [_whole(b, "blind", src) for b in hh.blind_amounts()]
    antes = [_whole(a, "ante", src) for a in hh.ante_amounts()]
    stacks = [
        _whole(s, f"starting stack of p{i + 1}", src) for i, s in enumerate(hh.starting_stacks)
    ]
    btn_idx = hh.button_index()
    if n == 2:
        sb_idx, bb_idx = btn_idx, 0
    else:
        sb_idx, bb_idx = 0, 1
    if any(b for i, b in enumerate(blinds) if i not in (sb_idx, bb_idx)):
        raise BadInput(f"{src}: straddles are not dealt by this table")
    ante_vals = {a for a in antes if a}
    if len(ante_vals) > 1:
        raise BadInput(f"{src}: unequal antes are not supported")
    ante = ante_vals.pop() if ante_vals else 0
    if ante:
        style = AnteStyle.BIG_BLIND if sum(1 for a in antes if a) == 1 else AnteStyle.EACH
        profile = dataclasses.replace(profile, ante_style=style)
    seats = tuple(range(1, n + 1))
    clock = _Clock()
    ev: list[Event] = [SetLevel(clock.t, blinds[sb_idx], blinds[bb_idx], ante)]
    for i in range(n):
        ev.append(
            SeatPlayer(
                clock.t, seats[i], hh.players[i] if i < len(hh.players) else f"p{i + 1}", stacks[i]
            )
        )
    ev.append(SetButton(clock.t, seats[btn_idx]))

    # the deck: every known card of the hand, unknown hole cards and burns from the rest
    rng = random.Random(seed)
    used: set[Card] = set(hh.board())
    holes: list[list[Card | None]] = [[None, None] for _ in range(n)]
    for i in range(n):
        cards = hh.hole_cards(i)
        if cards is None:
            raise BadInput(f"{src}: p{i + 1} is never dealt hole cards")
        if len(cards) != 2:
            raise BadInput(f"{src}: p{i + 1} has {len(cards)} hole cards; hold'em deals two")
        holes[i] = list(cards)
        used.update(c for c in cards if c is not None)
    spare = [c for c in STANDARD_DECK if c not in used]
    rng.shuffle(spare)
    for i in range(n):
        holes[i] = [c if c is not None else spare.pop() for c in holes[i]]
    hole: list[list[Card]] = [[c for c in h if c is not None] for h in holes]

    # blinds and antes go into the zones before the first card
    committed = [0] * n
    street_bet = [0] * n
    left = list(stacks)
    for i in range(n):
        due = antes[i] + blinds[i]
        amt = min(due, left[i])
        if amt:
            left[i] -= amt
            committed[i] += amt
            street_bet[i] = min(blinds[i], amt)
            ev.append(ChipsIn(clock.t, seats[i], amt))
    current = max(street_bet)

    # hole cards: one at a time from the first seat left of the button, two rounds
    order = [(btn_idx + 1 + k) % n for k in range(n)]
    for rnd in range(2):
        for i in order:
            c = hole[i][rnd]
            ev.append(CardPlaced(clock.tick(), ZoneKind.HOLE, tag_of(c), c, seat=seats[i]))

    folded: set[int] = set()
    board_count = 0
    runout = False  # all in before the river: the hands were face up before the board
    river_aggressor = -1
    shows: dict[int, bool] = {}  # player -> shown (True) or mucked at the showdown
    for a in hh.actions:
        if isinstance(a, Show):
            shows[a.player] = bool(a.cards)
            continue
        if isinstance(a, DealHole):
            continue
        if isinstance(a, Fold):
            i = a.player
            folded.add(i)
            for c in hole[i]:
                ev.append(CardPlaced(clock.tick(), ZoneKind.MUCK, tag_of(c), c))
        elif isinstance(a, CheckCall):
            i = a.player
            amt = min(current - street_bet[i], left[i])
            if amt > 0:
                left[i] -= amt
                street_bet[i] += amt
                committed[i] += amt
                ev.append(ChipsIn(clock.tick(), seats[i], amt))
            elif board_count == 5 or (board_count == 0 and profile.bb_option_ack):
                # a river check: no burn follows to close the round, the dealer confirms it;
                # so does the big blind's pre-flop check where the profile waits for it (003)
                ev.append(ButtonPress(clock.tick(), ConsoleButton.ACK))
        elif isinstance(a, BetRaise):
            i = a.player
            to = _whole(a.to_amount, "bet", src)
            amt = min(to - street_bet[i], left[i])
            if amt <= 0:
                raise BadInput(f"{src}:{a.line}: p{i + 1} raises to {to}, not more than before")
            left[i] -= amt
            street_bet[i] += amt
            committed[i] += amt
            current = max(current, street_bet[i])
            ev.append(ChipsIn(clock.tick(), seats[i], amt))
            if board_count == 5:
                river_aggressor = i
        elif isinstance(a, DealBoard):
            in_hand = [j for j in range(n) if j not in folded]
            if len(in_hand) > 1 and sum(1 for j in in_hand if left[j] > 0) <= 1:
                runout = True
            ev.append(Sweep(clock.tick()))
            street_bet = [0] * n
            current = 0
            burn = spare.pop()
            ev.append(CardPlaced(clock.tick(), ZoneKind.BURN, tag_of(burn), burn))
            for c in a.cards:
                ev.append(CardPlaced(clock.tick(), ZoneKind.BOARD, tag_of(c), c))
            board_count += len(a.cards)
    ev.append(Sweep(clock.tick()))
    live = [i for i in range(n) if i not in folded]
    if len(live) > 1 and not runout and board_count == 5:
        ev.extend(_showdown(clock, seats, hole, live, btn_idx, river_aggressor, shows))
        if profile.kill_losers_before_award:  # 003 [L63]: the losing hands killed first
            tabled = [i for i in live if shows.get(i, True)]
            for i in _losers(tabled, hole, list(hh.board()), committed):
                for c in hole[i]:
                    ev.append(CardPlaced(clock.tick(), ZoneKind.MUCK, tag_of(c), c))
    return PlannedHand(tuple(ev), seats, profile, tuple(stacks))


def _losers(
    tabled: list[int], hole: list[list[Card]], board: list[Card], committed: list[int]
) -> list[int]:
    """The tabled players who win no pot (the dealer reads the tabled hands)."""
    values = {i: score(hole[i] + board) for i in tabled}
    contrib = dict(enumerate(committed))
    winners: set[int] = set()
    for pot in build_pots(contrib, set(tabled)):
        top = max(values[i] for i in pot.eligible)
        winners |= {i for i in pot.eligible if values[i] == top}
    return [i for i in tabled if i not in winners]


def _showdown(
    clock: _Clock,
    seats: tuple[int, ...],
    hole: list[list[Card]],
    live: list[int],
    btn_idx: int,
    river_aggressor: int,
    shows: dict[int, bool],
) -> list[Event]:
    """The showdown as the file plays it, in the order the table prompts (002 [L47]: the
    river's last aggressor, else the first live seat left of the button, then clockwise):
    the dealer's ACK for a hand the file shows (or does not mention), its cards to the muck
    for a hand the file mucks."""
    n = len(seats)
    first = river_aggressor
    if first not in live:
        first = next(i for i in ((btn_idx + 1 + k) % n for k in range(n)) if i in live)
    out: list[Event] = []
    for i in ((first + k) % n for k in range(n)):
        if i not in live:
            continue
        if shows.get(i, True):
            out.append(ButtonPress(clock.tick(), ConsoleButton.ACK))
        else:
            for c in hole[i]:
                out.append(CardPlaced(clock.tick(), ZoneKind.MUCK, tag_of(c), c))
    return out


def clear_table(events: tuple[Event, ...], t: float) -> Iterator[Event]:
    """Events that gather every card left on the table after a hand."""
    where: dict[str, tuple[ZoneKind, int]] = {}
    for e in events:
        if isinstance(e, CardPlaced):
            where[e.tag] = (e.zone, e.seat)
        elif isinstance(e, CardRemoved):
            where.pop(e.tag, None)
    for tag, (zone, seat) in sorted(where.items()):
        if zone is not ZoneKind.MUCK:
            t = round(t + 0.05, 6)
            yield CardRemoved(t, zone, tag, seat if zone is ZoneKind.HOLE else 0)
