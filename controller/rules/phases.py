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
