"""The big blind's option before the flop (K16) where the profile wants it acted on
(``bb_option_ack``, club-003).

003 Opening Deal [L89]: "If no one has raised by the time the play comes back around to the
large blind, the large blind has the option to "check" his own BLIND wager or raise."
003 Dealer Errors [L199]: "If cards are flopped by the dealer before all the betting is
completed, the entire flop is taken back and reshuffled." A check leaves no trace on the
table (L2), so elsewhere the dealer moving on (sweep, burn, flop) is taken as every
remaining seat's check. Under ``bb_option_ack`` the big blind's option stays open until the
dealer ACKs his check or he puts chips in: until then the pre-flop round is provably pending
(``board.py``: a burn is ``ACTION_PENDING``, a flop ``PREMATURE_FLOP``; ``betting.sweep``
does not close the round).

The option is a sub-state of the hand (``phases.BigBlindOption``, its rows in the transition
table, ``transitions.SUBSTATES``), derived from the round rather than stored: :func:`state`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from controller.rules import rounds
from controller.rules.hand import Street
from controller.rules.phases import BigBlindOption, Phase

if TYPE_CHECKING:
    from controller.rules.engine import TableCore


def open_seat(core: TableCore) -> int:
    """The big blind whose pre-flop option is still open (nobody raised and he has not
    acted) under ``bb_option_ack``, or 0."""
    h = core.hand
    if h is None or not core.profile.bb_option_ack or core.phase is not Phase.BETTING:
        return 0
    if h.street is not Street.PREFLOP:
        return 0
    p = h.players.get(h.pos.bb)
    if p is None or p.acted or not rounds.needs_action(h, p) or p.street_bet < h.current_bet:
        return 0
    return p.seat


def state(core: TableCore) -> BigBlindOption:
    """The big blind's option as a sub-state: open while :func:`open_seat` names him."""
    return BigBlindOption.OPEN if open_seat(core) else BigBlindOption.CLOSED


def sweep_held(core: TableCore) -> bool:
    """The dealer sweeps the pre-flop bets while only the big blind's option is left: the
    chips go into the pot but the round stays open (no check is taken for him). True if so;
    otherwise ``betting.sweep`` judges the sweep."""
    h = core.hand
    if h is None or rounds.pending_bet(core) or not open_seat(core):
        return False
    rounds.swept(h)
    return True
