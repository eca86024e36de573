"""Frozen snapshots of the table, for the daemon, the venue and tests."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from controller.rules import showdown
from controller.rules.cards import Card, known_cards
from controller.rules.events import ZoneKind
from controller.rules.phases import Phase, Street

if TYPE_CHECKING:
    from controller.rules.engine import TableCore


@dataclass(frozen=True, slots=True)
class SeatState:
    seat: int
    player: str
    stack: int  # chips behind (during a hand: after what is in the betting zone)
    present: bool
    status: str
    in_hand: bool = False
    folded: bool = False
    all_in: bool = False
    bet: int = 0  # chips in the betting zone this street
    committed: int = 0  # chips put in this hand
    hole: tuple[Card, ...] = ()  # the seat's hole cards: never published while the hand is live
    name: str = ""  # the player's display name (the core's Seat.name)

    @property
    def card_count(self) -> int:
        return len(self.hole)


@dataclass(frozen=True, slots=True)
class TableState:
    table: str
    profile: str
    phase: Phase
    hand_no: int
    deal_no: int
    street: Street | None
    button: int
    small_blind_seat: int
    big_blind_seat: int
    small_blind: int
    big_blind: int
    ante: int
    to_act: int
    current_bet: int
    pot: int
    board: tuple[Card, ...]
    seats: tuple[SeatState, ...]
    tags: tuple[tuple[str, str, int], ...]  # (tag, zone, seat) of every card on the table
    show_next: int = 0  # at the showdown, the seat prompted to table or muck its hand
    # at the showdown, every hand tabled, the losing hands the dealer kills before the award
    # (003 [L63], kill_losers_before_award)
    kill_next: tuple[int, ...] = ()
    # hand-for-hand: the round the table is held for until the venue's release (0: not held)
    deal_hold: int = 0
    # every tag held as a hole card of the hand (each player's hole and extra cards, folded
    # ones too, and any card on a hole spot) with the card the deck registry gave it (None:
    # unknown): what the daemon's hole-card guard keeps out of live data; never published
    hole_tags: tuple[tuple[str, Card | None], ...] = ()

    def seat(self, n: int) -> SeatState | None:
        return next((s for s in self.seats if s.seat == n), None)

    @property
    def chips(self) -> int:
        """Every chip at the table: stacks behind plus what was put in this hand."""
        return sum(s.stack + s.committed for s in self.seats)


def snapshot_of(core: TableCore) -> TableState:
    h = core.hand
    pos = core.positions
    seats = []
    for n, seat in sorted(core.seats.items()):
        p = h.players.get(n) if h is not None else None
        live_hand = p is not None and core.phase is not Phase.COMPLETE
        hole = tuple(known_cards(core.card_of, p.hole)) if p else ()
        seats.append(
            SeatState(
                seat=n,
                player=seat.player,
                stack=p.stack if live_hand and p is not None else seat.stack,
                present=seat.present,
                status=seat.status.value,
                in_hand=p is not None and p.live,
                folded=p is not None and p.folded,
                all_in=p is not None and p.all_in,
                bet=p.street_bet if live_hand and p is not None else 0,
                committed=p.total if live_hand and p is not None else 0,
                hole=hole,
                name=seat.name,
            )
        )
    board = tuple(known_cards(core.card_of, h.board)) if h else ()
    held = {t for t, (z, _) in core.where.items() if z is ZoneKind.HOLE}
    for p in h.players.values() if h is not None else ():
        held.update(p.hole)
        held.update(p.cards)
    hp = h.pos if h is not None else pos
    show_next = 0
    kill_next: tuple[int, ...] = ()
    if h is not None and core.phase is Phase.SHOWDOWN:
        for s in h.show_order:
            if s not in h.shows:
                show_next = s
                break
        kill_next = tuple(showdown.live_losers(core, h))
    return TableState(
        table=core.table,
        profile=core.profile.name,
        phase=core.phase,
        hand_no=core.hand_no,
        deal_no=core.deal_no,
        street=h.street if h is not None else None,
        button=hp.button if hp else 0,
        small_blind_seat=hp.sb if hp else 0,
        big_blind_seat=hp.bb if hp else 0,
        small_blind=h.small_blind if h else core.level.small_blind,
        big_blind=h.big_blind if h else core.level.big_blind,
        ante=h.ante if h else core.level.ante,
        to_act=h.pointer if h is not None and core.phase is Phase.BETTING else 0,
        current_bet=h.current_bet if h is not None else 0,
        pot=sum(p.total for p in h.players.values())
        if h is not None and core.phase is not Phase.COMPLETE
        else 0,
        board=board,
        seats=tuple(seats),
        tags=tuple(sorted((t, z.value, s) for t, (z, s) in core.where.items())),
        show_next=show_next,
        kill_next=kill_next,
        deal_hold=core.deal_hold,
        hole_tags=tuple(sorted((t, core.card_of.get(t)) for t in held)),
    )
