"""The catalogue of alerts: every alert code the table raises, with what it means.

One entry per code, the rules core's and the daemon's own (``SYSTEM``) alike: the
severities it is raised at, its category (whose irregularity it is), the rulebook clauses
the code cites, and a one-line meaning for the floor. Everything that lists alert codes
reads them here: the core and the daemon (:class:`AlertCode`), the MQTT schema's enum of
codes (``controller/link/schemas/alert.json``, checked by a test), the console's dealer
quality (``controller/floor/quality.py``: the ``DEALER`` category), the simulator's
injectable errors (``hwsim/inject.py``), the scenario language and the generated tables of
docs/mqtt.md and docs/floor.md (``scripts/gen_rules_doc.py``).

A value module: it imports nothing of the rules package, so every layer may read it.
Codes are stable strings (the venue's dashboards key on them); on the wire a code is upper
case (:func:`wire`).

Adding a code: a member of :class:`AlertCode`, its :data:`CATALOGUE` entry, the code that
raises it; then ``python scripts/gen_rules_doc.py`` and the schema's enum (the test
``tests/test_alert_catalogue.py`` names what is out of date).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum, IntEnum
from typing import Final


class Severity(IntEnum):
    INFO = 0  # logged, shown; no interruption
    WARNING = 1  # the dealer must correct something; play may continue
    CRITICAL = 2  # stop play: misdeal, void hand, floor needed


# the contract's word for each severity (docs/mqtt.md), indexed by the IntEnum
SEVERITY_NAMES: Final = ("info", "warning", "critical")


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
    BLINDS_OUT_OF_POSITION = "blinds_out_of_position"
    BLIND_OVERPOSTED = "blind_overposted"
    DEALT_WHILE_HELD = "dealt_while_held"  # hand-for-hand (issue 25, handforhand.py)
    HOLD_AFTER_DEAL = "hold_after_deal"  # a hold reached a table already dealing (handforhand.py)
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
    # the floor as a ruling (issue 13, floor.py)
    FLOOR_PENDING = "floor_pending"
    FLOOR_DECISION = "floor_decision"
    # wagers as players make them (issue 14, wagers.py)
    STRING_BET = "string_bet"
    CALL_NOT_RAISE = "call_not_raise"
    CHIPS_TAKEN_BACK = "chips_taken_back"
    NONSTANDARD_FOLD = "nonstandard_fold"
    DECLARATION_BINDS = "declaration_binds"
    # the showdown
    WINNING_HAND_MUCKED = "winning_hand_mucked"
    LOSING_HAND_LIVE = "losing_hand_live"
    HAND_NOT_TABLED = "hand_not_tabled"
    # rejected sensor input (impossible events)
    REJECTED = "rejected"
    # the daemon's own (controller/daemon), never raised by the rules core
    FOREIGN_CHIP = "foreign_chip"
    HAND_INTERRUPTED = "hand_interrupted"
    HAND_RECORD_LOST = "hand_record_lost"
    LIVE_DATA_WITHHELD = "live_data_withheld"
    STORAGE_FAULT = "storage_fault"


class Category(Enum):
    """Whose irregularity an alert reports."""

    DEALER = "dealer"  # the dealer's own handling: the deal, the board, the blinds, the push
    PLAYER = "player"  # a player's action, wager, blind or show; the clock on a player
    EQUIPMENT = "equipment"  # the deck or the chips: enrolled or mixed wrong, not dealt wrong
    FLOOR = "floor"  # the floor's rulings, and the consequences of an error (misdeal, void)
    SYSTEM = "system"  # the controller itself: sensors refused, storage, restarts


@dataclass(frozen=True, slots=True)
class Entry:
    code: AlertCode
    severities: tuple[Severity, ...]  # every severity it is raised at, lowest first
    category: Category
    clauses: tuple[str, ...]  # the clauses it cites (rulebook file and place), or the source
    text: str  # what it means, in one line for the floor

    @property
    def wire(self) -> str:
        return wire(self.code)


def wire(code: AlertCode) -> str:
    """The code as the venue sees it (``alert.json``'s ``code``): upper case."""
    return code.value.upper()


_I, _W, _C = Severity.INFO, Severity.WARNING, Severity.CRITICAL
_D, _P, _E, _F, _S = (
    Category.DEALER,
    Category.PLAYER,
    Category.EQUIPMENT,
    Category.FLOOR,
    Category.SYSTEM,
)
A = AlertCode

# code: (severities, category, clauses, text)
_ENTRIES: Final[dict[AlertCode, tuple[tuple[Severity, ...], Category, tuple[str, ...], str]]] = {
    A.MISDEAL: (
        (_C,), _F,
        ("dealer's console: misdeal", "supervisor ruling (badge)"),
        "Misdeal: every card back, reshuffle and deal again; the button and blinds stay",
    ),
    A.MISDEAL_REFUSED: (
        (_W,), _D,
        ("000 SECTION 3 MISDEALS 1. [L118]", "002 Substantial Action [L109]", "TDA 36",
         "003 Dealer errors count a)", "004: no cutoff stated (open until the flop)"),
        "A misdeal condition after the profile's window closed: the hand plays on",
    ),
    A.WRONG_FIRST_SEAT: (
        (_I, _W, _C), _D,
        ("000 SECTION 3 MISDEALS 1. bullet 8 [L115]", "002 Misdeals c)", "TDA 35-A",
         "003 Opening Deal [L85], [L1]", "004 AR Misdeals [L41-L49] (silent: a note)"),
        "The first card of the deal went to the wrong seat",
    ),
    A.CARD_TO_EMPTY_SEAT: (
        (_W, _C), _D,
        ("000 SECTION 3 MISDEALS 1. bullet 9 [L116]", "002 Misdeals d)",
         "004 TG 3./9. [L91, L103], TG 23. [L131]", "AR Misdeals [L41-L49] (no remedy named)"),
        "A card was dealt to a seat with no hand (empty, or a new player waiting)",
    ),
    A.SEAT_DEALT_OUT: (
        (_W, _C), _D,
        ("000 SECTION 3 MISDEALS 1. bullet 10 [L117]", "002 Misdeals e)",
         "004 TG 3./9. [L91, L103], TG 23. [L131]", "AR Misdeals [L41-L49] (no remedy named)"),
        "A seat entitled to a hand was dealt out",
    ),
    A.OUT_OF_SEQUENCE: (
        (_I, _W, _C), _D,
        ("000 SECTION 3 MISDEALS 1. bullet 6 [L113]", "000 SECTION 1 item 5 [L34]",
         "003 Opening deal (order described, no remedy)", "004 silent"),
        "A card was dealt out of the seats' order (or two cards to one seat in the draw)",
    ),
    A.EXTRA_HOLE_CARD: (
        (_W, _C), _D,
        ("000 SECTION 3 MISDEALS 1. bullets 4-5 [L111-112]",
         "000 SECTION 3 IRREGULARITIES 2 [L134]",
         "003 Dealer errors count a)", "004 AR-5a", "004 AR-5b"),
        "A seat was dealt more hole cards than the game gives",
    ),
    A.MISSING_HOLE_CARD: (
        (_C,), _D,
        ("000 SECTION 3 MISDEALS 1. bullet 5 [L112]", "003 Dealer errors count a)", "G13"),
        "A seat was dealt fewer hole cards than the game gives",
    ),
    A.EXPOSED_CARD: (
        (_W, _C), _D,
        ("000 SECTION 3 MISDEALS 1. bullet 1 [L108]", "000 SECTION 3 MISDEALS 1. bullet 2 [L109]",
         "000 MISDEALS bullet 6", "000 SECTION 3 IRREGULARITIES 9. [L141]", "002 Misdeals a)",
         "002 b)", "003 Dealer errors: exposed card [L191]", "004 AR-1a", "004 AR-1b",
         "004 AR-1c", "004 AR-14 [L69]", "G3", "G9"),
        "The dealer exposed a hole card",
    ),
    A.BOXED_CARD: (
        (_W, _C), _E,
        ("000 SECTION 3 MISDEALS 1. bullet 3 [L110]", "002 Misdeals b)", "G2: a single boxed card"),
        "A card was face up in the deck",
    ),
    A.JOKER: (
        (_W, _C), _E,
        ("003 Dealer errors: joker a) [L189]", "TDA 35-A: non-standard card", "button draw"),
        "A joker was dealt",
    ),
    A.FOREIGN_CARD: (
        (_W, _C), _E,
        ("000 SECTION 3 IRREGULARITIES 4 [L136]", "003 Dealer Errors (joker only) [L189]",
         "[L1] the floor decides", "button draw"),
        "A card of no registered deck was dealt",
    ),
    A.DUPLICATE_CARD: (
        (_C,), _E,
        ("000 SECTION 3 IRREGULARITIES 5 [L137]",),
        "Two cards of one identity are in play: the hand is void",
    ),
    A.HAND_VOID: (
        (_C,), _F,
        ("000 SECTION 3 IRREGULARITIES 4 [L136]", "000 SECTION 3 IRREGULARITIES 5 [L137]"),
        "The hand is void: stop play, every bet is returned",
    ),
    A.DEAD_HAND: (
        (_W,), _F,
        ("000 SECTION 3 DEAD HANDS 1. bullet 3 [L125]", "000 SECTION 3 DEAD HANDS 3. [L127]",
         "003 Dealer errors count b)", "003 Dealer Errors: joker b) [L189]"),
        "A seat's hand is dead (wrong number of cards, fouled, or thrown into another)",
    ),
    A.BLINDS_NOT_POSTED: (
        (_W,), _D,
        ("000 SECTION 2 THE BLINDS [L62]", "000 SECTION 2 THE BLINDS [L63-64]",
         "000 SECTION 1 item 6 (2nd run) [L42]", "004 TG-3"),
        "A blind or ante due is missing or short",
    ),
    A.BLINDS_OUT_OF_POSITION: (
        (_W,), _P,
        ("000 SECTION 1 item 14 (2nd run) [L50]", "000 RULES FOR POSTING BLINDS 2 [L223]",
         "000 RULES FOR POSTING BLINDS 4 [L225]", "004 TG 24 [L133]"),
        "Chips were posted in a zone that owes no blind, or heads-up blinds swapped",
    ),
    A.BLIND_OVERPOSTED: (
        (_W,), _P,
        ("000 SECTION 2 THE BLINDS [L64]: the big blind is determined by the clock",),
        "More than the blind due was posted; the excess is taken back",
    ),
    A.DEALT_WHILE_HELD: (
        (_W,), _D,
        ("hand-for-hand (docs/tournament.md): no table deals its next hand until every table"
         " has completed its hand", "000 SECTION 1 2. [L53]", "004 TG 27 [L139]"),
        "A hand was dealt at a table held hand-for-hand, before the floor's release",
    ),
    A.HOLD_AFTER_DEAL: (
        (_W,), _F,
        ("hand-for-hand (docs/tournament.md): no table deals its next hand until every table"
         " has completed its hand", "000 SECTION 1 2. [L53]", "004 TG 27 [L139]"),
        "The hand-for-hand hold reached a table already dealing: the floor places its bust-outs",
    ),
    A.MISSING_BURN: (
        (_W,), _D,
        ("000 SECTION 3 IRREGULARITIES 12 [L144]", "TDA 39-B", "004 AR-16",
         "003 Dealer errors: burn [L195]"),
        "A street was dealt without a burn",
    ),
    A.DOUBLE_BURN: (
        (_W,), _D,
        ("000 SECTION 3 IRREGULARITIES 12 [L144]", "TDA 39-B", "004 AR-16",
         "003 Dealer errors: burn [L195]"),
        "Two cards were burned before one street",
    ),
    A.WRONG_BURN: (
        (_W,), _D,
        ("000 SECTION 3 IRREGULARITIES 2, 12b [L134, L144]",
         "000 SECTION 3 IRREGULARITIES 12 [L144]",
         "000 SECTION 3 IRREGULARITIES 11, 13 [L143, L145]", "000 GLOSSARY BURNCARD [L241]",
         "002 Four-card flop a) [L113]", "002 Flop/Turn/River exposed early", "003 Dealer errors",
         "003 Dealer errors: burn [L195]", "003 Flop [L95]", "004 AR-3, AR-4", "004 AR-5a, AR-16",
         "004 AR-16", "TDA 39-A", "TDA 39-B", "TDA RP-5"),
        "The burn is the wrong card, on the wrong spot, or due on a street that has none",
    ),
    A.FOUR_CARD_FLOP: (
        (_W, _C), _D,
        ("000 SECTION 3 IRREGULARITIES 10 [L142]", "002 Four-card flop a)",
         "002 Four-card flop b) [L113]", "003 Dealer errors flop", "004 AR-2", "TDA 39-A"),
        "Four cards were dealt on the flop",
    ),
    A.TOO_MANY_BOARD_CARDS: (
        (_W,), _D,
        ("000 SECTION 2 THE RIVER [L93]", "000 SECTION 3 IRREGULARITIES 13 [L145]",
         "003 River [L109]", "004 HE 3.-9. [L17-29]"),
        "More board cards than the street allows",
    ),
    A.PREMATURE_FLOP: (
        (_W,), _D,
        ("000 SECTION 3 IRREGULARITIES 11 [L143]", "002 Flop exposed early",
         "003 Dealer errors flop early", "004 AR-3"),
        "The flop was dealt before the pre-flop betting was complete",
    ),
    A.PREMATURE_TURN: (
        (_W,), _D,
        ("000 SECTION 3 IRREGULARITIES 13 [L145]", "000 SECTION 3 IRREGULARITIES 13b [L145]",
         "002 Turn/River exposed early", "003 Dealer errors turn/river early", "004 AR-4a",
         "004 AR-4b"),
        "The turn was dealt before the flop betting was complete",
    ),
    A.PREMATURE_RIVER: (
        (_W,), _D,
        ("000 SECTION 3 IRREGULARITIES 13 [L145]", "000 SECTION 3 IRREGULARITIES 13b [L145]",
         "002 Turn/River exposed early", "003 Dealer errors turn/river early", "004 AR-4a",
         "004 AR-4b"),
        "The river was dealt before the turn betting was complete",
    ),
    A.RABBIT_HUNT: (
        (_W,), _D,
        ("002 Rabbit Hunting", "003 Dealer: no rabbit hunting"),
        "A board card was dealt after the hand ended",
    ),
    A.SWEEP_BEFORE_BURN: (
        (_I,), _D,
        ("003 Side pots: sweep the bets before the burn",),
        "The burn came before the bets were swept into the pot",
    ),
    A.ACTION_PENDING: (
        (_W,), _P,
        ("000 SECTION 2 PRE-FLOP BETTING [L72-78]",
         "000 SECTION 2 THE FLOP [L80]: burn after the round",
         "000 SECTION 2 THE FLOP/TURN/RIVER"),
        "The betting round is not complete (or already closed) for what was done",
    ),
    A.ACTION_OUT_OF_TURN: (
        (_W,), _P,
        ("000 SECTION 2 PRE-FLOP BETTING [L72]",
         "000 SECTION 3 BETTING AND RAISING 7 [L156]-[L158]",
         "002 Action Out of Turn [L129]", "002 [L129]: an out-of-turn fold is binding",
         "003 Betting [L61]: action out of turn may be binding",
         "003 [L61]: verbal declarations in turn are binding", "004 AR-13 [L67]", "TDA 53"),
        "A seat acted before its turn",
    ),
    A.WAGER_SHORT: (
        (_W,), _P,
        ("000 SECTION 3 betting 11", "002 Accepted action"),
        "A call is short of the bet",
    ),
    A.RAISE_SHORT: (
        (_W,), _P,
        ("000 SECTION 3 betting 2-3", "002 Raises [L137]", "TDA 43-B"),
        "A raise is less than the minimum raise",
    ),
    A.RAISE_NOT_ALLOWED: (
        (_W,), _P,
        ("000 SECTION 3 betting 4", "000 SECTION 3 BETTING AND RAISING 7 [L157]-[L158]",
         "002 Raises [L137]"),
        "A raise where the betting is not reopened (a short all-in, or out of turn)",
    ),
    A.RAISE_LIMIT: (
        (_W,), _P,
        ("004 AR-9: three-raise limit",),
        "A raise past the profile's cap on raises",
    ),
    A.OVERSIZED_CHIP: (
        (_I,), _P,
        ("000 SECTION 3 betting 9", "002 Oversized Chip Betting [L141]"),
        "A single oversized chip without a raise declared is a call",
    ),
    A.MULTIPLE_CHIPS: (
        (_I,), _P,
        ("002 Multiple chips [L145]", "TDA 47"),
        "Several chips without a raise declared are a call",
    ),
    A.ALL_IN_FACE_UP: (
        (_I,), _P,
        ("002 All-in: cards face up [AllinFaceUp-1]", "TDA 16"),
        "All-in with the betting complete: every hand is turned face up",
    ),
    A.CLOCK_STARTED: (
        (_I,), _P,
        ("002 Calling for a Clock [L81]", "G8"),
        "A clock was put on the seat to act",
    ),
    A.CLOCK_COUNTDOWN: (
        (_W,), _P,
        ("002 Calling for a Clock [L81]",),
        "The seat on the clock is in its final countdown",
    ),
    A.CLOCK_EXPIRED: (
        (_W,), _P,
        ("002 Calling for a Clock [L81]",),
        "The clock ran out: the seat's hand is dead",
    ),
    A.FLOOR_CALLED: (
        (_I, _W), _F,
        ("000 SECTION 5 DECISION MAKING 5 [L213]", "000 SECTION 3 DEAD HANDS 2. [L126]",
         "000 SECTION 3 IRREGULARITIES 3. [L135]", "002 Disputed Pots [L67]",
         "002 Accidentally Killed / Fouled Hands [L169]", "all profiles: floor call"),
        "The floor is called to the table: by the dealer, or by the table for a floor's ruling",
    ),
    A.FLOOR_PENDING: (
        (_W,), _F,
        ("floor ruling pending",),
        "The hand is held for a floor ruling; chips put in meanwhile are taken",
    ),
    A.FLOOR_DECISION: (
        (_I,), _F,
        ("floor ruling (supervisor's badge)", "000 SECTION 3 DEAD HANDS 2. [L126]",
         "000 SECTION 3 IRREGULARITIES 3. [L135]", "002 Accidentally Killed / Fouled Hands [L169]"),
        "The floor ruled (supervisor's badge): what the ruling is",
    ),
    A.STRING_BET: (
        (_W,), _P,
        ("000 BETTING AND RAISING 8 [L159]", "002 [L133] [L153]", "003 Betting [L59]"),
        "A second motion without a declaration: a string bet, the first motion stands",
    ),
    A.CALL_NOT_RAISE: (
        (_W,), _P,
        ("000 SECTION 3 BETTING AND RAISING 11 [L162]",),
        "A call brought up may not become a raise",
    ),
    A.CHIPS_TAKEN_BACK: (
        (_W,), _P,
        ("002 Verbal Declarations / Acting in Turn [L125]",),
        "Chips put in the pot in turn were taken back",
    ),
    A.NONSTANDARD_FOLD: (
        (_W,), _P,
        ("002 Non-Standard Folds [L161]",),
        "A fold facing no bet: binding, the floor may penalise",
    ),
    A.DECLARATION_BINDS: (
        (_I, _W), _P,
        ("000 BETTING AND RAISING 5 [L153]", "000 [L159]", "002 [L125]",
         "002 Methods of Raising [L133]", "003 [L61]", "003 [L129]"),
        "A verbal declaration binds: the wager is made to match it",
    ),
    A.WINNING_HAND_MUCKED: (
        (_C,), _D,
        ("002 [L59]", "003 [L63]", "000 [L166]-[L169]"),
        "The tabled winning hand is going to the muck before the push",
    ),
    A.LOSING_HAND_LIVE: (
        (_W,), _D,
        ("003 [L63]",),
        "A pot pushed while a losing hand is still live",
    ),
    A.HAND_NOT_TABLED: (
        (_I, _W), _P,
        ("000 [L166], [L167]", "002 [L51]", "004 AR-6, HE-10"),
        "The best hand read was mucked without being tabled: no claim to the pot",
    ),
    A.REJECTED: (
        (_W,), _S,
        ("sensor input",),
        "A sensor event the table cannot accept now (an impossible card or chip move)",
    ),
    A.FOREIGN_CHIP: (
        (_W,), _E,
        ("000 SECTION 1 item 9 (2nd run) [L45]",),
        "A chip of no registered set is in a betting zone; it is not counted",
    ),
    A.HAND_INTERRUPTED: (
        (_C,), _S,
        ("railguard restart",),
        "A restart cut a hand; the profile ruled misdeal or resume",
    ),
    A.HAND_RECORD_LOST: (
        (_C,), _S,
        ("railguard storage",),
        "A hand dealt while the disk was full was lost in a restart; record it by hand",
    ),
    A.LIVE_DATA_WITHHELD: (
        (_C,), _S,
        ("railguard hole-card guard",),
        "The hole-card guard withheld a live payload; the hand record is kept",
    ),
    A.STORAGE_FAULT: (
        (_C,), _S,
        ("railguard storage",),
        "Storage on the table computer is failing; records are kept in memory meanwhile",
    ),
}  # fmt: skip

CATALOGUE: Final[dict[AlertCode, Entry]] = {
    code: Entry(code, sev, cat, clauses, text)
    for code, (sev, cat, clauses, text) in _ENTRIES.items()
}
BY_WIRE: Final[dict[str, Entry]] = {e.wire: e for e in CATALOGUE.values()}


def entry(code: AlertCode) -> Entry:
    return CATALOGUE[code]


def codes_of(category: Category) -> frozenset[str]:
    """The wire codes of one category (e.g. the dealer's errors that quality counts)."""
    return frozenset(e.wire for e in CATALOGUE.values() if e.category is category)
