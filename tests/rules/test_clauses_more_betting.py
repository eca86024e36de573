# mypy: disable-error-code="comparison-overlap"
"""Clause tests of betting and the showdown beyond tests/rules/test_clauses_betting.py: the
big blind's option (K16), the small blind completing, the minimum raise in every profile
(C12) and the 50% rule, an oversized chip with no bet facing (K8), the all-in face-up
prompt, cards speak, uncalled bets and the pots shown before the award (C19), and 003's
wrong card count inside its window (C3, C4). Names carry the clause-inventory ids."""

from __future__ import annotations

import pytest
from table_builder import PROFILES, Table

from controller.rules.decisions import AlertCode, Severity
from controller.rules.events import ConsoleButton, ZoneKind
from controller.rules.phases import Phase, Street

A = AlertCode


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.clause("000-S5-blinds-3", "003-OpeningDeal-bb", "004-HE-liveblind")
def test_000_S5_blinds_3_003_OpeningDeal_bb_004_HE_liveblind_bb_option(profile: str) -> None:
    """000 RULES FOR POSTING BLINDS 3. [L224]; 003 Opening Deal [L89]; 004 HE live blind
    [L35] (K16): with no raise, the round is not complete before the big blind acts, and
    he may raise; the others then act again."""
    t = Table(profile, 4).post_blinds().deal()
    t.chips(4, 100).chips(1, 100).chips(2, 50)
    assert t.phase is Phase.BETTING and t.snap.to_act == 3
    t.mark().chips(3, 300)  # the big blind raises his option
    assert t.codes == []
    assert t.snap.current_bet == 400 and t.snap.to_act == 4


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.clause("000-S5-blinds-3")
def test_000_S5_blinds_3_bb_may_raise_after_a_short_all_in(profile: str) -> None:
    """000 RULES FOR POSTING BLINDS 3. [L224]: the blind's option survives an all-in smaller
    than a minimum raise: the big blind, who has not acted, may still raise."""
    t = Table(profile, {1: 1000, 2: 1000, 3: 1000, 4: 150}).post_blinds().deal()
    t.chips(4, 150)  # all-in for 150: a raise of 50, short of a full raise
    t.chips(1, 150).chips(2, 100).mark().chips(3, 250)  # BB raises to 350
    assert A.RAISE_NOT_ALLOWED not in t.codes and A.RAISE_SHORT not in t.codes
    assert t.snap.current_bet == 350


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.clause("004-HE-blinds")
def test_004_HE_blinds_small_blind_completes(profile: str) -> None:
    """004 HE blind example [L33]: the SB is an opening bet, the BB a raise; the next player
    calls the BB; the SB may complete (50 more is a call)."""
    t = Table(profile, 3).post_blinds().deal()
    t.chips(1, 100)
    s = t.snap
    me = s.seat(2)
    assert me is not None and s.current_bet - me.bet == 50
    t.mark().chips(2, 50)
    assert t.codes == [] and t.snap.to_act == 3


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.clause("002-Raises-1", "003-Flop-anyamount")
def test_002_Raises_1_003_Flop_anyamount_minimum_raise_in_every_profile(profile: str) -> None:
    """002 Raises [L137]; 003 Flop [L99] read (product decision) as no upper limit, the
    minimum raise applies in every profile: after a bet of 300 a raise must add 300."""
    t = Table(profile, 3, stack=5000).post_blinds().deal().call_round().flop().mark()
    t.chips(2, 300).chips(3, 700)  # a raise of 400: full
    assert t.codes == []
    t.chips(1, 900)  # to 900: a raise of 200 (< 400, and < half of it under 002's 50% rule)
    assert t.alert(A.RAISE_SHORT).seat == 1


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.clause("002-Raises-2")
def test_002_Raises_2_short_raise_completed_or_a_call(profile: str) -> None:
    """002 Raises [L137]; TDA 43-B (C12): a raise of 50% or more of the last raise that falls
    short is completed to the minimum; under 50% (002's profile reading) it is a call and the
    excess comes back. Profiles without the rule flag any short raise with the minimum."""
    t = Table(profile, 4, stack=5000).post_blinds().deal().mark()
    t.chips(4, 160)  # raise of 60 over 100: >= 50%
    a = t.alert(A.RAISE_SHORT)
    assert "make it 200" in a.remedy and t.snap.to_act == 4
    t.chips(4, 40)
    assert t.snap.current_bet == 200 and t.snap.to_act == 1
    t.mark().chips(1, 230)  # a raise of 30 over 200: < 50% of the last raise (100)
    a = t.alert(A.RAISE_SHORT)
    if t.profile.short_raise_completion:
        assert "is a call" in a.remedy and "give 30 back" in a.remedy
        assert t.snap.current_bet == 200 and t.snap.to_act == 2
    else:
        assert "make it 300" in a.remedy and t.snap.to_act == 1
    assert t.profile.short_raise_completion is (profile in ("tda-2024", "vistancia-002"))


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.clause("002-Oversize-c")
def test_002_Oversize_c_single_chip_with_no_bet_facing_is_a_bet(profile: str) -> None:
    """002 Oversized Chip Betting [L141]: not facing a bet, a single chip put in without a
    declaration is a bet of its full value."""
    t = Table(profile, 3, stack=5000).post_blinds().deal().call_round().flop().mark()
    t.chips(2, 1000, 1000)
    assert t.codes == []
    assert t.snap.current_bet == 1000 and t.snap.to_act == 3


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.clause("000-S1-allin-1", "003-Betting-allin")
def test_000_S1_allin_1_003_Betting_allin_face_up_prompt(profile: str) -> None:
    """000 SECTION 1 item 1 (3rd run) [L52]; 003 Betting [L65]; 002 Face Up for All-Ins; 004
    TG-26: once a player is all-in and the betting is complete, all hands are tabled (a
    prompt: face up is not sensed, L1); the board is then dealt with no further betting."""
    t = Table(profile, {1: 1000, 2: 400, 3: 1000}).post_blinds().deal()
    t.fold(1).chips(2, 350).mark()
    assert A.ALL_IN_FACE_UP not in t.codes  # seat 3 still to act
    t.chips(3, 300)
    a = t.alert(A.ALL_IN_FACE_UP)
    assert a.severity is Severity.INFO and "face up" in a.remedy
    t.flop("2s", "7d", "9c").turn("Jh").river("4c")
    assert t.phase is Phase.COMPLETE
    assert t.codes == [A.ALL_IN_FACE_UP]


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.clause("000-S2-showdown", "002-Declarations-1", "003-Showdown-best")
def test_000_S2_showdown_003_Showdown_best_002_Declarations_1_cards_speak(profile: str) -> None:
    """000 SECTION 2 THE SHOWDOWN [L97-99]; 003 Showdown [L123] + rankings [L135-175]; 002
    Declarations [L39]: the best five of seven wins by the tags (one, two or no hole cards),
    whatever is said; the record names the hand."""
    t = Table(profile, 3).post_blinds()
    t.deal({2: "Ah2c", 3: "KdKc", 1: "7h8h"})
    t.call_round().flop("9h", "Th", "2d").call_round().turn("Js").call_round()
    t.river("3c").call_round()
    rec = t.records[-1]
    (pot,) = rec.pots
    assert pot.winners == (1,) and "Straight" in pot.hand_name
    assert {s.seat: s.won for s in rec.seats} == {1: 300, 2: 0, 3: 0}


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.clause("003-Showdown-uncalled")
def test_003_Showdown_uncalled_no_show_and_uncalled_bet_returned(profile: str) -> None:
    """003 Showdown [L119]; 002 Accidentally Killed (uncalled bet): a bet nobody calls wins
    without a showdown (no show-order prompt) and its uncalled part comes back."""
    t = Table(profile, 3).post_blinds().deal().chips(1, 300).mark().fold(2).fold(3)
    assert t.phase is Phase.COMPLETE
    assert not [i for i in t.instructions if "shows first" in i.text]
    rec = t.records[-1]
    assert {s.seat: s.end_stack for s in rec.seats} == {1: 1150, 2: 950, 3: 900}


@pytest.mark.clause("000-S3-show-3", profiles=("a2c-000",))
def test_000_S3_show_3_pots_and_winners_shown_in_the_record() -> None:
    """000 THE SHOWDOWN 3. [L168]: the pot, the side pots and the winners are shown before
    the award (the hand record carries each pot, who was eligible and who won)."""
    t = Table("a2c-000", {1: 200, 2: 1000, 3: 1000}).post_blinds()
    t.deal({2: "KsKd", 3: "QsQd", 1: "AsAd"})
    t.chips(1, 200).chips(2, 950).chips(3, 900)
    t.flop("2s", "7d", "9c").turn("Jh").river("4c")
    rec = t.records[-1]
    assert [(p.amount, p.eligible, p.winners) for p in rec.pots] == [
        (600, (1, 2, 3), (1,)),
        (1600, (2, 3), (2,)),
    ]


@pytest.mark.clause("003-DealerErrors-count-a", profiles=("club-003",))
def test_003_DealerErrors_count_a_wrong_count_before_two_act_is_a_misdeal() -> None:
    """003 Dealer Errors [L193] count a): a wrong number of cards found before two players
    act is a misdeal (no burn exception): an extra card, or a seat short at the first
    action."""
    t = Table("club-003", 4).post_blinds().deal().mark().hole(2, "9s")
    a = t.alert(A.EXTRA_HOLE_CARD)
    assert a.severity is Severity.CRITICAL and "003" in a.clause
    assert t.phase is Phase.MISDEAL
    t2 = Table("club-003", 4).post_blinds()
    for s in (2, 3, 4, 1, 2, 3, 4):
        t2.hole(s)  # seat 1 is one card short
    t2.mark().chips(4, 100)
    a = t2.alert(A.MISSING_HOLE_CARD)
    assert a.severity is Severity.CRITICAL and a.seat == 1
    assert t2.phase is Phase.MISDEAL


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.clause(
    "000-S2-flop", "000-S2-turnriver", "003-River-1", "003-Turn-1", "004-HE-3to9", "004-HE-general"
)
def test_000_S2_flop_turnriver_003_Turn_1_River_1_004_HE_3to9_HE_general_clean_streets(
    profile: str,
) -> None:
    """000 SECTION 2 THE FLOP / TURN / RIVER [L80, L89, L93]; 003 Turn [L103], River [L109];
    004 HE 3.-9. [L17-29] and HE general [L9]: one burn then three board cards, then one
    burn and one card twice; a clean hand raises nothing and records 3 burns and 5 cards.
    A sixth board card is flagged and ignored. (Clause ids: 000-S2-flop, 000-S2-turnriver,
    003-Turn-1, 003-River-1, 004-HE-3to9, 004-HE-general.)"""
    t = Table(profile, 3).post_blinds().deal().call_round()
    t.flop("Ah", "Kh", "Qh").call_round().turn("Jc").call_round().river("Td").chips(2, 100)
    assert t.codes == []
    assert t.snap.street is Street.RIVER and len(t.snap.board) == 5
    t.board("9s")
    a = t.alert(A.TOO_MANY_BOARD_CARDS)
    assert "sixth" in a.remedy and len(t.snap.board) == 5
    t.remove("9s", ZoneKind.BOARD).call_round()
    rec = t.records[-1]
    assert len(rec.burns) == 3 and len(rec.board) == 5
    assert [str(c) for c in rec.board] == ["Ah", "Kh", "Qh", "Jc", "Td"]


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.clause("003-River-1")
def test_003_River_1_sixth_card_in_an_unbet_river_does_not_end_the_hand(profile: str) -> None:
    """003 River [L109]: a sixth board card in a river round nobody bet yet is flagged; it is
    not taken as the end of the river betting."""
    t = Table(profile, 3).post_blinds().deal().call_round().flop().call_round()
    t.turn().call_round().river().mark().board("9s")
    assert t.codes == [A.TOO_MANY_BOARD_CARDS]
    assert t.phase is Phase.BETTING
    t.press(ConsoleButton.ACK)
    assert t.snap.to_act == 3
