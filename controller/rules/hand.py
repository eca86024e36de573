"""The mutable working state of one hand inside the engine (never handed out: snapshots
copy it into frozen values)."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum, IntEnum

from controller.rules.decisions import ActionRecord, Alert
from controller.rules.seating import Positions


class Phase(Enum):
    IDLE = "idle"  # between hands: blinds may be posted, waiting for the first hole card
    DRAW = "draw"  # a button draw is being dealt
    DEALING = "dealing"  # hole cards are being dealt
    BETTING = "betting"  # a betting round is open
    BOARD = "board"  # the round is closed: sweep, burn and board cards expected
    COMPLETE = "complete"  # the hand is over; cards are being cleared
    MISDEAL = "misdeal"  # misdeal called: every dealt card must be cleared, then re-deal
    VOID = "void"  # foreign or duplicate card: bets returned, cards cleared, re-deal


class Street(IntEnum):
    PREFLOP = 0
    FLOP = 1
    TURN = 2
    RIVER = 3

    @property
    def board_size(self) -> int:
        return (0, 3, 4, 5)[self.value]


@dataclass(slots=True)
class Player:
    seat: int
    start_stack: int
    stack: int  # chips behind
    cards: list[str] = field(default_factory=list)  # tags at the seat, in read order
    folded: bool = False
    dead: bool = False
    all_in: bool = False
    street_bet: int = 0
    total: int = 0
    acted: bool = False
    can_raise: bool = True
    hole: list[str] = field(default_factory=list)  # the seat's two hole cards (tags)

    @property
    def live(self) -> bool:
        return not (self.folded or self.dead)

    @property
    def can_act(self) -> bool:
        return self.live and not self.all_in


@dataclass(slots=True)
class Hand:
    hand_no: int
    deal_no: int
    pos: Positions
    started_t: float
    small_blind: int
    big_blind: int
    ante: int
    players: dict[int, Player]
    deal_seq: list[int]
    deal_idx: int = 0
    dealt: list[tuple[str, int]] = field(default_factory=list)  # (tag, seat) in deal order
    street: Street = Street.PREFLOP
    current_bet: int = 0
    last_raise: int = 0
    raises: int = 0
    pointer: int = 0
    last_aggressor: int = 0
    actions: list[ActionRecord] = field(default_factory=list)
    alerts: list[Alert] = field(default_factory=list)
    board: list[str] = field(default_factory=list)
    burns: list[str] = field(default_factory=list)
    street_burns: int = 0  # burns made for the coming street
    need_burn: bool = True  # the coming street is dealt with a burn
    required_burn: str = ""  # a tag that must be the next burn (extra card / exposed card)
    set_aside: set[str] = field(default_factory=set)  # premature board cards taken out
    four_flop: list[str] = field(default_factory=list)  # the cards of a four-card flop
    floor_draw: bool = False  # waiting for the floor to draw the burn of a four-card flop
    window_actions: int = 0  # pre-flop actions after the blinds (misdeal window)
    window_chip_actions: int = 0
    window_seats: set[int] = field(default_factory=set)
    exposed: list[str] = field(default_factory=list)
    boxed: list[str] = field(default_factory=list)
    replace: dict[int, str] = field(default_factory=dict)  # seat -> tag to replace after deal
    jokers: set[str] = field(default_factory=set)
    extra_cards: int = 0
    runout: bool = False  # all-in: no more betting, board dealt out
    clock_seat: int = 0
    clock_deadline: float = 0.0
    clock_warned: bool = False
    # seat -> (amount, bet seen); amount None with presence-only chip sensors
    oot: dict[int, tuple[int | None, int]] = field(default_factory=dict)
    unconfirmed: dict[int, int] = field(default_factory=dict)  # blinds posted for an absent seat
    zone_chips: dict[int, int] = field(default_factory=dict)  # chips seen in zones (no sweep yet)
    misdeal_called_t: float = -1.0
    odd_chip: bool = False
    unswept: bool = False  # chips were bet this street and not yet swept
    burn_credit: int = 0  # burns already made for the street after the coming one
    no_burn: set[int] = field(default_factory=set)  # streets dealt without a burn (remedies)
    premature: set[int] = field(default_factory=set)  # streets with a premature card alert
    pending_board: str = ""  # a board card dealt without a burn, awaiting correction
    redeal_flop: bool = False  # a four-card flop goes back into the stub
    last_burn: str = ""
    read_t: dict[str, float] = field(default_factory=dict)  # when each board tag was read
    seen: dict[object, str] = field(default_factory=dict)  # card -> the tag that carried it
    posted_before: dict[int, int] = field(default_factory=dict)  # zone chips at the first card

    def live_seats(self) -> frozenset[int]:
        return frozenset(s for s, p in self.players.items() if p.live)
