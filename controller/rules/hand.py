"""The mutable working state of one hand inside the engine (never handed out: snapshots
copy it into frozen values)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

from controller.rules.decisions import ActionRecord, Alert

# Phase and Street lived here; they are public now: import them from controller.rules.phases
from controller.rules.phases import BurnDebt, ClockState, FloorHold, MisdealCall, Phase, Street
from controller.rules.seating import Positions

__all__ = ["Draw", "Hand", "Level", "Phase", "Player", "Street", "Wager"]

# each sub-state machine's first state, for Hand.__init__ (module constants: an Enum class's
# attribute is a Python-level lookup in 3.11)
_CLOCK_OFF: Final = ClockState.OFF
_NO_MISDEAL_CALL: Final = MisdealCall.NONE
_NO_BURN_DEBT: Final = BurnDebt.NONE
_NO_HOLD: Final = FloorHold.NONE
# the rarely written sets of a hand are frozensets, the empty one shared by every new hand
# (issue 23: a set allocated per hand and torn down empty cost more than the rare write's
# copy); their owner writes ``h.x = h.x | {item}``. So are the rarely written lists tuples
# (``exposed``, ``boxed``: the empty tuple is shared), written ``h.x = (*h.x, item)``
_NO_TAGS: Final[frozenset[str]] = frozenset()
_NO_SEATS: Final[frozenset[int]] = frozenset()

# Player and Hand have an explicit ``__init__`` (not the dataclass-generated one) so the
# compiled core builds them natively (see decisions.py).


@dataclass(init=False, slots=True)
class Player:
    seat: int
    start_stack: int
    stack: int  # chips behind
    cards: list[str]  # tags at the seat, in read order
    folded: bool
    dead: bool
    all_in: bool
    street_bet: int
    total: int
    acted: bool
    can_raise: bool
    hole: list[str]  # the seat's two hole cards (tags)

    @property
    def live(self) -> bool:
        return not (self.folded or self.dead)

    @property
    def can_act(self) -> bool:
        return self.live and not self.all_in

    def __init__(
        self,
        seat: int,
        start_stack: int,
        stack: int,
    ) -> None:
        self.seat = seat
        self.start_stack = start_stack
        self.stack = stack
        self.cards = []
        self.folded = False
        self.dead = False
        self.all_in = False
        self.street_bet = 0
        self.total = 0
        self.acted = False
        self.can_raise = True
        self.hole = []


class Wager:
    """How this street's chips are to be read (issue 14, ``wagers.py``): declarations,
    consecutive motions, chips owed back, a wrong opener, a floor ruling
    awaited, and what a "not a check" would undo. Exported as a tuple (``tabledata``)."""

    __slots__ = ("declared", "floor_seat", "held", "last_mover", "limited", "motions", "owed",
                 "undo", "wrong")  # fmt: skip

    def __init__(self) -> None:
        self.declared: dict[int, str] = {}  # seat -> declaration word (this street)
        self.last_mover = 0  # the seat of the last chip motion, 0 once anyone else acted
        self.motions = 0  # consecutive chip motions of last_mover
        self.owed: dict[int, int] = {}  # seat -> chips the dealer is to give back
        self.held: dict[int, int] = {}  # seat -> chips in its bet not yet in an action record
        self.wrong: tuple[int, int, int] = (0, 0, 0)  # (seat, amount, next seat): AR-13
        self.floor_seat = 0  # a seat whose action out of turn awaits the floor (ACK)
        self.undo: object = None  # wagers.Undo: inferred checks that NOT_A_CHECK may undo
        # seat -> (bet seen, "check" | "call"): 000 [L157]-[L158], an action out of turn
        # taken back still limits the seat at its turn (oot_limits.py)
        self.limited: dict[int, tuple[int, str]] = {}

    def export(self) -> tuple[object, ...]:
        return (tuple(self.declared.items()), self.last_mover, self.motions,
                tuple(self.owed.items()), self.wrong, self.floor_seat, self.undo,
                tuple(self.held.items()), tuple(self.limited.items()))  # fmt: skip

    @classmethod
    def restored(cls, data: tuple[Any, ...]) -> Wager:
        w = cls()
        declared, w.last_mover, w.motions, owed, w.wrong, w.floor_seat, w.undo, held = data[:8]
        w.declared, w.owed, w.held = dict(declared), dict(owed), dict(held)
        w.limited = dict(data[8]) if len(data) > 8 else {}
        return w

    def clear_street(self) -> None:
        self.declared.clear()
        self.last_mover = self.motions = self.floor_seat = 0
        self.wrong = (0, 0, 0)
        self.undo = None
        self.held.clear()
        self.limited.clear()


@dataclass(init=False, slots=True)
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
    deal_idx: int
    dealt: list[tuple[str, int]]  # (tag, seat) in deal order
    street: Street
    current_bet: int
    last_raise: int
    raises: int
    pointer: int
    last_aggressor: int
    actions: list[ActionRecord]
    alerts: list[Alert]
    board: list[str]
    burns: list[str]
    street_burns: int  # burns made for the coming street
    need_burn: bool  # the coming street is dealt with a burn
    required_burn: str  # a tag that must be the next burn (extra card / exposed card)
    set_aside: set[str]  # premature board cards taken out
    four_flop: list[str]  # the cards of a four-card flop
    floor_draw: bool  # waiting for the floor to draw the burn of a four-card flop
    window_actions: int  # pre-flop actions after the blinds (misdeal window)
    window_chip_actions: int
    window_seats: set[int]
    exposed: tuple[str, ...]  # rarely written: see _NO_TAGS
    boxed: tuple[str, ...]
    replace: dict[int, str]  # seat -> tag to replace after deal
    jokers: frozenset[str]  # rarely written: see _NO_TAGS
    extra_cards: int
    runout: bool  # all-in: no more betting, board dealt out
    clock_state: ClockState  # clock.py (transitions.SUBSTATES)
    clock_seat: int  # the seat on the clock (0: off)
    clock_deadline: float
    # seat -> (amount, bet seen); amount None with presence-only chip sensors
    oot: dict[int, tuple[int | None, int]]
    unconfirmed: dict[int, int]  # blinds posted for an absent seat
    misdeal_call: MisdealCall  # the dealer's MISDEAL (misdeal.py)
    odd_chip: bool
    unswept: bool  # chips were bet this street and not yet swept
    burn_credit: int  # burns already made for the street after the coming one
    no_burn: set[int]  # streets dealt without a burn (remedies)
    premature: set[int]  # streets with a premature card alert
    pending_board: str  # a board card dealt without a burn, awaiting correction
    redeal_flop: bool  # a four-card flop goes back into the stub
    last_burn: str
    read_t: dict[str, float]  # when each board tag was read
    seen_codes: list[str]  # card code (Card.code) -> the tag that carried it, "" if none yet
    seen: dict[int, str]  # the same for a code outside 0..63
    owner: dict[str, Player]  # hole-card tag -> the player holding it (dealing.hole_owner)
    wager: Wager  # declarations and motions (wagers.py)
    # the showdown (showdown.py): the live seats in show order; seat -> tabled (True) or
    # mucked (False), in the order the hands were resolved; a tabled winner's alert raised
    show_order: list[int]
    shows: dict[int, bool]
    show_alerted: frozenset[int]  # rarely written: see _NO_TAGS
    # the showdown's evaluations (showdown.hand_score): a seat's seven cards' codes (hole
    # cards first; the board's five alone), six bits each -> score: each evaluated once
    scores: dict[int, int]
    # burn errors followed to the end of the hand (board.py, issue 13)
    burn_debt: BurnDebt  # extra burns the coming street needs (000 irreg-12b: a missed burn stood)
    refill: bool  # 004 AR-16: a missed burn restored; the next board card takes its place
    floor_ok: bool  # 002 four-card flop b): the director's badge was tapped for the draw
    void_street: bool  # 003 [L195]: the street's board cards go back; none of them stands
    floor_state: FloorHold  # floor.py (transitions.SUBSTATES)
    floor_hold: str  # held (HELD, RULING): the kind of hold, else ""
    floor_badge: str  # the supervisor's badge tapped (RULING, OOT_RULING), else ""
    # chips the floor ruled given back mid-hand, seat -> chips (retrieve.py: 002's killed
    # hand, its uncalled bet): the record's uncalled bets returned, with showdown.award's
    given_back: dict[int, int]
    # G9 (designate.py): the press waiting for a designation (kind, tag, seat), and a card
    # laid on the burn antenna during the deal since the last hole card
    mark: tuple[str, str, int]
    loose_burn: str

    def __init__(
        self,
        hand_no: int,
        deal_no: int,
        pos: Positions,
        started_t: float,
        small_blind: int,
        big_blind: int,
        ante: int,
        players: dict[int, Player],
        deal_seq: list[int],
    ) -> None:
        self.hand_no = hand_no
        self.deal_no = deal_no
        self.pos = pos
        self.started_t = started_t
        self.small_blind = small_blind
        self.big_blind = big_blind
        self.ante = ante
        self.players = players
        self.deal_seq = deal_seq
        self.deal_idx = 0
        self.dealt = []
        self.street = Street.PREFLOP
        self.current_bet = 0
        self.last_raise = 0
        self.raises = 0
        self.pointer = 0
        self.last_aggressor = 0
        self.actions = []
        self.alerts = []
        self.board = []
        self.burns = []
        self.street_burns = 0
        self.need_burn = True
        self.required_burn = ""
        self.set_aside = set()
        self.four_flop = []
        self.floor_draw = False
        self.window_actions = 0
        self.window_chip_actions = 0
        self.window_seats = set()
        self.exposed = ()
        self.boxed = ()
        self.replace = {}
        self.jokers = _NO_TAGS
        self.extra_cards = 0
        self.runout = False
        self.clock_state = _CLOCK_OFF
        self.clock_seat = 0
        self.clock_deadline = 0.0
        self.oot = {}
        self.unconfirmed = {}
        self.misdeal_call = _NO_MISDEAL_CALL
        self.odd_chip = False
        self.unswept = False
        self.burn_credit = 0
        self.no_burn = set()
        self.premature = set()
        self.pending_board = ""
        self.redeal_flop = False
        self.last_burn = ""
        self.read_t = {}
        self.seen_codes = [""] * 64
        self.seen = {}
        self.owner = {}
        self.wager = Wager()
        self.show_order = []
        self.shows = {}
        self.show_alerted = _NO_SEATS
        self.scores = {}
        self.burn_debt = _NO_BURN_DEBT
        self.refill = self.floor_ok = self.void_street = False
        self.floor_state = _NO_HOLD
        self.floor_hold = self.floor_badge = ""
        self.given_back = {}
        self.mark = ("", "", 0)
        self.loose_burn = ""

    def live_seats(self) -> frozenset[int]:
        return frozenset(s for s, p in self.players.items() if p.live)


@dataclass(init=False, slots=True)
class Level:
    """A blind level; ``number`` is the venue's (``SetLevel.level``; 0: not numbered)."""

    small_blind: int
    big_blind: int
    ante: int
    number: int

    def __init__(self, small_blind: int, big_blind: int, ante: int = 0, number: int = 0) -> None:
        self.small_blind = small_blind
        self.big_blind = big_blind
        self.ante = ante
        self.number = number


class Draw:
    """A button draw being dealt (engine.py, draw.py)."""

    def __init__(self) -> None:
        self.cards: dict[int, list[str]] = {}
        self.order: list[tuple[int, str]] = []
