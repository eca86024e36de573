"""Timestamped events that enter the rules core.

Every event carries ``t``: seconds on the daemon's monotonic clock (hwsim and replays pass
their own). Events with the same ``t`` happened in the same scan cycle, so their order is
unknown (a four-card flop whose cards were read at once). Physical events come from the
hardware drivers; table-management events come from the venue (MQTT commands) or the console.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from controller.rules.cards import Card
from controller.rules.profile import Profile


class ZoneKind(Enum):
    HOLE = "hole"  # a seat's hole-card spot (needs ``seat``)
    BOARD = "board"
    BURN = "burn"
    MUCK = "muck"


class ConsoleButton(Enum):
    EXPOSED = "exposed"
    BOXED = "boxed"
    MISDEAL = "misdeal"
    FLOOR = "floor"
    CLOCK = "clock"
    ACK = "ack"
    DECLARE = "declare"  # a shift key: with a second press it records a Declaration (gpio)


class Declaration(Enum):
    """What the dealer heard a player say (issue 14), recorded with the console's DECLARE
    button (docs/hardware-gpio-pcsc.md) or the scenario verb ``declare N WORD``."""

    RAISE = "raise"
    CALL = "call"
    CHECK = "check"
    FOLD = "fold"
    ALL_IN = "all_in"
    PLAY_BOARD = "play_board"
    NOT_A_CHECK = "not_a_check"  # the dealer's correction: the check last inferred was not one


# ---------------------------------------------------------------- physical: cards


@dataclass(frozen=True, slots=True)
class CardPlaced:
    """A tag is first read on a zone. ``card`` is None for a tag in no registered deck."""

    t: float
    zone: ZoneKind
    tag: str
    card: Card | None
    seat: int = 0  # for HOLE
    deck: str = ""  # the registered deck the tag belongs to, if any


@dataclass(frozen=True, slots=True)
class CardRemoved:
    """A tag is no longer read on a zone (after debounce)."""

    t: float
    zone: ZoneKind
    tag: str
    seat: int = 0


# ---------------------------------------------------------------- physical: chips


@dataclass(frozen=True, slots=True)
class ChipsIn:
    """Chips appear in (or are added to) a seat's betting zone.

    ``amount`` is the value added when chips carry tags; None with presence-only sensors.
    ``chips`` lists the denominations of the chips added, when known (oversized-chip rules).
    """

    t: float
    seat: int
    amount: int | None = None
    chips: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class ChipsOut:
    """Chips leave a seat's betting zone without a sweep (taken back)."""

    t: float
    seat: int
    amount: int | None = None


@dataclass(frozen=True, slots=True)
class Sweep:
    """The dealer sweeps the bets into the pot (or pushes the pot at the end of a hand)."""

    t: float


# ---------------------------------------------------------------- console and badges


@dataclass(frozen=True, slots=True)
class ButtonPress:
    t: float
    button: ConsoleButton
    long: bool = False


@dataclass(frozen=True, slots=True)
class Declare:
    """A verbal declaration for ``seat`` (0: the seat in turn), or the dealer's NOT_A_CHECK."""

    t: float
    declaration: Declaration
    seat: int = 0


@dataclass(frozen=True, slots=True)
class BadgeTap:
    """A staff badge read at the PC/SC reader. ``supervisor`` authorises rulings."""

    t: float
    badge: str
    supervisor: bool = False


@dataclass(frozen=True, slots=True)
class Tick:
    """Time passes with nothing sensed (drives the clock countdown)."""

    t: float


# ---------------------------------------------------------------- table management


@dataclass(frozen=True, slots=True)
class SeatPlayer:
    """A player sits down (or a seated player's stack or name is updated). ``name`` is the
    display name the venue gave (empty: the player id); the core keeps it with the seat."""

    t: float
    seat: int
    player: str
    stack: int
    present: bool = True
    name: str = ""


@dataclass(frozen=True, slots=True)
class UnseatPlayer:
    t: float
    seat: int


@dataclass(frozen=True, slots=True)
class MovePlayer:
    """The player of ``from_seat`` moves to the empty ``to_seat`` between hands, with his
    name, stack and status (one event: refused, nothing moved)."""

    t: float
    from_seat: int
    to_seat: int


@dataclass(frozen=True, slots=True)
class SetPresence:
    t: float
    seat: int
    present: bool


@dataclass(frozen=True, slots=True)
class SetLevel:
    """A new blind level: applies from the next hand (product default G11)."""

    t: float
    small_blind: int
    big_blind: int
    ante: int = 0
    level: int = 0  # the venue's level number (0: not numbered)


@dataclass(frozen=True, slots=True)
class SetProfile:
    """The venue's ``set_profile``: judge by ``profile`` from the next hand (at once
    between hands); refused if a seat beyond its ``max_seats`` is occupied
    (profile_switch.py)."""

    t: float
    profile: Profile


@dataclass(frozen=True, slots=True)
class HoldDeal:
    """Hand-for-hand (the venue's ``hold_deal``): this table completed the round's hand; it
    deals no next hand until :class:`ReleaseDeal` (handforhand.py)."""

    t: float
    round: int


@dataclass(frozen=True, slots=True)
class ReleaseDeal:
    """Hand-for-hand (the venue's ``release_deal``): every table completed the round."""

    t: float


@dataclass(frozen=True, slots=True)
class SetButton:
    t: float
    seat: int


@dataclass(frozen=True, slots=True)
class StartButtonDraw:
    """Enter draw mode: one card is dealt to each seat, the profile's draw rule picks the button."""

    t: float


@dataclass(frozen=True, slots=True)
class SetDealer:
    """A dealer logged in (badge) or out (empty id); goes into hand records."""

    t: float
    dealer: str


@dataclass(frozen=True, slots=True)
class Interrupted:
    """The table controller restarted in the middle of a hand whose profile rules such a
    hand a misdeal (``interrupted_hand = "misdeal"``): stacks as before the hand, the blinds
    stay posted, every card is gathered and the same hand number is dealt again (G1)."""

    t: float


Event = (
    CardPlaced
    | CardRemoved
    | ChipsIn
    | ChipsOut
    | Sweep
    | ButtonPress
    | Declare
    | BadgeTap
    | Tick
    | SeatPlayer
    | MovePlayer
    | UnseatPlayer
    | SetPresence
    | SetLevel
    | SetProfile
    | HoldDeal
    | ReleaseDeal
    | SetButton
    | StartButtonDraw
    | SetDealer
    | Interrupted
)
