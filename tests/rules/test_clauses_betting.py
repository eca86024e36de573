"""Clause tests of action and money: turn order, out-of-turn action (C13), inferred checks
(L2), minimum raise (C12), short all-ins (K10), oversized and multiple chips (K8), the
raise cap (C11), short wagers (K9), side pots, split pots and the odd chip (K3), the
showdown order (C19), the all-in face-up prompt and the clock (K1, G8)."""

from __future__ import annotations

import pytest
from table_builder import PROFILES, Table

from controller.rules.decisions import AlertCode, Severity
from controller.rules.events import ChipsIn, ConsoleButton
from controller.rules.phases import Phase, Street

A = AlertCode


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.clause(
    "000-S2-postflop", "000-S2-preflop", "003-Flop-order", "003-OpeningDeal-utg", "004-AR-7"
)
def test_000_S2_preflop_004_AR_7_action_order_and_round_end(profile: str) -> None:
    """000 SECTION 2 PRE-FLOP BETTING [L72-78]; 004 AR-7; 003 [L85-87]: pre-flop action
    starts left of the big blind; the round ends when everyone matched; post-flop the first
    live seat left of the button acts first (000-S2-postflop, 003-Flop-order)."""
    t = Table(profile, 4).post_blinds().deal()
    assert t.snap.to_act == 4
    t.chips(4, 100)
    assert t.snap.to_act == 1
    t.fold(1)
    assert t.snap.to_act == 2
    t.chips(2, 50)
    assert t.snap.to_act == 3
    t.press(ConsoleButton.ACK)  # the big blind checks his option
    assert t.phase is Phase.BOARD
    t.flop()
    assert t.snap.to_act == 2
    assert t.alerts == []


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.clause("000-S3-bet-7b", "002-OutOfTurn-1")
def test_000_S3_bet_7b_002_OutOfTurn_call_out_of_turn_judged_per_profile(profile: str) -> None:
    """000 BETTING 7 [L156]-[L158]; 002 Action out of turn [L129]; 003 Betting [L61]; 004
    AR-13 [L67] (C13): a call out of turn is flagged and the pointer stays. When nothing
    changed before its turn it stands (000: a call stays a call; 002/TDA/Robert's: binding);
    003: the floor decides (ACK: it stands); 004: the wager was taken back at once, so at its
    turn the seat acts afresh."""
    t = Table(profile, 4).post_blinds().deal().mark()
    t.chips(2, 50)  # the small blind calls before seat 4 and seat 1
    a = t.alert(A.ACTION_OUT_OF_TURN)
    assert a.seat == 2 and a.severity is Severity.WARNING
    assert t.snap.to_act == 4
    t.chips(4, 100).chips(1, 100)
    if profile == "shaved-dog-004":
        assert "take" in a.remedy and "back" in a.remedy and a.clause.startswith("004 AR-13")
        assert t.snap.to_act == 2 and t.snap.seat(2).bet == 50  # type: ignore[union-attr]
        return
    if profile == "club-003":
        assert t.snap.to_act == 2
        assert "floor" in t.alerts[-1].remedy and t.alerts[-1].clause.startswith("003")
        t.press(ConsoleButton.ACK)
    assert any("stands" in i.text for i in t.instructions)
    assert t.snap.to_act == 3
    assert t.snap.seat(2).bet == 100  # type: ignore[union-attr]


@pytest.mark.parametrize("profile", [p for p in PROFILES if p != "shaved-dog-004"])
@pytest.mark.clause("002-OutOfTurn-2")
def test_002_OutOfTurn_2_action_changed_bet_returned(profile: str) -> None:
    """002 Action out of turn [OutOfTurn-2]; 000 BETTING 7b-7c: if the action changed before
    the seat's turn (a raise), the out-of-turn chips come back and the seat has all options.
    (004 AR-13: the chips were taken back at once; test_wagers.py.)"""
    t = Table(profile, 4).post_blinds().deal().chips(2, 50).chips(4, 300).mark().fold(1)
    a = t.alert(A.ACTION_OUT_OF_TURN)
    assert "return" in a.remedy and a.seat == 2
    assert t.snap.to_act == 2


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.clause("002-NonStdFolds-1", "002-OutOfTurn-3")
def test_002_NonStdFolds_1_fold_out_of_turn_is_binding(profile: str) -> None:
    """002 Non-Standard Folds [L161] (K13): a fold out of turn is flagged and binding."""
    t = Table(profile, 4).post_blinds().deal().mark().fold(2)
    assert t.alert(A.ACTION_OUT_OF_TURN).seat == 2
    assert not t.snap.seat(2).in_hand  # type: ignore[union-attr]
    assert t.snap.to_act == 4


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.clause("000-S3-bet-1", "003-Betting-checkraise")
def test_000_S3_bet_1_inferred_checks_and_check_raise(profile: str) -> None:
    """L2 + 000 BETTING 1 [L149] / 003 [L57]: post-flop, a bet from a later seat means the
    seats before it checked (no alert); a checked seat may then raise (check-raise)."""
    t = Table(profile, 4).post_blinds().deal().call_round().flop().mark()
    assert t.snap.to_act == 2
    t.chips(4, 100)  # seats 2 and 3 checked
    assert t.codes == []
    assert t.snap.to_act == 1
    t.chips(1, 100).chips(2, 300)  # check-raise
    assert t.codes == []
    assert t.snap.current_bet == 300


@pytest.mark.clause("000-S3-bet-3", profiles=("a2c-000",))
def test_000_S3_bet_3_minimum_raise_rulebook_example() -> None:
    """000 BETTING AND RAISING 3 [L151] (C12): 200 -> 400 -> 600, then a raise of 400 to
    1,000: the next minimum is 1,400; a short raise is flagged 'make it 1400'."""
    t = Table("a2c-000", 6, stack=5000, sb=100, bb=200).post_blinds().deal().mark()
    t.chips(4, 400).chips(5, 600).chips(6, 1000)
    assert t.codes == []
    t.chips(1, 1300)
    a = t.alert(A.RAISE_SHORT)
    assert "1400" in a.remedy and a.seat == 1


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.clause("000-S3-bet-4", "002-Raises-3")
def test_000_S3_bet_4_002_Raises_3_short_all_in_does_not_reopen(profile: str) -> None:
    """000 BETTING 4 [L152]; 002 Raises (K10): an all-in short of a full raise does not
    reopen the betting to a seat that already acted: it may only call."""
    t = Table(profile, {1: 1000, 2: 450, 3: 1000, 4: 1000}).post_blinds().deal()
    t.chips(4, 300).chips(1, 300).chips(2, 400)  # seat 2 all-in to 450: a raise of 150
    assert t.snap.seat(2).all_in  # type: ignore[union-attr]
    t.fold(3).mark().chips(4, 650)  # seat 4 tries to re-raise to 950
    a = t.alert(A.RAISE_NOT_ALLOWED)
    assert a.seat == 4 and "call only" in a.remedy
    assert t.snap.seat(4).bet == 450  # type: ignore[union-attr]


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.clause("000-S3-bet-9", "002-Oversize-a")
def test_000_S3_bet_9_002_Oversize_a_single_oversized_chip_is_a_call(profile: str) -> None:
    """000 BETTING 9 [L160]; 002 Oversized Chip Betting [L141] (K8): bet 400, a single 1,000
    chip with no declaration is a call; change is given."""
    t = Table(profile, 4, stack=5000, sb=200, bb=400).post_blinds().deal().mark()
    t.chips(4, 1000, 1000)
    a = t.alert(A.OVERSIZED_CHIP)
    assert "600" in a.remedy and a.severity is Severity.INFO
    assert t.snap.seat(4).bet == 400  # type: ignore[union-attr]
    assert t.snap.current_bet == 400


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.clause("002-MultiChip-1")
def test_002_MultiChip_1_several_same_chips_rulebook_example(profile: str) -> None:
    """002 Multiple Chip Betting [L145]; TDA 47 (K8): blinds 200-400, raise to 1,200, two
    1,000 chips are a call where the rule applies; elsewhere they raise to 2,000."""
    t = Table(profile, 4, stack=5000, sb=200, bb=400).post_blinds().deal()
    t.chips(4, 1200).mark().chips(1, 2000, 1000, 1000)
    if t.profile.multiple_chip_rule:
        assert t.alert(A.MULTIPLE_CHIPS).seat == 1
        assert t.snap.current_bet == 1200
    else:
        assert t.codes == []
        assert t.snap.current_bet == 2000
    assert t.profile.multiple_chip_rule is (profile in ("tda-2024", "vistancia-002"))


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.clause("000-S3-bet-2", "003-Betting-nolimit", "004-AR-9")
def test_004_AR_9_three_raise_limit_vs_000_S3_bet_2_unlimited(profile: str) -> None:
    """004 AR-9 (C11): three raises per round, a fourth is a call; 000 BETTING 2 [L150] and
    003 Betting [L55]: unlimited (never alert on the count)."""
    t = Table(profile, 4, stack=100000).post_blinds().deal()
    t.chips(4, 200).chips(1, 400).chips(2, 550).mark().chips(3, 700)
    if profile == "shaved-dog-004":
        a = t.alert(A.RAISE_LIMIT)
        assert a.seat == 3 and "004 AR-9" in a.clause
        assert t.snap.current_bet == 600
    else:
        assert t.codes == []
        assert t.snap.current_bet == 800


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.clause("000-S3-bet-11", "002-AcceptedAction-1", "004-AR-8")
def test_000_S3_bet_11_002_AcceptedAction_wager_short(profile: str) -> None:
    """000 BETTING 11 [L162]; 002 Accepted Action [L149] (K9): a call short of the bet (not
    all-in) must be brought up; the seat stays to act."""
    t = Table(profile, 4).post_blinds().deal().mark().chips(4, 60)
    a = t.alert(A.WAGER_SHORT)
    assert "40 short" in a.remedy
    assert t.snap.to_act == 4
    t.chips(4, 40)
    assert t.snap.to_act == 1


@pytest.mark.clause("002-AllinFaceUp-1", "003-SidePots-allin", "004-TG-26", profiles=("club-003",))
def test_003_SidePots_allin_three_all_in_for_different_amounts() -> None:
    """003 Betting & Side Pots [L131-133]; 000 SECTION 1 all-in 1 / 002-AllinFaceUp-1 /
    004-TG-26: three players all-in for different amounts build a main pot and two side
    pots; each goes to the best eligible hand; the face-up prompt comes once."""
    t = Table("club-003", {1: 200, 2: 500, 3: 1000, 4: 1000}).post_blinds()
    t.deal({1: "AsAd", 2: "KsKd", 3: "QsQd", 4: "3c5h"}, order=[2, 3, 4, 1])
    t.chips(4, 1000).chips(1, 200).chips(2, 450).chips(3, 900)
    assert t.alert(A.ALL_IN_FACE_UP).severity is Severity.INFO
    assert t.snap.chips == 2700
    t.flop("2s", "7d", "9c").turn("Jh").river("4c")
    assert t.phase is Phase.COMPLETE
    rec = t.records[-1]
    pots = [(p.amount, p.eligible, p.winners) for p in rec.pots]
    assert pots == [(800, (1, 2, 3, 4), (1,)), (900, (2, 3, 4), (2,)), (1000, (3, 4), (3,))]
    assert {s.seat: s.end_stack for s in rec.seats} == {1: 800, 2: 900, 3: 1000, 4: 0}
    assert t.codes.count(A.ALL_IN_FACE_UP) == 1
    assert t.snap.chips == 2700  # seat 4 busted and left: 2,700 chips among three


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.clause("002-OddChip-1")
def test_002_OddChip_1_split_pot_odd_chip_left_of_button(profile: str) -> None:
    """002 Awarding Odd Chips [L63]; TDA 20; Robert's (K3): a split pot's odd chip goes to
    the first winner left of the button."""
    t = Table(profile, 3, sb=25, bb=50).post_blinds()
    t.deal({2: "2c3d", 3: "4c5d", 1: "6c7d"})
    t.chips(1, 50).fold(2).press(ConsoleButton.ACK)  # pot 125: 50 + 25 + 50
    t.flop("As", "Ks", "Qs").call_round().turn("Js").call_round().river("Ts").call_round()
    rec = t.records[-1]
    assert rec.odd_chip
    (pot,) = rec.pots
    assert pot.amount == 125 and pot.winners == (1, 3)
    assert dict(pot.shares) == {3: 63, 1: 62}  # button 1: seat 3 is first to its left


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.clause("000-S3-show-6", "002-ShowdownOrder-1", "003-Showdown-order")
def test_002_ShowdownOrder_1_000_S3_show_6_last_aggressor_shows_first(profile: str) -> None:
    """002 Showdown Order [L47]; 000 SHOWDOWN 6 [L171]; 004 HE-10 (C19): the last aggressor
    of the final round shows first; with no bet, the first live seat left of the button."""
    t = Table(profile, 3).post_blinds().deal().call_round().flop().call_round()
    t.turn().call_round().river().chips(3, 100).chips(1, 100).mark().chips(2, 100)
    assert t.phase is Phase.COMPLETE
    first = [i for i in t.instructions if "shows first" in i.text]
    assert [i.seat for i in first] == [3]
    t2 = Table(profile, 3).post_blinds().deal().call_round().flop().call_round()
    t2.turn().call_round().river().mark().call_round()
    assert [i.seat for i in t2.instructions if "shows first" in i.text] == [2]


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.clause("002-Clock-1")
def test_002_Clock_1_G8_clock_60_plus_10_then_dead_hand(profile: str) -> None:
    """002 Calling for a Clock [L81]; G8 (every profile): 60 s, a 10-second countdown, then
    the hand is dead (a fold)."""
    t = Table(profile, 4).post_blinds().deal().mark()
    t.press(ConsoleButton.CLOCK)
    assert t.alert(A.CLOCK_STARTED).seat == 4
    t.tick(59)
    assert A.CLOCK_COUNTDOWN not in t.codes
    t.tick(2)
    assert t.alert(A.CLOCK_COUNTDOWN).severity is Severity.WARNING
    t.tick(5)
    assert A.CLOCK_EXPIRED not in t.codes
    t.tick(5)
    assert t.alert(A.CLOCK_EXPIRED).seat == 4
    assert not t.snap.seat(4).in_hand  # type: ignore[union-attr]
    assert t.snap.to_act == 1


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.clause("002-Clock-1")
def test_002_Clock_1_action_stops_the_clock(profile: str) -> None:
    """002 Calling for a Clock [L81]: any action by the seat stops the clock."""
    t = Table(profile, 4).post_blinds().deal().press(ConsoleButton.CLOCK).tick(30)
    t.chips(4, 100).mark().tick(60)
    assert t.codes == []
    assert t.snap.seat(4).in_hand  # type: ignore[union-attr]


def test_street_helper_is_flop() -> None:
    """Guard for the builder: flop() opens the flop street."""
    t = Table("tda-2024", 3).post_blinds().deal().call_round().flop()
    assert t.snap.street is Street.FLOP


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.clause("002-Clock-1")
def test_002_Clock_1_expiry_reported_with_a_late_rejected_action(profile: str) -> None:
    """002 Calling for a Clock [L81]: chips from the clocked seat after the 70 s are refused,
    and the step still reports the dead hand the elapsed time caused."""
    t = Table(profile, 4).post_blinds().deal().press(ConsoleButton.CLOCK)
    t.t += 75
    step = t.send(ChipsIn(t.now(), 4, 100))
    assert step.rejected is not None and step.rejected.code == "not_live"
    assert [a.code for a in step.alerts] == [A.CLOCK_COUNTDOWN, A.CLOCK_EXPIRED]
    assert not t.snap.seat(4).in_hand  # type: ignore[union-attr]
