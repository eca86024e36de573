"""What the core decides: alerts, instructions and completed-hand records.

Alert codes are stable strings (the venue's dashboards key on them). Each alert carries the
rulebook clause it enforces, the remedy in words a dealer follows, and the seat.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum, IntEnum

from controller.rules.cards import Card


class Severity(IntEnum):
    INFO = 0  # logged, shown; no interruption
    WARNING = 1  # the dealer must correct something; play may continue
    CRITICAL = 2  # stop play: misdeal, void hand, floor needed


class AlertCode(Enum):
    # the deal
    MISDEAL = "misdeal"
    MISDEAL_REFUSED = "misdeal_refused"
    WRONG_FIRST_SEAT = "wrong_first_seat"
    CARD_TO_EMPTY_SEAT = "card_to_empty_seat"
    SEAT_DEALT_OUT = "seat_dealt_out"
    OUT_OF_SEQUENCE = "out_of_sequence"
    EXTRA_HOLE_CARD = "extra_hole_card"
    MISSING_HOLE_CARD = "missing_hole_card"
    EXPOSED_CARD = "exposed_card"
    BOXED_CARD = "boxed_card"
    JOKER = "joker"
    FOREIGN_CARD = "foreign_card"
    DUPLICATE_CARD = "duplicate_card"
    HAND_VOID = "hand_void"
    DEAD_HAND = "dead_hand"
    BLINDS_NOT_POSTED = "blinds_not_posted"
    # the board
    MISSING_BURN = "missing_burn"
    DOUBLE_BURN = "double_burn"
    WRONG_BURN = "wrong_burn"
    FOUR_CARD_FLOP = "four_card_flop"
    TOO_MANY_BOARD_CARDS = "too_many_board_cards"
    PREMATURE_FLOP = "premature_flop"
    PREMATURE_TURN = "premature_turn"
    PREMATURE_RIVER = "premature_river"
    RABBIT_HUNT = "rabbit_hunt"
    SWEEP_BEFORE_BURN = "sweep_before_burn"
    # action and money
    ACTION_PENDING = "action_pending"
    ACTION_OUT_OF_TURN = "action_out_of_turn"
    WAGER_SHORT = "wager_short"
    RAISE_SHORT = "raise_short"
    RAISE_NOT_ALLOWED = "raise_not_allowed"
    RAISE_LIMIT = "raise_limit"
    OVERSIZED_CHIP = "oversized_chip"
    MULTIPLE_CHIPS = "multiple_chips"
    ALL_IN_FACE_UP = "all_in_face_up"
    CLOCK_STARTED = "clock_started"
    CLOCK_COUNTDOWN = "clock_countdown"
    CLOCK_EXPIRED = "clock_expired"
    FLOOR_CALLED = "floor_called"
    # rejected sensor input (impossible events)
    REJECTED = "rejected"


@dataclass(frozen=True, slots=True)
class Alert:
    code: AlertCode
    severity: Severity
    clause: str  # rulebook file and section, e.g. "000 SECTION 3 MISDEALS 1. bullet 8"
    remedy: str  # what the dealer does, in words
    seat: int = 0
    card: Card | None = None
    t: float = 0.0


@dataclass(frozen=True, slots=True)
class Instruction:
    """Guidance that is not an error: "burn X", "seat 3 shows first", "seat 5 to act"."""

    text: str
    seat: int = 0
    card: Card | None = None
    t: float = 0.0


@dataclass(frozen=True, slots=True)
class ActionRecord:
    street: int  # 0 pre-flop .. 3 river
    seat: int
    kind: str  # post_sb, post_bb, post_ante, check, call, bet, raise, fold, all_in...
    amount: int  # chips put in by this action
    to: int  # the seat's total on this street after the action
    t: float
    all_in: bool = False


@dataclass(frozen=True, slots=True)
class SeatRecord:
    seat: int
    player: str
    start_stack: int
    end_stack: int
    hole: tuple[Card, ...]
    won: int = 0


@dataclass(frozen=True, slots=True)
class PotRecord:
    amount: int
    eligible: tuple[int, ...]
    winners: tuple[int, ...]
    shares: tuple[tuple[int, int], ...]  # (seat, chips won)
    hand_name: str = ""


@dataclass(frozen=True, slots=True)
class HandRecord:
    table: str
    hand_no: int
    deal_no: int  # re-deals after a misdeal keep the hand number, with a new deal number
    profile: str
    dealer: str
    started_t: float
    ended_t: float
    button: int
    small_blind_seat: int
    big_blind_seat: int
    small_blind: int
    big_blind: int
    ante: int
    seats: tuple[SeatRecord, ...]
    board: tuple[Card, ...]
    burns: tuple[Card, ...]
    actions: tuple[ActionRecord, ...]
    pots: tuple[PotRecord, ...]
    alerts: tuple[Alert, ...]
    odd_chip: bool = False  # an odd chip was awarded by the profile's rule
    voided: bool = False


@dataclass(frozen=True, slots=True)
class HandComplete:
    record: HandRecord


Decision = Alert | Instruction | HandComplete
