"""The betting round's state, read and written by every concern that acts on it: whose turn
it is (:func:`needs_action`, :func:`next_to_act`), the record of each action
(:func:`record`), the misdeal window's count (:func:`count_window`), chips the dealer owes
back or holds for an action under way (:func:`owe`, :func:`hold`), and :class:`Then`, the
action a ruling below the round (``wagers``, ``oot_limits``) asks the round to play next.

This module imports no concern: the concerns import it (``docs/architecture.md``, layers).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from controller.rules.decisions import ActionRecord, ActionTaken
from controller.rules.hand import Hand, Player, Street
from controller.rules.phases import Phase
from controller.rules.profile import BurnError
from controller.rules.seating import clockwise

if TYPE_CHECKING:
    from controller.rules.engine import TableCore

# Enum members on the per-event path, looked up once: ``Phase.X`` costs a Python-level
# ``EnumType.__getattr__`` hook per lookup in Python 3.11 (and a getattr in the compiled core)
_CORRECT_BEFORE_ACTION: Final = BurnError.CORRECT_BEFORE_ACTION
_BETTING: Final = Phase.BETTING
_PREFLOP: Final = Street.PREFLOP

# a street's number without int(Street): a call to the int type (``tuple[int, ...]``: a tuple
# object; ``Final = (0, 1, 2, 3)`` is a C struct in the compiled core, boxed at each index)
_STREET_NO: Final[tuple[int, ...]] = (0, 1, 2, 3)


@dataclass(init=False, unsafe_hash=True, slots=True)
class Then:
    """What a wager ruling leaves for the betting round to do (an effect: the ruling does
    not call the round, the round plays it): ``act`` plays ``amount`` chips as ``seat``'s
    action, ``presence`` a call sensed by presence only (L3), ``ack`` a check by the seat
    in turn, ``go_on`` re-evaluates the round (``betting.after_change``). Read-only, with
    an explicit ``__init__`` as the decisions (docs/architecture.md)."""

    kind: Final[str]
    seat: Final[int]
    amount: Final[int]

    def __init__(self, kind: str, seat: int = 0, amount: int = 0) -> None:
        self.kind = kind
        self.seat = seat
        self.amount = amount


GO_ON: Final = Then("go_on")


def record(core: TableCore, h: Hand, seat: int, kind: str, amount: int) -> None:
    p = h.players[seat]
    w = h.wager
    if seat != w.last_mover:
        w.last_mover = 0  # another seat acted: the next chips are a new motion
    if w.declared and (len(w.declared) > 1 or seat not in w.declared):
        word = w.declared.get(seat)  # a declaration binds its seat's turn only
        w.declared = {} if word is None else {seat: word}
    rec = ActionRecord(_STREET_NO[h.street], seat, kind, amount, p.street_bet, core.t, p.all_in)
    h.actions.append(rec)
    core.out.append(ActionTaken(rec))  # the fact (decisions.py)
    if amount > 0:
        h.unswept = True  # 003-SidePots-sweep: chips in a zone until the next sweep
    if h.pending_board and core.profile.burn_error is _CORRECT_BEFORE_ACTION:
        core.board_stands(h)  # 000 [L144]: the board's ruling (board.stands)


def order_from(h: Hand, seat: int, n: int) -> list[Player]:
    return [h.players[s] for s in clockwise(seat, n) if s in h.players]


def needs_action(h: Hand, p: Player) -> bool:
    # p.can_act, inlined: this is on the path of every action
    return not (p.folded or p.dead or p.all_in) and (not p.acted or p.street_bet < h.current_bet)


def street_no(h: Hand) -> int:
    return _STREET_NO[h.street]


def next_after(core: TableCore, h: Hand, after: int) -> int:
    return next_to_act(core, h, after)


def next_to_act(core: TableCore, h: Hand, after: int) -> int:
    players = h.players
    bet = h.current_bet
    for s in clockwise(after, core.max_seats):
        p = players.get(s)
        # needs_action, inlined (a call per seat asked, after every action)
        if (
            p is not None
            and not (p.folded or p.dead or p.all_in)
            and (not p.acted or p.street_bet < bet)
        ):
            return s
    return 0


def count_window(h: Hand, seat: int, chips: bool) -> None:
    if h.street is _PREFLOP:
        h.window_actions += 1
        h.window_chip_actions += int(chips)
        h.window_seats.add(seat)


def pending_bet(core: TableCore) -> int:
    """A seat that provably still has to act (it faces a bet), or 0."""
    h = core.hand
    assert h is not None
    if core.phase is not _BETTING:
        return 0
    for p in h.players.values():
        if needs_action(h, p) and p.street_bet < h.current_bet:
            return p.seat
    return 0


def owe(h: Hand, seat: int, amount: int) -> None:
    """The dealer is to give ``amount`` chips back to ``seat`` (change, a refused wager)."""
    if amount > 0:
        h.wager.owed[seat] = h.wager.owed.get(seat, 0) + amount


def hold(h: Hand, seat: int, amount: int) -> None:
    """Chips added to ``seat``'s bet before its action is complete (a short wager, a
    declared raise under way): the action's record will carry them."""
    h.wager.held[seat] = h.wager.held.get(seat, 0) + amount


# The round's state below (the bets and whose turn, the actions, the misdeal window, chips
# unswept, actions out of turn pending) is written here only
# (tests/rules/test_state_owners.py): the concerns call these.


def turn_to(h: Hand, seat: int) -> None:
    """``seat`` is to act (0: nobody)."""
    h.pointer = seat


def set_bets(h: Hand, current_bet: int, last_raise: int) -> None:
    """The bet to call and the size of the last full raise (a street opened, the blinds
    taken: ``posting.take_forced``, a completed raise, a retrieved hand's bet put back)."""
    h.current_bet = current_bet
    h.last_raise = last_raise


def new_street(h: Hand) -> None:
    """A street opens: no bet, the big blind the least raise, no raise yet, no action out
    of turn pending, the street's wager cleared (``Hand.wager``)."""
    h.current_bet = 0
    h.last_raise = h.big_blind
    h.raises = 0
    h.oot.clear()
    h.wager.clear_street()


def full_raise(h: Hand, raise_by: int) -> None:
    """A bet or raise of at least the last raise: it reopens the betting."""
    h.last_raise = raise_by
    h.raises += 1


def bet_to(h: Hand, seat: int, total: int) -> None:
    """``seat`` bet or raised to ``total``."""
    h.current_bet = total
    h.last_aggressor = seat


def restore_bets(h: Hand, bets: tuple[int, int, int, int, int]) -> None:
    """The bets and turn as they were (wagers.not_a_check's undo)."""
    h.current_bet, h.last_raise, h.raises, h.last_aggressor, h.pointer = bets


def swept(h: Hand) -> None:
    """The street's bets went into the pot (003-SidePots-sweep)."""
    h.unswept = False


def strike_last_action(h: Hand) -> None:
    """The last action is struck from the record (a fold retrieved: retrieve.py); nor does
    it count toward the misdeal window."""
    h.actions.pop()
    if h.window_actions > 0 and h.street is Street.PREFLOP:
        h.window_actions -= 1


def pend_oot(h: Hand, seat: int, amount: int | None, bet_seen: int) -> None:
    """An action out of turn awaits the seat's turn (wagers.py, oot_limits.py)."""
    h.oot[seat] = (amount, bet_seen)


def drop_oot(h: Hand, seat: int) -> tuple[int | None, int] | None:
    """The seat's pending action out of turn is gone (played, returned, its hand dead)."""
    return h.oot.pop(seat, None)


def restore_round(
    h: Hand,
    window: tuple[int, int, frozenset[int]],
    unswept: bool,
    oot: tuple[tuple[int, tuple[int | None, int]], ...],
    n_actions: int,
) -> int:
    """The round's record as it was (wagers.not_a_check's undo); the actions struck."""
    h.window_actions, h.window_chip_actions, seats = window
    h.window_seats = set(seats)
    h.unswept = unswept
    h.oot = dict(oot)
    struck = len(h.actions) - n_actions
    del h.actions[n_actions:]
    return struck


def paid_back(h: Hand, seat: int, amount: int) -> None:
    """``amount`` of the chips owed to ``seat`` were given back; none left, none owed."""
    owed = h.wager.owed.get(seat, 0) - amount
    if owed > 0:
        h.wager.owed[seat] = owed
    else:
        h.wager.owed.pop(seat, None)


def take_held(h: Hand, seat: int) -> int:
    """The chips of the seat's earlier motions of this wager, now in its action."""
    return h.wager.held.pop(seat, 0)


def motion(h: Hand, seat: int, n: int) -> None:
    """``seat`` moved chips: its ``n``-th consecutive motion."""
    w = h.wager
    w.last_mover, w.motions = seat, n


def new_mover(h: Hand) -> None:
    """The next chips are a new motion."""
    h.wager.last_mover = 0


def another_motion(h: Hand) -> None:
    h.wager.motions += 1


def declare(h: Hand, seat: int, word: str) -> None:
    """A verbal declaration binds the seat's turn (``record`` keeps it for that turn only)."""
    h.wager.declared[seat] = word
