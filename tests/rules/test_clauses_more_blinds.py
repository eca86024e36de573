# mypy: disable-error-code="comparison-overlap"
"""Clause tests of blinds and the button across hands: absent players dealt in (K30), blind
seats and amounts, short blinds, the button moving each hand and the dead button over an
orbit (C14). Names carry the clause-inventory ids (rulebook file and section)."""

from __future__ import annotations

import pytest
from table_builder import PROFILES, Table

from controller.rules.decisions import AlertCode, Severity
from controller.rules.phases import Phase

A = AlertCode


def play_out(t: Table) -> Table:
    t.call_round()
    t.flop("3s", "8d", "9h").call_round().turn("Th").call_round().river("4s").call_round()
    assert t.phase is Phase.COMPLETE
    return t.clear()


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.clause(
    "000-S1-absent-4", "000-S3-misdeal-1j", "003-Open-blindedout", "004-TG-3", "004-TG-5"
)
def test_000_S1_absent_4_003_Open_blindedout_absent_player_dealt_in_and_blinded(
    profile: str,
) -> None:
    """000 SECTION 1 item 4 [L33]; 003 opening rules [L9] (blinded out); 004 TG 3./9. [L91]
    and TG 5. [L95] (a placeholder stack posts like an absent player): an absent player is
    dealt in and his blind is posted from his stack without a "post" alert; the dealer
    mucking his hand is a fold. Dealing him out is a misdeal (000-S3-misdeal-1j). (Clause
    ids: 004-TG-3, 004-TG-5.)"""
    t = Table(profile, 4).presence(3, False).chips(2, 50).deal()
    assert t.codes == []
    s = t.snap
    me = s.seat(3)
    assert me is not None and me.in_hand and me.committed == 100 and me.stack == 900
    assert s.pot == 150
    t.chips(4, 100).chips(1, 100).chips(2, 50).fold(3)  # the dealer kills the absent hand
    me = t.snap.seat(3)
    assert me is not None and me.folded
    assert t.phase is Phase.BOARD and t.codes == []


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.clause("000-S2-blinds-2", "003-BeforeDeal-positions", "004-HE-1")
def test_000_S2_blinds_2_003_BeforeDeal_positions_004_HE_1_blind_seats_and_amounts(
    profile: str,
) -> None:
    """000 SECTION 2 THE BLINDS [L63-64]; 003 Before The Deal [L75, L77]; 004 HE 1. [L13]:
    SB left of the button, BB next, amounts from the level. Correct blinds raise nothing; a
    short SB that is not the whole stack is told to post the full blind; chips in another
    seat's zone before the deal are flagged (blinds out of position)."""
    ok = Table(profile, 4, button=2).post_blinds().deal()
    assert ok.codes == []
    s = ok.snap
    assert (s.small_blind_seat, s.big_blind_seat, s.pot) == (3, 4, 150)
    t = Table(profile, 4, button=2).chips(3, 30).chips(4, 100)
    # ruled as soon as the chips are in, before any card (issue 13)
    assert [(a.code, a.seat) for a in t.alerts] == [(A.BLINDS_NOT_POSTED, 3)]
    t.chips(1, 100)
    assert [(a.code, a.seat) for a in t.alerts][1:] == [(A.BLINDS_OUT_OF_POSITION, 1)]
    t.mark().deal()  # not corrected: ruled again at the first card
    short = t.alert(A.BLINDS_NOT_POSTED)
    assert short.seat == 3 and "20 more" in short.remedy
    assert "L42" in short.clause
    oop = t.alert(A.ACTION_OUT_OF_TURN)
    assert oop.seat == 1 and "before the deal" in oop.remedy
    assert t.snap.pot == 150  # the blinds are taken at the level's amounts


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.clause("000-S1-shortblind-6", "000-S5-blinds-1", "004-TG-16")
def test_000_S1_shortblind_6_004_TG_16_000_S5_blinds_1_short_all_in_blind(profile: str) -> None:
    """000 SECTION 1 item 6 (2nd run) [L42]; 004 TG 16. [L117]; 000 RULES FOR POSTING BLINDS 1.
    [L222]: a player short of the big blind is all-in for what he has; the amount to call
    stays the level's big blind; he plays for a main pot only and, winning, makes nothing
    up next hand."""
    t = Table(profile, {1: 1000, 2: 1000, 3: 60, 4: 1000}).post_blinds()
    t.deal({2: "2c7d", 3: "AsAd", 4: "3c8d", 1: "4c9d"})
    assert t.codes == []
    s = t.snap
    me = s.seat(3)
    assert me is not None and me.all_in and me.committed == 60
    assert s.current_bet == 100 and s.to_act == 4
    t.chips(4, 100).fold(1).chips(2, 50)  # a call of 100 is complete (no WAGER_SHORT)
    assert t.codes == [] and t.phase is Phase.BOARD
    t.flop("Ks", "Qd", "5h").call_round().turn("6c").call_round().river("Jc").call_round()
    rec = t.records[-1]
    pots = [(p.amount, p.eligible, p.winners) for p in rec.pots]
    assert pots[0] == (180, (2, 3, 4), (3,))
    assert {x.seat: x.end_stack for x in rec.seats}[3] == 180
    t.clear().mark().post_blinds().deal()
    assert t.codes == []  # no make-up owed by seat 3


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.clause("000-S2-dealer", "003-BeforeDeal-move")
def test_003_BeforeDeal_move_000_S2_dealer_button_moves_clockwise_each_hand(profile: str) -> None:
    """003 Before The Deal [L73]; 000 SECTION 2 THE DEALER [L60]: after each hand the button
    moves clockwise to the next player, and the blinds with it."""
    t = Table(profile, 4)
    seen = []
    for _ in range(5):
        s = t.snap
        seen.append((s.button, s.small_blind_seat, s.big_blind_seat))
        play_out(t.post_blinds().deal())
    assert seen == [(1, 2, 3), (2, 3, 4), (3, 4, 1), (4, 1, 2), (1, 2, 3)]


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.clause("000-S1-deadbtn-14", "003-Open-deadbutton", "004-TG-22")
def test_000_S1_deadbtn_14_003_Open_deadbutton_004_TG_22_everyone_posts_every_blind(
    profile: str,
) -> None:
    """000 SECTION 1 item 14 (2nd run) [L50]; 003 opening rules [L3]; 004 TG 22. [L129]:
    with a dead button, after an elimination every remaining player still posts the big
    blind once per orbit, and nobody posts it twice in a row; the blinds come from the
    computed seats with no alert."""
    t = Table(profile, {1: 1000, 2: 1000, 3: 100, 4: 1000, 5: 1000})
    t.post_blinds().deal({1: "AsAd", 2: "KsKd", 3: "2c7h", 4: "QsQd", 5: "JsJd"})
    play_out(t)  # seat 3 (the big blind) is eliminated
    assert t.snap.seat(3) is None
    bbs = []
    for _ in range(4):
        s = t.snap
        bbs.append(s.big_blind_seat)
        t.mark().post_blinds().deal()
        assert t.codes == []
        play_out(t)
    assert bbs == [4, 5, 1, 2]


@pytest.mark.clause("003-BeforeDeal-btnopen", profiles=("club-003",))
def test_003_BeforeDeal_btnopen_profile_uses_the_first_ace_draw() -> None:
    """003 Before The Deal [L71] vs Opening Deal [L83] (C15): the profile chooses the first-ace
    draw ([L71] describes who deals); the core applies it: the first ace gets the button."""
    t = Table("club-003")
    for s in (1, 2, 3, 4):
        t.seat(s)
    assert t.profile.draw_rule.value == "first-ace"
    t.start_draw().hole(1, "Kd").hole(2, "Ah")
    assert t.snap.button == 2
    assert "003" in t.instructions[-1].text


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.clause("003-BeforeDeal-first")
def test_003_BeforeDeal_first_deal_only_once_both_blinds_are_paid(profile: str) -> None:
    """003 Before The Deal [L79]; 000 SECTION 2 THE BLINDS [L62]: the dealer deals only once
    both blinds are in; the first card with the SB zone empty is flagged."""
    t = Table(profile, 4).chips(3, 100).hole(2)
    a = t.alert(A.BLINDS_NOT_POSTED)
    assert a.seat == 2 and a.severity is Severity.WARNING


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.clause("000-S3-misdeal-1g", "000-S3-misdeal-1h")
def test_000_S3_misdeal_1g_button_out_of_position(profile: str) -> None:
    """000 MISDEALS 1. bullet 7 [L114] (K23): the dealer plays the button one seat late
    (blinds from seats 3/4, first card to seat 3). The core keeps its computed positions: it
    names the seats that owe the blinds, flags the chips in the wrong zone, and the first card
    to the wrong seat is a misdeal within the cutoff (000-S3-misdeal-1h; 003 and 004 name no
    remedy: the floor decides, tests/rules/test_floor.py; 004 a note). The
    disc itself is not sensed."""
    t = Table(profile, 4)  # button 1: SB 2, BB 3
    t.chips(3, 50).chips(4, 100).hole(3)
    owed = {a.seat: a.remedy for a in t.alerts if a.code is A.BLINDS_NOT_POSTED}
    assert set(owed) == {2, 3} and "post 50" in owed[2] and "50 more" in owed[3]
    assert t.alert(A.ACTION_OUT_OF_TURN).seat == 4
    misdeal = t.alert(A.WRONG_FIRST_SEAT)
    assert "not seat 2" in misdeal.remedy
    if profile == "club-003":  # no remedy named: the floor decides
        assert misdeal.severity is Severity.WARNING and t.phase is Phase.DEALING
        return
    if profile == "shaved-dog-004":  # silent: a note, no misdeal, no hold
        assert misdeal.severity is Severity.INFO and t.phase is Phase.DEALING
        return
    assert misdeal.severity is Severity.CRITICAL
    assert t.phase is Phase.MISDEAL
    s = t.snap
    assert (s.button, s.small_blind_seat, s.big_blind_seat) == (1, 2, 3)
