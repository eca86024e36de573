"""What the core decides: alerts, instructions and completed-hand records.

Alert codes are stable strings (the venue's dashboards key on them). Each alert carries the
rulebook clause it enforces, the remedy in words a dealer follows, and the seat.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from controller.rules.cards import Card

# the alert vocabulary lives in the catalogue; re-exported for the existing imports
from controller.rules.catalogue import SEVERITY_NAMES, AlertCode, Severity

__all__ = [
    "SEVERITY_NAMES",
    "ActionRecord",
    "Alert",
    "AlertCode",
    "Decision",
    "HandComplete",
    "HandRecord",
    "Instruction",
    "PotRecord",
    "SeatRecord",
    "Severity",
    "ShowRecord",
]


# The decisions and records below are read-only values. They are written with an explicit
# ``__init__`` and ``Final`` attributes instead of ``@dataclass(frozen=True)``: mypy --strict
# refuses any assignment to them (at run time neither build refuses one: mypyc 1.20 gives
# ``Final`` attributes a setter), the compiled core (mypyc, docs/performance.md) builds one
# in about 60 ns, where a
# frozen dataclass's generated ``__init__`` (``object.__setattr__`` per field, interpreted)
# took 1-2 µs in either build, for several objects an event. ``@dataclass(init=False,
# unsafe_hash=True)`` still provides equality, hashing, ``repr`` and ``dataclasses.fields``.


@dataclass(init=False, unsafe_hash=True, slots=True)
class Alert:
    code: Final[AlertCode]
    severity: Final[Severity]
    clause: Final[str]  # rulebook file and section, e.g. "000 SECTION 3 MISDEALS 1. bullet 8"
    remedy: Final[str]  # what the dealer does, in words
    seat: Final[int]
    card: Final[Card | None]
    t: Final[float]

    def __init__(
        self,
        code: AlertCode,
        severity: Severity,
        clause: str,
        remedy: str,
        seat: int = 0,
        card: Card | None = None,
        t: float = 0.0,
    ) -> None:
        self.code = code
        self.severity = severity
        self.clause = clause
        self.remedy = remedy
        self.seat = seat
        self.card = card
        self.t = t


@dataclass(init=False, unsafe_hash=True, slots=True)
class Instruction:
    """Guidance that is not an error: "burn X", "seat 3 shows first", "seat 5 to act"."""

    text: Final[str]
    seat: Final[int]
    card: Final[Card | None]
    t: Final[float]

    def __init__(self, text: str, seat: int = 0, card: Card | None = None, t: float = 0.0) -> None:
        self.text = text
        self.seat = seat
        self.card = card
        self.t = t


@dataclass(init=False, unsafe_hash=True, slots=True)
class ActionRecord:
    street: Final[int]  # 0 pre-flop .. 3 river
    seat: Final[int]
    kind: Final[str]  # post_sb, post_bb, post_ante, check, call, bet, raise, fold, all_in...
    amount: Final[int]  # chips put in by this action
    to: Final[int]  # the seat's total on this street after the action
    t: Final[float]
    all_in: Final[bool]

    def __init__(
        self,
        street: int,
        seat: int,
        kind: str,
        amount: int,
        to: int,
        t: float,
        all_in: bool = False,
    ) -> None:
        self.street = street
        self.seat = seat
        self.kind = kind
        self.amount = amount
        self.to = to
        self.t = t
        self.all_in = all_in


@dataclass(init=False, unsafe_hash=True, slots=True)
class SeatRecord:
    seat: Final[int]
    player: Final[str]
    start_stack: Final[int]
    end_stack: Final[int]
    hole: Final[tuple[Card, ...]]
    won: Final[int]
    name: Final[str]  # the player's display name at the hand's end (the core's Seat.name)

    def __init__(
        self,
        seat: int,
        player: str,
        start_stack: int,
        end_stack: int,
        hole: tuple[Card, ...],
        won: int = 0,
        name: str = "",
    ) -> None:
        self.seat = seat
        self.player = player
        self.start_stack = start_stack
        self.end_stack = end_stack
        self.hole = hole
        self.won = won
        self.name = name or player


@dataclass(init=False, unsafe_hash=True, slots=True)
class PotRecord:
    amount: Final[int]
    eligible: Final[tuple[int, ...]]
    winners: Final[tuple[int, ...]]
    shares: Final[tuple[tuple[int, int], ...]]  # (seat, chips won)
    hand_name: Final[str]

    def __init__(
        self,
        amount: int,
        eligible: tuple[int, ...],
        winners: tuple[int, ...],
        shares: tuple[tuple[int, int], ...],
        hand_name: str = "",
    ) -> None:
        self.amount = amount
        self.eligible = eligible
        self.winners = winners
        self.shares = shares
        self.hand_name = hand_name


@dataclass(init=False, unsafe_hash=True, slots=True)
class ShowRecord:
    """One hand at the showdown, in the order shown: tabled (``shown``) or mucked."""

    seat: Final[int]
    cards: Final[tuple[Card, ...]]  # the cards tabled (empty for a hand mucked unseen)
    shown: Final[bool]
    street: Final[int]  # the last betting round before the show (all-in: before the run-out)

    def __init__(self, seat: int, cards: tuple[Card, ...], shown: bool, street: int) -> None:
        self.seat = seat
        self.cards = cards
        self.shown = shown
        self.street = street


@dataclass(init=False, unsafe_hash=True, slots=True)
class HandRecord:
    table: Final[str]
    hand_no: Final[int]
    deal_no: Final[int]  # re-deals after a misdeal keep the hand number, with a new deal number
    profile: Final[str]
    dealer: Final[str]
    started_t: Final[float]
    ended_t: Final[float]
    button: Final[int]
    small_blind_seat: Final[int]
    big_blind_seat: Final[int]
    small_blind: Final[int]
    big_blind: Final[int]
    ante: Final[int]
    seats: Final[tuple[SeatRecord, ...]]
    board: Final[tuple[Card, ...]]
    burns: Final[tuple[Card, ...]]
    actions: Final[tuple[ActionRecord, ...]]
    pots: Final[tuple[PotRecord, ...]]
    alerts: Final[tuple[Alert, ...]]
    odd_chip: Final[bool]  # an odd chip was awarded by the profile's rule
    voided: Final[bool]
    showdown: Final[tuple[ShowRecord, ...]]  # the hands shown or mucked, in show order
    returned: Final[tuple[tuple[int, int], ...]]  # (seat, chips): uncalled bets given back

    def __init__(
        self,
        table: str,
        hand_no: int,
        deal_no: int,
        profile: str,
        dealer: str,
        started_t: float,
        ended_t: float,
        button: int,
        small_blind_seat: int,
        big_blind_seat: int,
        small_blind: int,
        big_blind: int,
        ante: int,
        seats: tuple[SeatRecord, ...],
        board: tuple[Card, ...],
        burns: tuple[Card, ...],
        actions: tuple[ActionRecord, ...],
        pots: tuple[PotRecord, ...],
        alerts: tuple[Alert, ...],
        odd_chip: bool = False,
        voided: bool = False,
        showdown: tuple[ShowRecord, ...] = (),
        returned: tuple[tuple[int, int], ...] = (),
    ) -> None:
        self.table = table
        self.hand_no = hand_no
        self.deal_no = deal_no
        self.profile = profile
        self.dealer = dealer
        self.started_t = started_t
        self.ended_t = ended_t
        self.button = button
        self.small_blind_seat = small_blind_seat
        self.big_blind_seat = big_blind_seat
        self.small_blind = small_blind
        self.big_blind = big_blind
        self.ante = ante
        self.seats = seats
        self.board = board
        self.burns = burns
        self.actions = actions
        self.pots = pots
        self.alerts = alerts
        self.odd_chip = odd_chip
        self.voided = voided
        self.showdown = showdown
        self.returned = returned


@dataclass(init=False, unsafe_hash=True, slots=True)
class HandComplete:
    record: Final[HandRecord]

    def __init__(self, record: HandRecord) -> None:
        self.record = record


# ---------------------------------------------------------------------------- facts
# What happened at the table, as the core saw it: a consumer (the daemon's live feed) can
# publish these instead of comparing the core's hand before and after each event.


@dataclass(init=False, unsafe_hash=True, slots=True)
class HandStarted:
    """A hand (or a re-deal of it, a new ``deal_no``) started: positions and the seats dealt
    in with their stacks before the forced bets."""

    hand_no: Final[int]
    deal_no: Final[int]
    button: Final[int]
    small_blind_seat: Final[int]
    big_blind_seat: Final[int]
    seats: Final[tuple[tuple[int, int], ...]]  # (seat, stack), in seat order
    t: Final[float]

    def __init__(
        self,
        hand_no: int,
        deal_no: int,
        button: int,
        small_blind_seat: int,
        big_blind_seat: int,
        seats: tuple[tuple[int, int], ...],
        t: float,
    ) -> None:
        self.hand_no = hand_no
        self.deal_no = deal_no
        self.button = button
        self.small_blind_seat = small_blind_seat
        self.big_blind_seat = big_blind_seat
        self.seats = seats
        self.t = t


@dataclass(init=False, unsafe_hash=True, slots=True)
class ActionTaken:
    """An action entered the hand's record (a post, check, call, bet, raise, fold, a
    declaration): the same :class:`ActionRecord` the hand record will carry."""

    action: Final[ActionRecord]

    def __init__(self, action: ActionRecord) -> None:
        self.action = action


@dataclass(init=False, unsafe_hash=True, slots=True)
class ActionsStruck:
    """The last ``count`` actions were struck from the hand's record: the dealer's "not a
    check" withdrew a check the table had inferred and what followed it, or a folded hand
    was retrieved (its fold). ``street``: the hand's street then (0 pre-flop .. 3 river)."""

    count: Final[int]
    street: Final[int]
    t: Final[float]

    def __init__(self, count: int, street: int, t: float) -> None:
        self.count = count
        self.street = street
        self.t = t


@dataclass(init=False, unsafe_hash=True, slots=True)
class StreetDealt:
    """A street's board is out (1 flop, 2 turn, 3 river): the whole board so far."""

    street: Final[int]
    board: Final[tuple[Card, ...]]
    t: Final[float]

    def __init__(self, street: int, board: tuple[Card, ...], t: float) -> None:
        self.street = street
        self.board = board
        self.t = t


@dataclass(init=False, unsafe_hash=True, slots=True)
class PotAwarded:
    """A pot of the finished hand, with its winners and shares (main pot first)."""

    pot: Final[PotRecord]
    t: Final[float]

    def __init__(self, pot: PotRecord, t: float) -> None:
        self.pot = pot
        self.t = t


@dataclass(init=False, unsafe_hash=True, slots=True)
class SeatEliminated:
    """A seat left with no chips by the hand just finished (it leaves the table)."""

    seat: Final[int]
    player: Final[str]
    t: Final[float]

    def __init__(self, seat: int, player: str, t: float) -> None:
        self.seat = seat
        self.player = player
        self.t = t


@dataclass(init=False, unsafe_hash=True, slots=True)
class ProfileChanged:
    """The table judges by another profile (the venue's ``set_profile``), from hand
    ``from_hand`` on: at once between hands, else once the hand in play is over
    (``profile_switch.py``)."""

    profile: Final[str]
    previous: Final[str]
    from_hand: Final[int]
    t: Final[float]

    def __init__(self, profile: str, previous: str, from_hand: int, t: float) -> None:
        self.profile = profile
        self.previous = previous
        self.from_hand = from_hand
        self.t = t


Fact = (
    HandStarted
    | ActionTaken
    | ActionsStruck
    | StreetDealt
    | PotAwarded
    | SeatEliminated
    | ProfileChanged
)
Decision = Alert | Instruction | HandComplete | Fact
