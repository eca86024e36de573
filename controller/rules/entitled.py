"""Who is dealt in, when the dealer gets it wrong, under a profile that leaves it to the
floor (``entitlement_error = "floor"``; issue 13).

004 says who is dealt a hand: absent players are dealt in and their blinds put in (TG 3.
[L91], TG 9. [L103]); new players at once unless they sit in the small blind or button
seat, where they wait for the button to pass (TG 23. [L131]). Its misdeal rules (AR
Misdeals 1.-5. [L41-L49]) name neither error, so the core calls the floor rather than
misdeal on its own (floor.py): the hand is held, and the supervisor's badge then MISDEAL
(a misdeal) or ACK (play on) decides. Playing on means:

- a card to a new player who waits: he plays the hand dealt to him (he is dealt in, for
  this hand only; he posts nothing, and his seat still waits for the button to pass
  before it is due a blind);
- an entitled seat dealt out (found when the betting begins, G13): that seat has no hand;
  its blinds stay in the pot.

Under the other profiles both are misdeals (000 MISDEALS bullets 9-10 [L116-117], 002
Misdeals d)-e)), in dealing.py.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from controller.rules import floor, player
from controller.rules.decisions import AlertCode
from controller.rules.hand import Player
from controller.rules.profile import EntitlementError
from controller.rules.seating import SeatStatus

if TYPE_CHECKING:
    from controller.rules.engine import TableCore

CLAUSE: Final = "004 TG 3./9. [L91, L103], TG 23. [L131]; AR Misdeals [L41-L49] (no remedy named)"


def floor_rules(core: TableCore) -> bool:
    return core.profile.entitlement_error is EntitlementError.FLOOR


def card_to_waiting_seat(core: TableCore, seat: int, tag: str) -> bool:
    """A hole card, during the deal, to ``seat``'s new player who waits for the button.
    Under the floor: called, and the player is to be dealt in as the dealer did (returns
    True; the caller deals him in, ``dealing.deal_in``, and deals the card to him).
    Otherwise False (the caller rules the misdeal)."""
    h = core.hand
    st = core.seats.get(seat)
    if h is None or st is None or st.status is not SeatStatus.WAITING or not floor_rules(core):
        return False
    floor.call(
        core,
        floor.WAITING_DEALT,
        AlertCode.CARD_TO_EMPTY_SEAT,
        CLAUSE,
        f"a card went to seat {seat}, a new player waiting for the button to pass",
        seat,
        tag,
    )
    return True


def dealt_out(core: TableCore, p: Player) -> bool:
    """Betting began and ``p``'s seat has no card. Under the floor: called, and the seat's
    hand is dead until the ruling (play on: it stays dead, its blinds in the pot; a misdeal
    restores everything). Returns True if the floor took it."""
    if not floor_rules(core):
        return False
    player.dead(p)
    floor.call(
        core,
        floor.DEALT_OUT,
        AlertCode.SEAT_DEALT_OUT,
        CLAUSE,
        f"seat {p.seat} (a player entitled to a hand) was dealt out",
        p.seat,
        "",
    )
    return True
