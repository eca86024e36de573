"""Wagers as players make them (issue 14): verbal declarations, a second motion of chips
(string bets, declared raises in several motions), action out of turn as each profile rules
it, chips taken back, non-standard folds, and the dealer's "that was not a check".

Every ruling reads a profile field (``profile.py``: ``out_of_turn``, ``string_bet_is_call``,
``declared_raise_motions``, ``short_call_stays_call``, ``chips_in_turn_stay``,
``nonstandard_fold_alert``); none branches on the venue. The working state is the hand's
:class:`~controller.rules.hand.Wager`. ``betting.py`` calls in here from its action path;
a ruling that ends in an action returns it (:class:`~controller.rules.rounds.Then`) for
the round to play (this module does not call the round).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from controller.rules import floor, oot_limits, player
from controller.rules.decisions import ActionsStruck, AlertCode, Severity
from controller.rules.errors import TableError
from controller.rules.events import ChipsIn, ChipsOut
from controller.rules.hand import Hand, Player
from controller.rules.phases import Phase
from controller.rules.profile import MuckedHand, OutOfTurnRule
from controller.rules.rounds import (
    GO_ON,
    Then,
    drop_oot,
    hold,
    needs_action,
    new_mover,
    next_after,
    owe,
    paid_back,
    pend_oot,
    record,
    restore_bets,
    restore_round,
    set_bets,
    street_no,
    turn_to,
)

if TYPE_CHECKING:
    from controller.rules.engine import TableCore

# Enum members on the per-event path, looked up once: ``Phase.X`` costs a Python-level
# ``EnumType.__getattr__`` hook per lookup in Python 3.11 (and a getattr in the compiled core)
_NO_REDRESS: Final = MuckedHand.NO_REDRESS
_BETTING: Final = Phase.BETTING

# the clause of each out-of-turn ruling (the profile's value picks it)
OOT_CLAUSE: Final = {
    OutOfTurnRule.BINDING_IF_UNCHANGED: "002 Action Out of Turn [L129]; TDA 53",
    OutOfTurnRule.CHECK_OR_CALL: "000 SECTION 3 BETTING AND RAISING 7 [L156]-[L158]",
    OutOfTurnRule.FLOOR: "003 Betting [L61]: action out of turn may be binding",
    OutOfTurnRule.TAKE_BACK: "004 AR-13 [L67]",
}
OOT_WHEN: Final = {
    OutOfTurnRule.BINDING_IF_UNCHANGED: "The action is binding if nothing changes before it",
    OutOfTurnRule.CHECK_OR_CALL: "At its turn a bet out of turn is only a check and a raise "
    "only a call, unless a bet or raise comes first (then all options return)",
    OutOfTurnRule.FLOOR: "The floor decides at its turn whether it stands (ACK: it stands)",
    OutOfTurnRule.TAKE_BACK: "",
}
STRING_CLAUSE: Final = "000 BETTING AND RAISING 8 [L159]; 002 [L133] [L153]; 003 Betting [L59]"
DECLARED_CLAUSE: Final = "000 BETTING AND RAISING 5 [L153]; 002 [L125]; 003 [L61]"
RAISE_MOTIONS_CLAUSE: Final = "000 [L159]; 002 Methods of Raising [L133]; 003 [L129]"
BROUGHT_UP_CLAUSE: Final = "000 SECTION 3 BETTING AND RAISING 11 [L162]"
TAKEN_BACK_CLAUSE: Final = "002 Verbal Declarations / Acting in Turn [L125]"
NONSTD_FOLD_CLAUSE: Final = "002 Non-Standard Folds [L161]"

_RAISING: Final = ("raise", "all_in")


# ---------------------------------------------------------------------------- declarations


def bound_amount(core: TableCore, h: Hand, p: Player, amount: int, n: int) -> int:
    """The chips of a declared call: anything beyond the call goes back."""
    to_call = h.current_bet - p.street_bet
    if h.wager.declared.get(p.seat) == "call" and amount > to_call >= 0 and amount < p.stack:
        core.alert(
            AlertCode.DECLARATION_BINDS,
            Severity.INFO,
            DECLARED_CLAUSE,
            f"Seat {p.seat} declared call: the wager is {to_call}; give {amount - to_call} back",
            p.seat,
        )
        owe(h, p.seat, amount - to_call)
        return to_call
    return amount


def accumulates(core: TableCore, h: Hand, p: Player, amount: int, n: int) -> bool:
    """A declared raise (or all-in) being put in over several motions: these chips add up
    without acting yet (000 [L159], 002 [L133], 003 [L129]); True if so."""
    word = h.wager.declared.get(p.seat)
    if word not in _RAISING or amount == p.stack:
        return False
    limit = core.profile.declared_raise_motions
    if limit and n >= limit:
        return False
    total = p.street_bet + amount
    if word == "raise" and total >= h.current_bet + max(h.last_raise, 1):
        return False
    player.put_in(p, amount)
    hold(h, p.seat, amount)
    core.instruct(f"Seat {p.seat}: {word} declared; {total} in so far", p.seat)
    return True


def declared_unmet(core: TableCore, h: Hand, p: Player, kind: str) -> None:
    if kind == "call" and h.wager.declared.get(p.seat) == "raise":
        core.alert(
            AlertCode.DECLARATION_BINDS,
            Severity.WARNING,
            RAISE_MOTIONS_CLAUSE,
            f"Seat {p.seat} declared raise but made a call of {h.current_bet}: the raise "
            f"is binding; make it at least {h.current_bet + h.last_raise} (floor)",
            p.seat,
        )


# ---------------------------------------------------------------------------- motions


def second_motion(core: TableCore, h: Hand, p: Player, e: ChipsIn, n: int) -> bool | Then:
    """Chips from the seat whose chips came last, with nobody acting in between. False if
    they are to be played as usual; True if this judged them (a string bet, a call
    brought up, a declared raise continued), or what the round is to play then."""
    amount = e.amount
    if amount is None:
        return False
    prof = core.profile
    word = h.wager.declared.get(p.seat, "")
    pending = needs_action(h, p)
    limit = prof.declared_raise_motions
    if word in _RAISING and (limit == 0 or n <= limit):
        if pending:
            return False  # accumulates, or completes the raise (betting._act)
        return extend(core, h, p, amount)
    if pending and (p.street_bet > h.current_bet or amount <= h.current_bet - p.street_bet):
        return False  # completing a short raise, or bringing a call up (000 [L162])
    to_call = max(h.current_bet - p.street_bet, 0)
    if pending and prof.short_call_stays_call:
        core.alert(
            AlertCode.CALL_NOT_RAISE,
            Severity.WARNING,
            BROUGHT_UP_CLAUSE,
            f"Seat {p.seat}: a call brought up to {h.current_bet} may not become a raise; "
            f"give {amount - to_call} back",
            p.seat,
        )
    elif prof.string_bet_is_call:
        stands = "a call" if pending or h.last_aggressor != p.seat else f"{p.street_bet}"
        core.alert(
            AlertCode.STRING_BET,
            Severity.WARNING,
            STRING_CLAUSE,
            f"Seat {p.seat}: a second motion without a declaration is a string bet; the "
            f"wager is {stands}: give {amount - to_call} back",
            p.seat,
        )
    else:
        if pending:
            return False  # the chips add up (no string-bet rule)
        return extend(core, h, p, amount)
    owe(h, p.seat, amount - to_call)
    if pending and to_call:
        turn_to(h, p.seat)
        return Then("act", p.seat, to_call)
    return True


# board cards out before the street after each street (a tuple object: ``Final = (...)`` of
# ints is a C struct in the compiled core, boxed into a new tuple at each index)
_BOARD_BEFORE: Final[tuple[int, ...]] = (0, 3, 4, 5)


def closing_motion(core: TableCore, h: Hand, p: Player, e: ChipsIn) -> bool:
    """Chips, in the pause between rounds, from the seat whose call closed the betting round,
    before anything else happened (no sweep, no burn, no board card): a second motion of
    that call (e.g. the big blind calling a raise, then reaching back for more)."""
    w = h.wager
    if w.last_mover != p.seat or e.amount is None or e.amount > p.stack or h.runout:
        return False
    last = h.actions[-1] if h.actions else None
    return (
        last is not None
        and last.seat == p.seat
        and last.kind == "call"
        and last.amount > 0
        and last.street == street_no(h)
        and h.unswept
        and h.street_burns == 0
        and not h.pending_board
        and len(h.board) == _BOARD_BEFORE[street_no(h)]
    )


def extend(core: TableCore, h: Hand, p: Player, amount: int) -> Then:
    """More chips from a seat that has acted: after a check or call they are a raise; after
    its own bet or raise they make it bigger (not another raise of the round)."""
    turn_to(h, p.seat)
    if h.last_aggressor != p.seat or h.current_bet == 0:
        return Then("act", p.seat, amount)
    if amount > p.stack:
        raise TableError("over_stack", f"seat {p.seat} put in {amount} but has {p.stack}")
    before = h.current_bet
    player.bet_more(p, amount)
    set_bets(h, p.street_bet, h.last_raise + p.street_bet - before)
    last = h.actions[-1] if h.actions else None
    kind = last.kind if last is not None and last.seat == p.seat else "raise"
    record(core, h, p.seat, kind, amount)
    return GO_ON


# ---------------------------------------------------------------------------- out of turn


def out_of_turn_chips(core: TableCore, h: Hand, e: ChipsIn) -> None:
    rule = core.profile.out_of_turn
    what = f"chips {e.amount}" if e.amount is not None else "chips; amount not sensed"
    if rule is OutOfTurnRule.TAKE_BACK and e.amount is not None:
        nxt = next_after(core, h, e.seat)
        amount = e.amount + (h.wager.wrong[1] if h.wager.wrong[0] == e.seat else 0)
        h.wager.wrong = (e.seat, amount, nxt)
        owe(h, e.seat, e.amount)
        core.alert(
            AlertCode.ACTION_OUT_OF_TURN,
            Severity.WARNING,
            OOT_CLAUSE[rule],
            f"Seat {e.seat} acted out of turn ({what}); seat {h.pointer} is to act: take "
            "the wager back"
            + (f". If seat {nxt} acts first, the wager stands" if nxt != h.pointer else ""),
            e.seat,
        )
        return
    held = h.oot.get(e.seat)  # more chips out of turn add up
    pending = e.amount
    if held is not None and pending is not None and held[0] is not None:
        pending += held[0]
    pend_oot(h, e.seat, pending, h.current_bet if held is None else held[1])
    core.alert(
        AlertCode.ACTION_OUT_OF_TURN,
        Severity.WARNING,
        OOT_CLAUSE[rule],
        f"Seat {e.seat} acted out of turn ({what}); seat {h.pointer} is to act. {OOT_WHEN[rule]}",
        e.seat,
    )


def wrong_bet_stands(core: TableCore, h: Hand) -> Then:
    """004 AR-13: the next seat acted after the wrong bet: it stands, action goes on."""
    seat, amount, _ = h.wager.wrong
    h.wager.wrong = (0, 0, 0)
    p = h.players[seat]
    paid_back(h, seat, amount)
    core.instruct(f"Seat {seat}: the next seat acted, the wager out of turn stands (AR-13)", seat)
    turn_to(h, seat)
    return Then("act", seat, min(amount, p.stack))


def apply_pending(core: TableCore, h: Hand, seat: int) -> Then | None:
    """The turn reached a seat that acted out of turn: the profile rules its chips, and
    says what the round is to play (None: nothing, the seat still has to act)."""
    rule = core.profile.out_of_turn
    w = h.wager
    if w.floor_seat == seat:
        return None  # awaiting the floor (ACK: it stands; chips taken back: all options)
    amount, bet_seen = h.oot[seat]
    p = h.players[seat]
    clause = OOT_CLAUSE[rule]
    if rule is OutOfTurnRule.FLOOR and bet_seen == h.current_bet:
        w.floor_seat = seat
        core.alert(
            AlertCode.ACTION_OUT_OF_TURN,
            Severity.WARNING,
            clause,
            f"Seat {seat}: floor, rule on the action out of turn: ACK if it stands, or take "
            "the chips back and the player has all options",
            seat,
        )
        return None
    drop_oot(h, seat)
    if bet_seen != h.current_bet:
        owe(h, seat, amount or 0)
        core.alert(
            AlertCode.ACTION_OUT_OF_TURN,
            Severity.WARNING,
            clause,
            f"Seat {seat}: the action changed since the bet out of turn; return the "
            f"{'' if amount is None else f'{amount} '}chips, the player has all options",
            seat,
        )
        return None
    if amount is None:
        # presence-only chip sensors (L3): the amount is not known, the call stands
        core.instruct(f"Seat {seat}: the action out of turn stands (amount not sensed)", seat)
        return Then("presence", seat)
    to_call = h.current_bet - p.street_bet
    if rule is OutOfTurnRule.CHECK_OR_CALL and amount > to_call and amount < p.stack:
        # 000 [L157]-[L158]: the seat keeps a bet or raise it may not make at its turn
        owe(h, seat, amount - to_call)
        core.alert(
            AlertCode.RAISE_NOT_ALLOWED,
            Severity.WARNING,
            oot_limits.LIMIT_CLAUSE,
            f"Seat {seat}: a {'bet' if to_call == 0 else 'raise'} out of turn is only a "
            f"{'check' if to_call == 0 else 'call'} now (no bet or raise came in between); "
            f"give {amount - to_call} back",
            seat,
        )
        if to_call == 0:
            return Then("ack")
        amount = to_call
    core.instruct(f"Seat {seat}: the action out of turn stands ({amount})", seat)
    return Then("act", seat, amount)


def floor_stands(core: TableCore, h: Hand) -> Then | None:
    """ACK while the floor rules on an action out of turn: it stands; what the round is to
    play then (None: no such action)."""
    seat = h.wager.floor_seat
    if not seat or seat != h.pointer or seat not in h.oot:
        return None
    h.wager.floor_seat = 0
    pending = drop_oot(h, seat)
    assert pending is not None
    amount, _ = pending
    p = h.players[seat]
    sensed = "amount not sensed" if amount is None else str(amount)
    floor.oot_ruled(core, seat, f"seat {seat}'s action out of turn is binding ({sensed})")
    core.instruct(
        f"Seat {seat}: the action out of turn stands ({sensed}; the floor's ruling)", seat
    )
    if amount is None:
        return Then("presence", seat)
    return Then("act", seat, min(amount, p.stack))


# ---------------------------------------------------------------------------- chips back


def chips_out(core: TableCore, h: Hand, e: ChipsOut) -> None:
    """Chips leave a zone during a betting round: change, a refused wager, a wager out of
    turn taken back, or (002 [L125]) chips put in in turn, which stay in."""
    w = h.wager
    seat = e.seat
    if w.wrong[0] == seat:
        w.wrong = (0, 0, 0)  # 004 AR-13: the incorrect bettor took it back
    if w.floor_seat == seat:
        w.floor_seat = 0  # the floor ruled it returned: all options
        drop_oot(h, seat)
        core.instruct(f"Seat {seat}: the action out of turn was returned; all options", seat)
    if not w.owed.get(seat) and oot_limits.taken_back(core, h, seat, e.amount):
        return  # 000 [L157]-[L158]: withdrawn, its limit kept
    if e.amount is None:
        return
    owed = w.owed.get(seat, 0)
    if e.amount <= owed:
        paid_back(h, seat, e.amount)
        return
    paid_back(h, seat, owed)  # all of it: nothing owed any more
    p = h.players.get(seat)
    if p is None or not core.profile.chips_in_turn_stay or core.phase is not _BETTING:
        return
    if not any(
        a.seat == seat and a.street == street_no(h) and a.kind in ("call", "bet", "raise")
        for a in h.actions
    ):
        return
    core.alert(
        AlertCode.CHIPS_TAKEN_BACK,
        Severity.WARNING,
        TAKEN_BACK_CLAUSE,
        f"Seat {seat}: chips placed in the pot in turn must stay in; put the "
        f"{e.amount - owed} back",
        seat,
    )


def killed_uncalled(core: TableCore, h: Hand, p: Player) -> int:
    """002 Accidentally Killed / Fouled Hands [L169] (``mucked_hand = "no-redress"``): the
    part of ``p``'s bet or raise of this street nobody has called, when its hand goes to the
    muck (0: none, or another profile). Whether the dealer killed the hand by mistake (then
    it is returned) or the player threw it away is the floor's call (``retrieve.py``)."""
    if core.profile.mucked_hand is not _NO_REDRESS or core.phase is not _BETTING:
        return 0
    others = 0
    for q in h.players.values():
        if q is not p and q.street_bet > others:
            others = q.street_bet
    return max(p.street_bet - others, 0)


def nonstandard_fold(core: TableCore, h: Hand, p: Player) -> None:
    """002 [L161]: folding facing no bet is binding and flagged (not the dealer killing the
    hand of an absent player)."""
    if not core.profile.nonstandard_fold_alert or p.street_bet < h.current_bet:
        return  # (most folds: the seat's presence is not looked up)
    seat = core.seats.get(p.seat)
    if seat is None or seat.present:
        core.alert(
            AlertCode.NONSTANDARD_FOLD,
            Severity.WARNING,
            NONSTD_FOLD_CLAUSE,
            f"Seat {p.seat} folded facing no bet: a binding non-standard fold; floor may penalise",
            p.seat,
        )


# ---------------------------------------------------------------------------- not a check


@dataclass(init=False, unsafe_hash=True, slots=True)
class Undo:
    """The betting state before chips that inferred ``checks`` checks (for NOT_A_CHECK).
    Made on the event path: an explicit ``__init__`` and ``Final`` attributes, as the
    decisions (docs/architecture.md)."""

    ev: Final[ChipsIn]
    n_actions: Final[int]
    checks: Final[int]
    street: Final[int]
    players: Final[tuple[tuple[int, int, int, int, bool, bool, bool], ...]]
    bets: Final[tuple[int, int, int, int, int]]  # current_bet, last_raise, raises, aggressor,
    #                                              pointer
    window: Final[tuple[int, int, frozenset[int]]]
    unswept: Final[bool]
    oot: Final[tuple[tuple[int, tuple[int | None, int]], ...]]

    def __init__(
        self,
        ev: ChipsIn,
        n_actions: int,
        checks: int,
        street: int,
        players: tuple[tuple[int, int, int, int, bool, bool, bool], ...],
        bets: tuple[int, int, int, int, int],
        window: tuple[int, int, frozenset[int]],
        unswept: bool,
        oot: tuple[tuple[int, tuple[int | None, int]], ...],
    ) -> None:
        self.ev = ev
        self.n_actions = n_actions
        self.checks = checks
        self.street = street
        self.players = players
        self.bets = bets
        self.window = window
        self.unswept = unswept
        self.oot = oot


def snapshot(h: Hand, ev: ChipsIn, checks: int) -> Undo:
    # (a loop, not a generator: mypyc allocates a generator object per call)
    seats: list[tuple[int, int, int, int, bool, bool, bool]] = []
    for p in h.players.values():
        seats.append((p.seat, p.stack, p.street_bet, p.total, p.acted, p.can_raise, p.all_in))
    players = tuple(seats)
    return Undo(ev, len(h.actions), checks, street_no(h), players,
                (h.current_bet, h.last_raise, h.raises, h.last_aggressor, h.pointer),
                (h.window_actions, h.window_chip_actions, frozenset(h.window_seats)),
                h.unswept, tuple(h.oot.items()))  # fmt: skip


def undoable(core: TableCore, h: Hand) -> Undo | None:
    """The checks the last chips inferred, if nothing happened since (else None)."""
    u = h.wager.undo
    if (
        not isinstance(u, Undo)
        or core.phase is not _BETTING
        or u.street != street_no(h)
        or len(h.actions) != u.n_actions + u.checks + 1
    ):
        return None
    return u


def first_skipped(core: TableCore, h: Hand) -> int:
    """The seat that was to act when another seat's chips inferred its check (and those of
    the seats after it), if nothing happened since; else 0. 000 [L157], 002 [L129]: a bet
    out of turn on an unbet street leaves the skipped seats every option."""
    u = undoable(core, h)
    return 0 if u is None else u.bets[4]


def skipped_bets(core: TableCore, h: Hand, p: Player, e: ChipsIn) -> bool:
    """000 [L157], 002 [L129], 003 [L61], 004 AR-13: a bet out of turn on an unbet street
    leaves the seats it skipped every option. A check leaves no trace (L2), so the bet took
    them to have checked (``betting.infer_checks``); the first of them putting chips in next,
    before anyone else acts, says otherwise when its chips are no clean action after a check
    (out of turn, or short of the call, or short of a full raise) but a clean bet of its own
    (the big blind or more, or all in): then the checks were never made and the bet was out
    of turn (:func:`undo_checks`). True if so. Clean both ways (a call, a full
    check-raise, an all-in, one oversized chip): the checks stand, and the dealer's NOT A
    CHECK can still undo them."""
    if e.amount is None or p.seat != first_skipped(core, h):
        return False
    amount = e.amount
    if amount >= p.stack or amount < h.big_blind:
        return False  # all in: clean both ways; below the big blind: no clean bet either
    if p.seat != h.pointer:
        return True  # out of turn after the checks, in turn without them
    to_call = h.current_bet - p.street_bet
    if len(e.chips) == 1 and amount > to_call and core.profile.oversized_chip_is_call:
        return False  # one oversized chip: a call after the check (000 [L160])
    return amount < to_call or to_call < amount < to_call + h.last_raise


def not_a_check(core: TableCore, h: Hand) -> None:
    """The dealer says the last inferred check(s) were not checks: the chips that made
    them are judged again as action out of turn."""
    if undoable(core, h) is None:
        raise TableError(
            "nothing_to_undo",
            "no check was inferred for the last action: nothing to undo",
        )
    undo_checks(core, h, "Not a check")


def undo_checks(core: TableCore, h: Hand, why: str) -> None:
    """The checks the last chips inferred were never made (the dealer's "not a check", or
    the first skipped seat acting: :func:`skipped_bets`): the betting state goes back
    to before those chips and they are judged as action out of turn."""
    u = h.wager.undo
    assert isinstance(u, Undo)
    restore_bets(h, u.bets)
    for s, stack, street_bet, total, acted, can_raise, all_in in u.players:
        player.restore(h.players[s], stack, street_bet, total, acted, can_raise, all_in)
    struck = restore_round(h, u.window, u.unswept, u.oot, u.n_actions)
    if struck > 0:
        core.out.append(ActionsStruck(struck, int(h.street), core.t))  # the fact
    h.wager.undo = None
    new_mover(h)
    seat = u.ev.seat
    core.instruct(f"{why}: seat {h.pointer} is to act; seat {seat}'s chips were out of turn")
    out_of_turn_chips(core, h, u.ev)


# The wager's rulings (a wrong wager, an action out of turn awaiting the floor, what "not a
# check" would undo) are written in this module only (tests/rules/test_state_owners.py);
# the motions, declarations and chips owed or held are the round's (``rounds.py``), the
# limits of an action out of turn taken back ``oot_limits.py``'s.


def keep_undo(h: Hand, ev: ChipsIn, n_skipped: int) -> None:
    """Checks were inferred: what a "not a check" would undo (:func:`not_a_check`)."""
    h.wager.undo = snapshot(h, ev, n_skipped)


def void_wrong(h: Hand) -> None:
    """004 AR-13: the true position acted; a wrong wager is void."""
    h.wager.wrong = (0, 0, 0)


def not_let_stand(h: Hand) -> None:
    """New chips from the seat whose action out of turn awaited the floor."""
    h.wager.floor_seat = 0
