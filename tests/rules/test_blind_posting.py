"""Blinds ruled as they are posted, before the first card (issue 13, controller/rules/posting.py).

The rulebooks' words: the blinds are posted before the cards are dealt (000 SECTION 2 THE
BLINDS [L62]); the small blind left of the dealer, the big blind left of it "determined by
the tournament clock" ([L63-64]); the button stays until the appropriate blinds are paid and
the big blind is posted by the player due for it ([L50], [L223]). A wrong post corrected
before the deal must leave the deal clean; an over-posted big blind is the clock's amount,
so the excess is no raise.
"""

from __future__ import annotations

import pytest
from table_builder import PROFILES, Table

from controller.rules.decisions import AlertCode
from controller.rules.phases import Phase
from controller.rules.profile import builtin_profile

A = AlertCode


def pairs(t: Table) -> list[tuple[AlertCode, int]]:
    return [(a.code, a.seat) for a in t.alerts]


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.clause("000-S1-deadbtn-14", "000-S5-blinds-2")
def test_blinds_out_of_position_ruled_before_the_deal_and_corrected(profile: str) -> None:
    """000 [L50], [L223]: button 1, so the small blind is seat 2 and the big blind seat 3.
    Blinds put in one seat on (seats 3 and 4) are ruled when the chips land, naming the
    seats due; taken back and posted right, the deal that follows is clean and the hand is
    played on (no misdeal at the first card, 000-S3-misdeal-1g)."""
    t = Table(profile, 4, button=1).chips(3, 50)
    assert pairs(t) == []  # the big blind's seat, still posting: not ruled yet
    t.chips(4, 100)
    out = t.alert(A.BLINDS_OUT_OF_POSITION)
    assert out.seat == 4
    assert "small blind seat 2, big blind seat 3" in out.remedy
    assert "take back" in out.remedy
    assert t.phase is Phase.IDLE  # nothing dealt, nothing voided
    t.mark().take_back(4).take_back(3).chips(2, 50).chips(3, 100)
    assert t.codes == []
    t.deal()
    assert t.codes == []
    s = t.snap
    assert (s.pot, s.to_act, s.current_bet) == (150, 4, 100)
    t.chips(4, 100).chips(1, 100).chips(2, 50)
    assert t.codes == []


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.clause("000-S2-blinds-2", "004-HE-1", "003-BeforeDeal-positions")
def test_over_posted_big_blind_raises_nothing(profile: str) -> None:
    """000 SECTION 2 THE BLINDS [L64]: the big blind is determined by the clock; 004 HE 1.
    [L13] (the big blind is the first bet). 200 in the big blind's zone at 50/100 is ruled at
    once (take back 100); left there, it is ruled again at the deal, and the betting treats
    the blind as 100: a call of 100 is a call, the small blind completes with 50, and the big
    blind keeps his option (no raise was made)."""
    t = Table(profile, 4, button=1).chips(2, 50).chips(3, 200)
    over = t.alert(A.BLIND_OVERPOSTED)
    assert over.seat == 3 and "take back 100" in over.remedy and "L64" in over.clause
    t.mark().deal()
    assert [a.code for a in t.alerts] == [A.BLIND_OVERPOSTED]
    s = t.snap
    assert (s.pot, s.current_bet, s.to_act) == (150, 100, 4)
    t.mark().chips(4, 100).chips(1, 100).chips(2, 50)
    assert t.codes == []  # calls of the clock's big blind, not short calls of 200
    assert t.snap.to_act == 3  # the big blind's option: nobody raised
    t.chips(3, 200)  # he raises
    assert t.codes == [] and t.snap.current_bet == 300


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.clause("000-S2-blinds-2")
def test_corrected_over_post_deals_clean(profile: str) -> None:
    """000 [L64]: the excess taken back before the deal leaves nothing to rule."""
    t = Table(profile, 4, button=1).chips(2, 50).chips(3, 200).mark()
    t.take_back(3, 100).deal()
    assert t.codes == [] and t.snap.pot == 150


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.clause("000-S2-blinds-2", "000-S1-shortblind-6")
def test_short_blind_ruled_once_both_blinds_are_in(profile: str) -> None:
    """000 [L63-64]: the small blind is half the big blind; [L42]: only a player short of
    chips posts less. 30 in the small blind is ruled as soon as the big blind is in (the
    small blind may still be posting before that); the 20 added, the deal is clean. A small
    blind all in for his 30 is not ruled."""
    t = Table(profile, 4, button=1).chips(2, 30)
    assert t.codes == []
    t.chips(3, 100)
    short = t.alert(A.BLINDS_NOT_POSTED)
    assert short.seat == 2 and "20 more" in short.remedy
    t.mark().chips(2, 20).deal()
    assert t.codes == [] and t.snap.pot == 150
    allin = Table(profile, {1: 1000, 2: 30, 3: 1000, 4: 1000}, button=1)
    allin.chips(2, 30).chips(3, 100).deal()
    assert allin.codes == []


EACH_ANTE = [p for p in PROFILES if builtin_profile(p).ante_style.value == "each"]


@pytest.mark.parametrize("profile", EACH_ANTE)
@pytest.mark.clause("000-S2-blinds-2", "000-S1-shortblind-6")
def test_short_blind_with_antes_ruled_when_the_last_seat_completes_the_set(profile: str) -> None:
    """000 [L63-64]: the small blind is half the big blind, and (ante_style "each") every
    seat owes the ante too. The small blind's 55 of 60 is not ruled while the big blind is
    still to post; the big blind's chips complete the set, and the small blind is ruled
    then, though a seat between them (1, the ante alone) posted exactly. (The ruling once
    looked only at seats whose post equalled the chips just added, after the first seat it
    checked: the small blind here went unruled until the first card.) The 5 added, the
    deal is clean and the hand is played to its end."""
    t = Table(profile, 4, button=1, ante=10)
    t.chips(1, 10).chips(2, 55).chips(4, 10)
    assert t.codes == []  # the big blind's seat still to post: nothing ruled short yet
    t.chips(3, 110)
    short = t.alert(A.BLINDS_NOT_POSTED)
    assert [a.code for a in t.alerts] == [A.BLINDS_NOT_POSTED]
    assert short.seat == 2 and "55 posted of 60" in short.remedy and "5 more" in short.remedy
    t.mark().chips(2, 5).deal()
    assert t.codes == [] and t.snap.pot == 190 and t.snap.to_act == 4
    t.fold(4).fold(1).fold(2).clear()
    assert t.codes == []
    assert [t.stack(s) for s in (1, 2, 3, 4)] == [990, 940, 1080, 990]


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.clause("000-S1-levels-7", "003-Blinds-next", "002-NewLimits-1")
def test_posts_after_a_level_change_are_ruled_at_the_new_level(profile: str) -> None:
    """G11 (the product's boundary, 000 [L36], 002 New Limits, 003 [L43]): a level set
    between hands, before any blind of the coming hand, is that hand's level; blinds posted
    at the old amounts are ruled short at once, and posted at the new amounts deal clean.
    A level set once a blind is in waits one more hand, and the old amounts are right."""
    t = Table(profile, 3, button=1)
    t.post_blinds().deal()
    t.fold(1).fold(2).clear()  # the big blind wins; button 2, SB 3, BB 1
    t.level(100, 200).mark().chips(3, 50).chips(1, 100)
    assert sorted(pairs(t)) == [(A.BLINDS_NOT_POSTED, 1), (A.BLINDS_NOT_POSTED, 3)]
    t.mark().chips(3, 50).chips(1, 100).deal()
    assert t.codes == [] and t.snap.pot == 300
    t.fold(2).fold(3).clear()  # button 3, SB 1, BB 2
    t.mark().chips(1, 100).level(200, 400).chips(2, 200).deal()
    assert t.codes == [] and t.snap.pot == 300


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.clause("000-S1-levels-7", "003-Blinds-next")
def test_level_set_after_the_first_hands_blinds_waits_a_hand(profile: str) -> None:
    """G11 for the very first hand (it used to apply at once): the blinds of hand 1 are in
    when the level is set, so hand 1 is played at the old level and hand 2 at the new."""
    t = Table(profile, 3, button=1).chips(2, 50).chips(3, 100)
    t.level(100, 200).mark().deal()
    assert t.codes == [] and t.snap.pot == 150 and t.snap.current_bet == 100
    t.fold(1).fold(2).clear()
    t.mark().chips(3, 100).chips(1, 200).deal()
    assert t.codes == [] and t.snap.pot == 300 and t.snap.current_bet == 200


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.clause("000-S1-headsup-15", "004-TG-24")
def test_heads_up_blinds_swapped_are_one_ruling_naming_both_seats(profile: str) -> None:
    """000 RULES FOR POSTING BLINDS 4 [L225], 004 TG 24. [L133]: "In heads-up play with two
    blinds, the small blind is on the button". Button 1: seat 1 owes the small blind (50),
    seat 2 the big blind (100). The chips go into the wrong zones (100 before the button,
    50 before seat 2): one BLINDS_OUT_OF_POSITION naming both seats, to swap them, not an
    over-posted blind plus a short one. The big blind's amount alone on the button is not
    ruled until the other seat posts (it may be the first half of the swap). Swapped, the
    deal is clean and the hand is played to its end: the button acts first pre-flop."""
    t = Table(profile, 2, button=1)
    assert (t.snap.small_blind_seat, t.snap.big_blind_seat) == (1, 2)
    t.chips(1, 100)
    assert t.codes == []
    t.chips(2, 50)
    assert pairs(t) == [(A.BLINDS_OUT_OF_POSITION, 2)]
    out = t.alert(A.BLINDS_OUT_OF_POSITION)
    assert "seat 1" in out.remedy and "seat 2" in out.remedy and "swap them" in out.remedy
    assert "L225" in out.clause and "TG 24" in out.clause
    assert t.phase is Phase.IDLE
    t.mark().take_back(1, 50).chips(2, 50)  # the dealer swaps them
    assert t.codes == []
    t.deal({1: "AsAd", 2: "7c2d"})
    assert t.codes == []
    s = t.snap
    assert (s.pot, s.to_act, s.current_bet) == (150, 1, 100)
    t.call_round().flop("Ah", "Kh", "Qh").call_round().turn("5c").call_round()
    t.river("9d").call_round()
    assert t.codes == []
    assert t.phase is Phase.COMPLETE
    (rec,) = t.records
    assert [(p.amount, p.winners) for p in rec.pots] == [(200, (1,))]
    assert {x.seat: x.end_stack for x in rec.seats} == {1: 1100, 2: 900}


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.clause("000-S1-headsup-15")
def test_heads_up_blinds_swapped_left_at_the_deal_are_one_ruling(profile: str) -> None:
    """The swap not corrected before the first card: ruled once more at the deal, still one
    alert naming both seats (not BLIND_OVERPOSTED and BLINDS_NOT_POSTED)."""
    t = Table(profile, 2, button=1).chips(1, 100).chips(2, 50).mark().deal()
    assert pairs(t) == [(A.BLINDS_OUT_OF_POSITION, 2)]
    assert "before the action" in t.alert(A.BLINDS_OUT_OF_POSITION).remedy


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.clause("000-S2-blinds-2")
def test_heads_up_big_blind_amount_on_the_button_is_over_posted_once_the_other_posts(
    profile: str,
) -> None:
    """The button's 100 is held back (maybe half a swap); the big blind then posts his 100:
    it was an over-post after all (000 [L64]), ruled then, on the button's seat."""
    t = Table(profile, 2, button=1).chips(1, 100)
    assert t.codes == []
    t.chips(2, 100)
    assert pairs(t) == [(A.BLIND_OVERPOSTED, 1)]
    assert "take back 50" in t.alert(A.BLIND_OVERPOSTED).remedy
