"""The table's phases and a hand's streets (public: snapshots, the daemon and tools read them).

Which events each phase accepts, what handles them and the phases they may lead to are in
one table, :data:`controller.rules.transitions.TRANSITIONS`.
"""

from __future__ import annotations

from enum import Enum, IntEnum


class Phase(Enum):
    IDLE = "idle"  # between hands: blinds may be posted, waiting for the first hole card
    DRAW = "draw"  # a button draw is being dealt
    DEALING = "dealing"  # hole cards are being dealt
    BETTING = "betting"  # a betting round is open
    BOARD = "board"  # the round is closed: sweep, burn and board cards expected
    SHOWDOWN = "showdown"  # the betting is over: the hands are tabled or mucked, then the award
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
        return (0, 3, 4, 5)[self]  # an IntEnum indexes directly (``.value`` is Python code)


# ---------------------------------------------------------------------------- sub-states
# A hand being played has, beside its phase, sub-states of its own: each an Enum, its
# changes listed in the transition table (transitions.SUBSTATES) and made only through
# TableCore.shift, which refuses a change the table does not list for the event handled.


class FloorHold(Enum):
    """The floor's hold on the hand (floor.py, retrieve.py)."""

    NONE = "none"  # no hold, no badge
    HELD = "held"  # held for the floor (Hand.floor_hold: which hold): the badge first
    RULING = "ruling"  # held, the supervisor's badge tapped (Hand.floor_badge): the ruling next
    OOT_RULING = "oot-ruling"  # no hold; the badge tapped for an action out of turn (003 [L61])


class ClockState(Enum):
    """The clock on a player (clock.py; Hand.clock_seat, Hand.clock_deadline)."""

    OFF = "off"
    RUNNING = "running"  # started from the console: the seat has until the deadline
    COUNTDOWN = "countdown"  # the deadline passed: the countdown, then the hand is dead


class MisdealCall(Enum):
    """The dealer's MISDEAL in this hand (misdeal.py)."""

    NONE = "none"
    # pressed: a misdeal if the misdeal window was open (the phase is then misdeal), else
    # refused and disputed: a supervisor's badge may authorise it (board.supervisor)
    CALLED = "called"


class MisdealWindowState(Enum):
    """Whether the dealer's MISDEAL (or a misdeal's cause) is still a misdeal (misdeal.py;
    the profile's ``misdeal_window`` says when the window closes). Derived, not stored: open
    while a hand is dealt or bet and the window's counts allow it (misdeal.window)."""

    CLOSED = "closed"  # no hand in play, or the action went too far: a misdeal is refused
    OPEN = "open"


class BurnDebt(IntEnum):
    """Extra burns the coming street needs (board.py; 000 irreg-12b: a missed burn stood):
    the street burns ``1 + debt`` cards."""

    NONE = 0
    OWED = 1


class BigBlindOption(Enum):
    """The big blind's pre-flop option under ``bb_option_ack`` (bb_option.py). Derived, not
    stored: open while nobody raised and the big blind has not acted (bb_option.state)."""

    CLOSED = "closed"
    OPEN = "open"


# every sub-state (the stored ones; the misdeal window and the big blind's option, derived)
SubState = FloorHold | ClockState | MisdealCall | MisdealWindowState | BurnDebt | BigBlindOption
