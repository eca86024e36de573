"""A player's part of the hand (``hand.Player``), written here only
(tests/rules/test_state_owners.py), by the moves the concerns name: chips behind (``stack``),
in this street's bet (``street_bet``) and in the hand (``total``), all in; acted and may
raise in this round; folded, dead. The cards at the seat (``cards``, ``hole``) are the
deal's (``dealing.py``).

This module imports no concern, so every concern can call it without an import circle
(``docs/architecture.md``, layers: the state).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from controller.rules.hand import Player


# ---------------------------------------------------------------------------- chips


def put_in(p: Player, amount: int) -> None:
    """``amount`` chips from the stack into the seat's bet (an action, or chips held for
    one under way: a short wager, a declared raise in several motions, a fouled hand's)."""
    p.stack -= amount
    p.street_bet += amount
    p.total += amount


def acts(p: Player, amount: int, street_bet: int) -> None:
    """The seat acted with ``amount`` chips: its bet is ``street_bet`` now, all in if its
    stack is gone (``betting.act``)."""
    p.stack -= amount
    p.street_bet = street_bet
    p.total += amount
    p.acted = True
    if p.stack == 0:
        p.all_in = True


def bet_more(p: Player, amount: int) -> None:
    """More chips on the seat's own bet or raise (``wagers.extend``): all in or not by its
    stack."""
    p.stack -= amount
    p.street_bet += amount
    p.total += amount
    p.all_in = p.stack == 0


def posts(p: Player, amount: int, bet: bool) -> None:
    """A forced bet posted (``posting.take_forced``): a blind is in the street's bet
    (``bet``), an ante is not."""
    p.stack -= amount
    p.total += amount
    if bet:
        p.street_bet += amount
    if p.stack == 0:
        p.all_in = True


def given_back(p: Player, amount: int) -> None:
    """``amount`` of the seat's bet comes back to its stack (a floor ruling:
    ``retrieve.py``); it is not all in."""
    p.street_bet -= amount
    p.total -= amount
    p.stack += amount
    p.all_in = False


def paid(p: Player, chips: int) -> None:
    """Chips won, or an uncalled bet returned (``showdown.py``)."""
    p.stack += chips


def chips_are(p: Player, stack: int, street_bet: int, total: int) -> None:
    """The seat's chips as they were (a misdeal's return: ``misdeal.py``)."""
    p.stack = stack
    p.street_bet = street_bet
    p.total = total


def restore(
    p: Player,
    stack: int,
    street_bet: int,
    total: int,
    acted: bool,
    can_raise: bool,
    all_in: bool,
) -> None:
    """The seat as it was (``wagers.undo_checks``)."""
    p.stack, p.street_bet, p.total = stack, street_bet, total
    p.acted, p.can_raise, p.all_in = acted, can_raise, all_in


# ---------------------------------------------------------------------------- the round


def new_street(p: Player, acted: bool) -> None:
    """A street opens: no bet yet, the seat may raise; ``acted``: an all-in run-out, where
    nobody can bet."""
    p.street_bet = 0
    p.acted = acted
    p.can_raise = True


def acted(p: Player) -> None:
    """The seat acted (a check, a call)."""
    p.acted = True


def sensed(p: Player, street_bet: int) -> None:
    """The seat acted with chips sensed by presence only (L3): its bet is the bet."""
    p.acted = True
    p.street_bet = street_bet


def reopened(p: Player) -> None:
    """A full raise by another seat: the seat is to act again and may raise."""
    p.acted = False
    p.can_raise = True


def not_reopened(p: Player) -> None:
    """An all-in short of a full raise: the seat that acted may only call."""
    p.can_raise = False


# ---------------------------------------------------------------------------- the hand


def fold(p: Player) -> None:
    p.folded = True


def dead(p: Player) -> None:
    """The seat's hand is dead (a wrong number of cards, a fouled hand, thrown cards, a
    seat dealt out under the floor)."""
    p.dead = True


def retrieved(p: Player) -> None:
    """The folded hand is live again (``retrieve.py``), the seat to act."""
    p.folded = False
    p.acted = False
