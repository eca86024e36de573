"""Misdeals, void hands and the misdeal window; exposed and boxed hole cards."""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from controller.rules import betting, board, clock, player, posting, rounds
from controller.rules.decisions import AlertCode, Severity
from controller.rules.errors import TableError
from controller.rules.hand import Hand, Street
from controller.rules.phases import MisdealCall, MisdealWindowState, Phase
from controller.rules.profile import ExposedMisdeal, JokerRule, MisdealWindow

if TYPE_CHECKING:
    from controller.rules.engine import TableCore

ACTIVE: Final = (Phase.DEALING, Phase.BETTING, Phase.BOARD)
# a card dealt off the table, designated on the burn antenna (designate.py)
OFF_TABLE_CLAUSE: Final = "000 SECTION 3 IRREGULARITIES 9. [L141]; 004 AR-14 [L69]; G9"


# ---------------------------------------------------------------------------- exposed, boxed


def judge(
    core: TableCore, h: Hand, tag: str, seat: int, idx: int, boxed: bool, off_table: bool
) -> bool:
    """Rule on an exposed or boxed card, the ``idx``-th card of the deal meant for ``seat``:
    a misdeal per the profile, or replaced after the deal. ``off_table``: a card that never
    reached the seat (dealt off the table, designated on the burn antenna, G9): the seat gets
    the next card in its turn and the card is already the flop burn. Returns True when the
    card is to be replaced (no misdeal)."""
    prof = core.profile
    if boxed:
        h.boxed = (*h.boxed, tag)
        count = len(h.boxed) + (len(h.exposed) if prof.boxed_counts_with_exposed else 0)
        if count >= prof.boxed_misdeal_count:
            misdeal_condition(
                core,
                AlertCode.BOXED_CARD,
                "000 SECTION 3 MISDEALS 1. bullet 3 [L110]; 002 Misdeals b)",
                f"{count} boxed cards",
                seat,
                tag,
            )
            return False
        _replace_after_deal(
            core, h, seat, tag, AlertCode.BOXED_CARD, "G2: a single boxed card", off_table
        )
        return True
    h.exposed = (*h.exposed, tag)
    first_two = [t for t, _ in h.dealt[:2]]
    if off_table and idx < 2:
        first_two.insert(idx, tag)
    rule = prof.exposed_misdeal
    count = len(h.exposed) + (len(h.boxed) if prof.boxed_counts_with_exposed else 0)
    why = ""
    if rule is ExposedMisdeal.ANY:
        why, clause = "a hole card was exposed", "003 Dealer errors: exposed card [L191]"
    elif rule is ExposedMisdeal.FIRST_OR_SECOND and idx <= 1:
        why, clause = (
            f"card {idx + 1} of the deal was exposed",
            "000 SECTION 3 MISDEALS 1. bullet 1 [L108]",
        )
    elif rule is ExposedMisdeal.FIRST and idx == 0:
        why, clause = "the first card of the deal was exposed", "004 AR-1a"
    elif rule is ExposedMisdeal.FIRST_TWO_BOTH and sum(t in first_two for t in h.exposed) >= 2:
        why, clause = "both of the first two cards were exposed", "002 Misdeals a)"
    elif count >= prof.exposed_misdeal_count:
        why, clause = (
            f"{count} cards exposed",
            "000 SECTION 3 MISDEALS 1. bullet 2 [L109]; 004 AR-1c; 002 b)",
        )
    if why:
        if off_table:
            why += " (dealt off the table)"
            clause += "; " + OFF_TABLE_CLAUSE
        misdeal_condition(core, AlertCode.EXPOSED_CARD, clause, why, seat, tag)
        return False
    clause = "004 AR-1b; 000 MISDEALS bullet 6; G3"
    if off_table:
        clause = f"{OFF_TABLE_CLAUSE}; {clause}"
    _replace_after_deal(core, h, seat, tag, AlertCode.EXPOSED_CARD, clause, off_table)
    return True


def _replace_after_deal(
    core: TableCore,
    h: Hand,
    seat: int,
    tag: str,
    code: AlertCode,
    clause: str,
    off_table: bool = False,
) -> None:
    if off_table:
        # already on the burn antenna: it is the flop burn (as board.on_burn's required burn)
        board.burned_off_table(h, tag)
        core.alert(
            code,
            Severity.WARNING,
            clause,
            f"{core.card_name(tag)}, dealt off the table, is exposed: it stays on the burn and "
            f"is the flop burn; deal on, seat {seat} gets the next card",
            seat,
            tag,
        )
        return
    h.replace[seat] = tag
    board.require_burn(h, tag)
    core.alert(
        code,
        Severity.WARNING,
        clause,
        f"Deal on. After the deal replace {core.card_name(tag)} at seat {seat} with the next card; "
        f"{core.card_name(tag)} becomes the flop burn",
        seat,
        tag,
    )


# ---------------------------------------------------------------------------- misdeal and void


def window_open(core: TableCore) -> bool:
    h = core.hand
    assert h is not None
    if h.street is not Street.PREFLOP:
        return False
    w = core.profile.misdeal_window
    if w is MisdealWindow.TWO_AFTER_BLINDS:
        return len(h.window_seats) < 2
    if w is MisdealWindow.SUBSTANTIAL_ACTION:
        return not ((h.window_actions >= 2 and h.window_chip_actions >= 1) or h.window_actions >= 3)
    if w is MisdealWindow.TWO_PLAYERS_ACT:
        return h.window_actions < 2
    return True  # UNTIL_FLOP


def window(core: TableCore) -> MisdealWindowState:
    """The misdeal window as a sub-state (``transitions.SUBSTATES``; derived, not stored):
    open while a hand is dealt or bet and :func:`window_open`."""
    if core.hand is None or core.phase not in ACTIVE or not window_open(core):
        return MisdealWindowState.CLOSED
    return MisdealWindowState.OPEN


_WINDOW_CLAUSE: Final = {
    MisdealWindow.TWO_AFTER_BLINDS: "000 SECTION 3 MISDEALS 1. [L118]",
    MisdealWindow.SUBSTANTIAL_ACTION: "002 Substantial Action [L109]; TDA 36",
    MisdealWindow.TWO_PLAYERS_ACT: "003 Dealer errors count a)",
    MisdealWindow.UNTIL_FLOP: "004: no cutoff stated (open until the flop)",
}


def misdeal_condition(
    core: TableCore, code: AlertCode, clause: str, why: str, seat: int = 0, tag: str = ""
) -> bool:
    """A misdeal if the window is open (returns True); else refused and the hand plays on."""
    h = core.hand
    assert h is not None
    if window_open(core):
        core.alert(
            code,
            Severity.CRITICAL,
            clause,
            f"Misdeal: {why}. Take back every card, reshuffle and deal again; "
            "the button and the blinds stay (G1)",
            seat,
            tag,
        )
        _restore_stacks(h, keep_forced=True)
        posting.set_posts(core, {s: p.total for s, p in h.players.items() if p.total})
        core.enter(Phase.MISDEAL)
        if core.table_clear():
            core.void_or_misdeal_cleared()
        return True
    core.alert(
        AlertCode.MISDEAL_REFUSED,
        Severity.WARNING,
        _WINDOW_CLAUSE[core.profile.misdeal_window],
        f"Misdeal not allowed ({why}): action has gone too far; play the hand",
        seat,
        tag,
    )
    if code in (AlertCode.EXTRA_HOLE_CARD, AlertCode.MISSING_HOLE_CARD, AlertCode.SEAT_DEALT_OUT):
        p = h.players.get(seat)
        if p is not None and p.live:
            player.dead(p)
            core.alert(
                AlertCode.DEAD_HAND,
                Severity.WARNING,
                "000 SECTION 3 DEAD HANDS 1. bullet 3 [L125]; 003 Dealer errors count b)",
                f"Seat {seat}: dead hand (wrong number of cards); its chips stay in the pot",
                seat,
            )
            betting.after_change(core)
    if core.phase is Phase.DEALING:
        # the deal carries on with the cards as they are
        betting.open_preflop(core)
    return False


def misdeal_pressed(core: TableCore) -> None:
    h = core.hand
    if h is None or core.phase not in ACTIVE:
        raise TableError("no_hand", "no hand to call a misdeal on")
    h.misdeal_call = core.shift(h.misdeal_call, MisdealCall.CALLED)
    misdeal_condition(core, AlertCode.MISDEAL, "dealer's console: misdeal", "called by the dealer")


def force_misdeal(core: TableCore) -> None:
    """A supervisor's badge authorises a disputed misdeal after the window closed."""
    h = core.hand
    assert h is not None
    core.alert(
        AlertCode.MISDEAL,
        Severity.CRITICAL,
        "supervisor ruling (badge)",
        "Misdeal ruled by the floor: take back every card, reshuffle and deal again",
    )
    _restore_stacks(h, keep_forced=True)
    posting.set_posts(core, {s: p.total for s, p in h.players.items() if p.total})
    core.enter(Phase.MISDEAL)


def interrupted(core: TableCore) -> None:
    """An :class:`~controller.rules.events.Interrupted` hand: a misdeal (the daemon raises
    its own HAND_INTERRUPTED alert for it); re-dealt at once if no card is on the table."""
    force_misdeal(core)
    if core.table_clear():
        core.void_or_misdeal_cleared()


def void(
    core: TableCore, code: AlertCode, clause: str, why: str, seat: int = 0, tag: str = ""
) -> None:
    h = core.hand
    assert h is not None
    core.alert(
        code,
        Severity.CRITICAL,
        clause,
        f"{why}. Hand void: stop play, return all bets, take back every card",
        seat,
        tag,
    )
    core.alert(
        AlertCode.HAND_VOID, Severity.CRITICAL, clause, "Hand void: all bets returned", seat, tag
    )
    _restore_stacks(h, keep_forced=False)
    posting.set_posts(core, {})
    core.enter(Phase.VOID)


def _restore_stacks(h: Hand, keep_forced: bool) -> None:
    for p in h.players.values():
        forced = sum(a.amount for a in h.actions if a.seat == p.seat and a.kind.startswith("post_"))
        blinds = sum(
            a.amount for a in h.actions if a.seat == p.seat and a.kind in ("post_sb", "post_bb")
        )
        player.chips_are(  # bets other than the blinds went back
            p,
            p.start_stack - (forced if keep_forced else 0),
            blinds if keep_forced else 0,
            forced if keep_forced else 0,
        )


# ---------------------------------------------------------------------------- fouled hands


def acted_with_joker(core: TableCore, seat: int, amount: int | None) -> bool:
    """003 Dealer Errors joker b) [L189]: a player who acts (chips in) while still holding a
    joker that was not replaced has a fouled hand: dead, and the chips stay in the pot.
    Returns True when the action was consumed this way."""
    h = core.hand
    assert h is not None
    if not h.jokers:
        return False  # no joker this hand (nearly always): no profile lookup
    p = h.players[seat]
    if core.profile.joker is not JokerRule.REPLACE_AFTER_DEAL or not any(
        t in h.jokers for t in p.hole
    ):
        return False
    if amount is not None:
        amount = min(amount, p.stack)
        player.put_in(p, amount)
    player.dead(p)
    clock.stop(core, h, seat)
    rounds.drop_oot(h, seat)
    core.alert(
        AlertCode.DEAD_HAND,
        Severity.WARNING,
        "003 Dealer Errors: joker b) [L189]",
        f"Seat {seat} acted holding the joker: the hand is fouled (dead); it forfeits the "
        "pot and its chips stay in it",
        seat,
    )
    rounds.record(core, h, seat, "fold", amount or 0)
    betting.after_change(core)
    return True


# The exposed and boxed cards and the replacements due after the deal are written in this
# module only (tests/rules/test_state_owners.py): the deal and the designation call these.


def replace_after_deal(h: Hand, seat: int, tag: str) -> None:
    """``tag``, dealt to ``seat``, is replaced once the deal is done."""
    h.replace[seat] = tag


def replaced(h: Hand, seat: int) -> str:
    """The seat's card to replace, now replaced (dealing.py)."""
    return h.replace.pop(seat)


def no_replacement(h: Hand, seat: int) -> None:
    """The seat's hand is dead: nothing is replaced."""
    h.replace.pop(seat, None)


def withdraw(h: Hand, boxed: bool, tag: str, seat: int) -> None:
    """Undo the press's ruling on ``tag`` (a replacement after the deal: :func:`judge`)."""
    marks = h.boxed if boxed else h.exposed
    if tag in marks:  # the first mark of the tag goes (a tuple: see hand._NO_TAGS)
        i = marks.index(tag)
        if boxed:
            h.boxed = marks[:i] + marks[i + 1 :]
        else:
            h.exposed = marks[:i] + marks[i + 1 :]
    if h.replace.get(seat) == tag:
        del h.replace[seat]
    board.release_burn(h, tag)
