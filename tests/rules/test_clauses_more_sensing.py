# mypy: disable-error-code="comparison-overlap"
"""Clause tests of what the sensors reveal beyond the deal order: a joker kept by a player
who acts (003 joker b), a burn read on the muck antenna (000 glossary, 003 Flop), rejected
chip events that must leave the state unchanged, and presence-only chip sensors (L3: who
moved chips and when, not how much). Names carry the clause-inventory ids."""

from __future__ import annotations

import pytest
from table_builder import PROFILES, Table

from controller.rules.decisions import AlertCode, Severity
from controller.rules.events import ChipsIn, ConsoleButton, ZoneKind
from controller.rules.phases import Phase, Street
from controller.rules.profile import OutOfTurnRule

A = AlertCode


def joker_dealt_to_bb() -> Table:
    """club-003, button 1: the big blind (seat 3) is dealt a joker as its first card."""
    t = Table("club-003", 4).post_blinds()
    t.hole(2).hole(3, "Jk")
    for s in (4, 1, 2, 3, 4, 1):
        t.hole(s)
    assert t.phase is Phase.DEALING  # the joker's replacement is still due
    return t


@pytest.mark.clause("003-DealerErrors-joker-b", profiles=("club-003",))
def test_003_DealerErrors_joker_b_acting_with_the_joker_fouls_the_hand() -> None:
    """003 Dealer Errors [L189] joker b): a player who acts before the joker is pointed out
    and replaced has a fouled hand; it forfeits the pot and all its chips in it."""
    t = joker_dealt_to_bb()
    t.chips(4, 100).chips(1, 100).chips(2, 50).mark().chips(3, 100)
    dead = t.alert(A.DEAD_HAND)
    assert dead.seat == 3 and "joker" in dead.remedy and "003" in dead.clause
    s = t.snap
    me = s.seat(3)
    assert me is not None and not me.in_hand and me.committed == 200
    assert s.pot == 500 and s.chips == 4000
    assert t.phase is Phase.BOARD  # the others matched: the round is closed


@pytest.mark.clause("003-DealerErrors-joker-a", profiles=("club-003",))
def test_003_DealerErrors_joker_a_replaced_before_acting_is_no_foul() -> None:
    """003 joker a)/b) [L189]: the joker replaced after the deal, the seat then acts freely."""
    t = joker_dealt_to_bb()
    t.remove("Jk", ZoneKind.HOLE, 3)
    t.hole(3, "Kd")
    assert t.phase is Phase.BETTING
    t.chips(4, 100).chips(1, 100).chips(2, 50).mark().chips(3, 100)
    assert A.DEAD_HAND not in t.codes
    assert t.snap.seat(3).in_hand  # type: ignore[union-attr]


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.clause("000-GL-burn", "003-Flop-burn")
def test_000_GL_burn_003_Flop_burn_burn_read_on_the_muck(profile: str) -> None:
    """000 GLOSSARY BURNCARD [L241]: the burn goes on the table, "not in the muck"; 003 Flop
    [L91, L95]: one burn, then three board cards (the burn antenna covers where 003 burns).
    A card that is no seat's hole card read on the muck while the burn is due is flagged;
    moved to the burn spot, the flop follows with no further alert."""
    t = Table(profile, 3).post_blinds().deal().call_round().sweep().mark()
    t.to_muck("2d")
    a = t.alert(A.WRONG_BURN)
    assert "not the muck" in a.remedy and str(a.card) == "2d" and "L241" in a.clause
    t.burn("2d").board("Ah", "Kh", "Qh")
    assert t.codes == [A.WRONG_BURN]
    assert t.snap.street is Street.FLOP and t.phase is Phase.BETTING


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.clause("000-S3-dead-1a", "000-S3-misdeal-window")
def test_000_S3_dead_1a_fold_to_the_muck_is_not_a_burn(profile: str) -> None:
    """000 DEAD HANDS 1. bullets 1-2 [L123-124]: a hand thrown into the muck is folded; it
    counts as an action for the misdeal window (000-S3-misdeal-window), and is never taken
    for a misplaced burn."""
    t = Table(profile, 4).post_blinds().deal().mark().fold(4)
    assert t.codes == []
    s = t.snap
    me = s.seat(4)
    assert me is not None and me.folded and not me.in_hand
    assert s.to_act == 1


# ---------------------------------------------------------------- rejected events


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.clause("000-S1-absent-4")
def test_rejected_chips_leave_an_owed_blind_unchanged(profile: str) -> None:
    """h11-style rule of the core (docs/architecture.md): a rejected event leaves the state
    unchanged. An absent big blind is posted from its stack (000-S1-absent-4); chips from
    that seat that are then rejected (more than its stack) must not count toward the blind."""
    t = Table(profile, {1: 1000, 2: 1000, 3: 300}).presence(3, False)
    t.chips(2, 50).deal()
    before = t.snap
    assert before.pot == 150
    step = t.send(ChipsIn(t.now(), 3, 450))  # 100 owed for the blind + 350: over the stack
    assert step.rejected is not None and step.rejected.code == "over_stack"
    assert t.snap == before
    t.mark().chips(3, 100)  # the blind's chips arrive: confirmed, not an action
    assert t.codes == []
    assert t.snap.to_act == before.to_act and t.snap.pot == 150


@pytest.mark.parametrize("profile", PROFILES)
def test_rejected_chips_while_dealing_do_not_open_the_betting(profile: str) -> None:
    """A rejected event leaves the state unchanged: chips over the stack from a seat while
    the deal is still going on do not start the betting round."""
    t = Table(profile, {1: 1000, 2: 1000, 3: 1000}).post_blinds()
    t.hole(2).hole(3).hole(1).hole(2).hole(3)
    before = t.snap
    step = t.send(ChipsIn(t.now(), 1, 5000))
    assert step.rejected is not None and step.rejected.code == "over_stack"
    assert t.snap == before and t.phase is Phase.DEALING


# ---------------------------------------------------------------- presence-only chips (L3)


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.clause("000-S2-preflop")
def test_000_S2_preflop_presence_only_chips_turn_order_and_folds(profile: str) -> None:
    """000 SECTION 2 PRE-FLOP BETTING [L72-78] with presence-only chip sensors (amount None,
    L3): whose turn it is and folds work; no money check fires (no WAGER_SHORT or
    RAISE_SHORT: amounts are not sensed)."""
    t = Table(profile, 4)
    t.chips(2, None).chips(3, None).deal()
    assert t.codes == [] and t.snap.to_act == 4
    t.chips(4, None)
    assert t.snap.to_act == 1
    t.fold(1).chips(2, None)
    assert t.snap.to_act == 3
    t.press(ConsoleButton.ACK)
    assert t.phase is Phase.BOARD
    t.flop()
    assert t.snap.to_act == 2
    t.chips(3, None)  # seat 2 checked, seat 3 bets
    assert t.snap.to_act == 4
    t.chips(4, None).chips(2, None)
    assert t.phase is Phase.BOARD
    assert t.codes == []


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.clause("000-S3-bet-7b")
def test_000_S3_bet_7b_presence_only_out_of_turn_says_amount_not_sensed(profile: str) -> None:
    """000 BETTING 7b [L157]; 002 Action out of turn [L129] with presence-only sensors: chips
    out of turn are flagged (the alert says the amount is not sensed); if nothing changes
    the action stands at the seat's turn, as a call, with no money alert."""
    t = Table(profile, 4).chips(2, None).chips(3, None).deal().mark()
    t.chips(2, None)
    a = t.alert(A.ACTION_OUT_OF_TURN)
    assert a.seat == 2 and "amount not sensed" in a.remedy
    t.chips(4, None).fold(1)
    floor = t.profile.out_of_turn is OutOfTurnRule.FLOOR  # 003 [L61]: the floor rules (ACK)
    if floor:
        t.press(ConsoleButton.ACK)
    assert any("amount not sensed" in i.text for i in t.instructions)
    assert t.snap.to_act == 3
    assert t.codes == [A.ACTION_OUT_OF_TURN] * (2 if floor else 1)


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.clause("000-S3-misdeal-window")
def test_000_S3_misdeal_window_presence_only(profile: str) -> None:
    """000 MISDEALS 1. [L118] / 002 Substantial Action [L109] / 003 count a) with presence-only
    sensors: chip actions still count toward the misdeal window (C3)."""
    t = Table(profile, 6).chips(2, None).chips(3, None).deal()
    t.fold(4).chips(5, None).chips(6, None).mark().press(ConsoleButton.MISDEAL)
    if profile == "shaved-dog-004":
        assert t.alert(A.MISDEAL).severity is Severity.CRITICAL
    else:
        assert t.alert(A.MISDEAL_REFUSED).severity is Severity.WARNING
        assert t.phase is Phase.BETTING
