"""000 SECTION 3 BETTING AND RAISING 7 [L156]-[L158] (C13, issue 13) when the chips of an
action out of turn are taken back.

Under ``out_of_turn = "check-or-call"`` the rulebook limits the player, not his chips: "A
player who bets out of turn must then check if all other players check" [L157]; "A player
who raises out of turn can only call the current bet when it is their turn to act, unless
another player raises, then the player gets all options back" [L158]. So when the dealer
returns the chips (``ChipsOut``), the action out of turn is withdrawn (the turn does not skip
the seat) but the limit stays on the hand's :class:`~controller.rules.hand.Wager`
(``limited``): at its turn, if no bet or raise came in between, a bet is only a check and a
raise only a call (``RAISE_NOT_ALLOWED``, the excess is given back). Chips left in the zone
are judged by ``wagers.apply_pending`` as before. This module is below the round: its
rulings return the action to play (:class:`~controller.rules.rounds.Then`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from controller.rules.decisions import AlertCode, Severity
from controller.rules.events import ChipsIn
from controller.rules.hand import Hand, Player
from controller.rules.profile import OutOfTurnRule
from controller.rules.rounds import Then, drop_oot, owe, pend_oot

if TYPE_CHECKING:
    from controller.rules.engine import TableCore

LIMIT_CLAUSE: Final = "000 SECTION 3 BETTING AND RAISING 7 [L157]-[L158]"


def taken_back(core: TableCore, h: Hand, seat: int, amount: int | None) -> bool:
    """Chips leave the zone of a seat whose action out of turn is pending. Under
    check-or-call the action is withdrawn and its limit kept. True if it was such chips."""
    if core.profile.out_of_turn is not OutOfTurnRule.CHECK_OR_CALL or seat not in h.oot:
        return False
    pending, bet_seen = h.oot[seat]
    if amount is not None and pending is not None and amount < pending:
        pend_oot(h, seat, pending - amount, bet_seen)  # part of it came back
        return True
    drop_oot(h, seat)
    p = h.players[seat]
    kind = "check" if bet_seen <= p.street_bet else "call"
    h.wager.limited[seat] = (bet_seen, kind)
    core.instruct(
        f"Seat {seat}: the action out of turn is taken back; at its turn seat {seat} may "
        f"only {kind} unless a bet or raise comes first ({LIMIT_CLAUSE})",
        seat,
    )
    return True


def limited(core: TableCore, h: Hand, p: Player, e: ChipsIn) -> Then | None:
    """Chips in turn from a seat whose action out of turn was taken back: the action the
    limit leaves for the round to play, or None: the seat has all options."""
    bet_seen, kind = h.wager.limited.pop(p.seat)
    to_call = h.current_bet - p.street_bet
    if e.amount is None or bet_seen != h.current_bet or e.amount <= to_call:
        return None  # a bet or raise came in between, or the action is within the limit
    excess = e.amount - to_call
    owe(h, p.seat, excess)
    core.alert(
        AlertCode.RAISE_NOT_ALLOWED,
        Severity.WARNING,
        LIMIT_CLAUSE,
        f"Seat {p.seat} {'bet' if kind == 'check' else 'raised'} out of turn: at its turn it "
        f"may only {kind}; give {excess} back",
        p.seat,
    )
    if to_call == 0:
        return Then("ack")  # the check
    return Then("act", p.seat, to_call)
