"""A folded hand brought back, or ruled dead, by the director (issue 13).

000 SECTION 3 DEAD HANDS 2. [L126]: "a hand that is clearly identifiable may be retrieved and
ruled live at the Tournament Director's discretion" (e.g. folded on wrong information);
000 IRREGULARITIES 3. [L135]: a hand the dealer accidentally mucks has no redress; 002
Accidentally Killed / Fouled Hands [L169]: no redress, no refund, "but an uncalled bet or raise
will be returned" (``mucked_hand`` in the profile: ``retrievable`` or ``no-redress``).

The console: FLOOR right after a fold (the fold is the last action of the betting round in
play) holds the hand for the floor (``Hand.floor_hold``, as ``floor.py``'s holds; chips put in
meanwhile are flagged FLOOR_PENDING). The supervisor's badge shows the director, in an
instruction (the dealer's display; the venue's copy has card names scrubbed, so nothing of
the hand is published live), the folded seat's two cards from the hand and whether both are
still read on the muck antenna: that is what makes the hand "clearly identifiable". Then:

* ACK: the hand is retrieved (``retrievable`` only, both cards read on the muck, no action
  since the fold): the fold is struck from the record, the seat is live and acts again; the
  dealer puts its cards back on its spot.
* FLOOR: the fold stands; the hand is dead, its chips stay (000), except under ``no-redress``
  an uncalled bet or raise of that seat is returned (002). Under ``no-redress`` ACK is
  refused with the same ruling.
* MISDEAL: the hold ends and the dealer's MISDEAL is judged as usual.

``FLOOR_DECISION`` records the ruling with the badge (an alert: in the hand record).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from controller.rules import betting, floor, player, wagers
from controller.rules.decisions import ActionsStruck, AlertCode, Severity
from controller.rules.events import ConsoleButton, ZoneKind
from controller.rules.phases import Phase, Street
from controller.rules.profile import MuckedHand
from controller.rules.rounds import owe, set_bets, strike_last_action, turn_to

if TYPE_CHECKING:
    from controller.rules.engine import TableCore
    from controller.rules.hand import Hand, Player

# Enum members on the per-event path, looked up once: ``Phase.X`` costs a Python-level
# ``EnumType.__getattr__`` hook per lookup in Python 3.11 (and a getattr in the compiled core)
_NO_REDRESS: Final = MuckedHand.NO_REDRESS
_BETTING: Final = Phase.BETTING
_BOARD: Final = Phase.BOARD

PREFIX: Final = "retrieve-seat-"  # Hand.floor_hold for this hold: the prefix and the seat
_MUCK: Final = (ZoneKind.MUCK, 0)
RETRIEVE_CLAUSE: Final = "000 SECTION 3 DEAD HANDS 2. [L126]"
DEAD_CLAUSE: Final = "000 SECTION 3 IRREGULARITIES 3. [L135]"
NO_REDRESS_CLAUSE: Final = "002 Accidentally Killed / Fouled Hands [L169]"


def seat_held(h: Hand) -> int:
    """The folded seat this hand is held for, or 0 (another hold, or none)."""
    kind = h.floor_hold
    return int(kind[len(PREFIX) :]) if kind.startswith(PREFIX) else 0


def last_fold(core: TableCore, h: Hand) -> Player | None:
    """The seat whose fold is the last action of the betting round in play, if any."""
    if core.phase is not _BETTING and core.phase is not _BOARD:
        return None
    if not h.actions:
        return None
    a = h.actions[-1]
    p = h.players.get(a.seat)
    if a.kind != "fold" or p is None or not p.folded or p.dead:
        return None
    return p


def floor_called(core: TableCore) -> bool:
    """FLOOR pressed: right after a fold, hold the hand for the director. True if held."""
    h = core.hand
    if h is None or h.floor_state in floor.HOLDS:
        return False
    p = last_fold(core, h)
    if p is None:
        return False
    floor.hold(core, h, f"{PREFIX}{p.seat}")
    core.alert(
        AlertCode.FLOOR_CALLED,
        Severity.INFO,
        f"{RETRIEVE_CLAUSE}; {DEAD_CLAUSE}; {NO_REDRESS_CLAUSE}",
        f"Floor called to the table after seat {p.seat}'s fold: the hand is held for the "
        "supervisor's badge, then ACK = retrieve the hand, FLOOR = the fold stands",
        p.seat,
    )
    return True


def killed_uncalled(core: TableCore) -> bool:
    """002 Accidentally Killed / Fouled Hands [L169]: a hand went to the muck with a bet or
    raise nobody called. Whether the dealer killed it by mistake (no redress, but the
    uncalled part is returned) is the floor's call, so the table calls the floor itself: the
    hand is held as after FLOOR, and the director's badge and FLOOR (or ACK) rule the fold
    stands and the uncalled part goes back (:func:`button`). True if held."""
    h = core.hand
    if h is None or (h.floor_state is not floor.NO_HOLD and h.floor_state in floor.HOLDS):
        return False
    if core.profile.mucked_hand is not _NO_REDRESS:
        return False
    p = last_fold(core, h)
    if p is None:
        return False
    back = wagers.killed_uncalled(core, h, p)
    if not back:
        return False
    floor.hold(core, h, f"{PREFIX}{p.seat}")
    core.alert(
        AlertCode.FLOOR_CALLED,
        Severity.WARNING,
        NO_REDRESS_CLAUSE,
        f"Seat {p.seat}'s hand went to the muck with {back} of its bet uncalled: floor to the "
        "table (a hand the dealer kills by mistake has no redress, but the uncalled bet or "
        "raise is returned). The hand is held for the supervisor's badge, then FLOOR",
        p.seat,
    )
    return True


def _on_muck(core: TableCore, p: Player) -> list[str]:
    return [t for t in p.hole if core.where.get(t) == _MUCK]


def badge(core: TableCore, h: Hand, badge_id: str) -> None:
    """The supervisor's badge: show the folded hand to the badge holder."""
    seat = seat_held(h)
    p = h.players[seat]
    floor.badge_tapped(core, h, badge_id)
    cards = " and ".join(core.card_name(t) for t in p.hole)
    n = len(_on_muck(core, p))
    read = (
        "both still read on the muck: identifiable"
        if n == len(p.hole) == 2
        else f"{n} of them read on the muck: not identifiable by the table"
    )
    if core.profile.mucked_hand is MuckedHand.NO_REDRESS:
        how = "no redress here (002): FLOOR or ACK, the fold stands"
    else:
        how = "ACK = retrieve the hand (live), FLOOR = the fold stands"
    core.instruct(
        f"Floor ({badge_id}), for your eyes: seat {seat} folded {cards}; {read}. {how}",
        seat,
    )


def button(core: TableCore, h: Hand, b: ConsoleButton) -> bool:
    """A console button while the hand is held for a retrieval; True if it was the ruling."""
    if b is ConsoleButton.MISDEAL:
        floor.release(core, h)
        return False  # judged as the dealer's MISDEAL
    if b is not ConsoleButton.ACK and b is not ConsoleButton.FLOOR:
        return False
    if not h.floor_badge:
        core.instruct("The hand is held for the floor: the supervisor's badge first")
        return True
    p = h.players[seat_held(h)]
    who = h.floor_badge
    if b is ConsoleButton.ACK and core.profile.mucked_hand is MuckedHand.RETRIEVABLE:
        why = _cannot_retrieve(core, h, p)
        if why:
            core.instruct(f"Seat {p.seat}'s hand cannot be retrieved: {why}", p.seat)
            return True
        floor.release(core, h)
        _retrieve(core, h, p, who)
        return True
    floor.release(core, h)
    _fold_stands(core, h, p, who)
    return True


def _cannot_retrieve(core: TableCore, h: Hand, p: Player) -> str:
    if len(p.hole) != 2 or len(_on_muck(core, p)) != 2:
        return "both of its cards must be read on the muck (the hand is not identifiable)"
    if core.phase is not Phase.BETTING:
        return "the betting round closed on the fold"
    if last_fold(core, h) is not p:
        return "the action went on after the fold"
    return ""


def _retrieve(core: TableCore, h: Hand, p: Player, who: str) -> None:
    strike_last_action(h)  # the fold is struck from the record, and from the window
    core.out.append(ActionsStruck(1, int(h.street), core.t))  # the fact (decisions.py)
    player.retrieved(p)
    turn_to(h, p.seat)
    core.alert(
        AlertCode.FLOOR_DECISION,
        Severity.INFO,
        RETRIEVE_CLAUSE,
        f"Floor ruling by {who}: seat {p.seat}'s hand is retrieved and live",
        p.seat,
    )
    cards = " and ".join(core.card_name(t) for t in p.hole)
    core.instruct(f"Seat {p.seat}: give back {cards} from the muck; seat {p.seat} to act", p.seat)


def _fold_stands(core: TableCore, h: Hand, p: Player, who: str) -> None:
    no_redress = core.profile.mucked_hand is MuckedHand.NO_REDRESS
    others = 0
    for q in h.players.values():
        if q is not p and q.street_bet > others:
            others = q.street_bet
    back = p.street_bet - others if no_redress else 0
    text = f"Floor ruling by {who}: the fold stands; seat {p.seat}'s hand is dead, no redress"
    if back > 0:
        player.given_back(p, back)
        h.given_back[p.seat] = h.given_back.get(p.seat, 0) + back
        owe(h, p.seat, back)  # the dealer hands it back: no chips taken back (002 [L125])
        top = max(q.street_bet for q in h.players.values())
        set_bets(h, top, _last_raise(h, p.seat))
        text += f"; return the uncalled {back} to seat {p.seat}"
    else:
        text += " (its chips stay in the pot)"
    core.alert(
        AlertCode.FLOOR_DECISION,
        Severity.INFO,
        NO_REDRESS_CLAUSE if no_redress else DEAD_CLAUSE,
        text,
        p.seat,
    )
    if back > 0:
        core.instruct(f"Return the uncalled {back} to seat {p.seat}", p.seat)
        betting.after_change(core)


def _last_raise(h: Hand, without: int) -> int:
    """The last full raise of this street once ``without``'s wagers are taken out: the step
    between the two highest totals the others' bets and raises reached (the big blind when
    nobody else raised)."""
    street = int(h.street)
    tops = [0, h.big_blind] if h.street is Street.PREFLOP else [0]
    for a in h.actions:
        if a.street == street and a.seat != without and a.to > tops[-1]:
            tops.append(a.to)
    step = tops[-1] - tops[-2]
    return max(step, h.big_blind)
