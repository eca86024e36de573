# mypy: disable-error-code="comparison-overlap"
# (properties such as Table.phase change between reads; mypy narrows them as constants)
"""Clause tests of the table across hands: the dead button (C14), heads-up (C6, K22), new
players (C16), level changes (C17, G11) and the button draw (C15, G4, G7)."""

from __future__ import annotations

import dataclasses

import pytest
from table_builder import PROFILES, Table

from controller.rules.cards import Card
from controller.rules.decisions import AlertCode
from controller.rules.engine import TableCore
from controller.rules.events import (
    CardPlaced,
    ConsoleButton,
    SeatPlayer,
    StartButtonDraw,
    UnseatPlayer,
    ZoneKind,
)
from controller.rules.phases import Phase, Street
from controller.rules.profile import builtin_profile

A = AlertCode


def play_out(t: Table) -> Table:
    """Everyone calls or checks down to the river."""
    t.call_round()
    t.flop("3s", "8d", "9h").call_round().turn("Th").call_round().river("4s").call_round()
    assert t.phase is Phase.COMPLETE
    return t.clear()


def bust(profile: str, victim: int) -> Table:
    """4 seats, button 1, SB 2, BB 3: ``victim`` is all-in for its blind and loses."""
    stacks = {1: 1000, 2: 1000, 3: 1000, 4: 1000}
    stacks[victim] = {2: 50, 3: 100}[victim]
    hole = {1: "AsAd", 2: "KsKd", 3: "QsQd", 4: "JsJd"}
    hole[victim] = "2c7h"
    t = Table(profile, stacks).post_blinds().deal(hole)
    return play_out(t)


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize("victim", [2, 3], ids=["sb-busts", "bb-busts"])
@pytest.mark.clause("000-S5-blinds-2", "003-MissedBlinds-bb", "003-MissedBlinds-sb", "004-TG-22")
def test_000_S5_blinds_2_003_MissedBlinds_dead_button_after_elimination(
    profile: str, victim: int
) -> None:
    """C14. TDA 32 / 000 RULES FOR POSTING BLINDS 2 [L223]: the BB advances to the next
    player; SB and button follow even to empty seats (dead button, dead SB). 004 TG-22
    [L129]: the button "may stay in front of the same player for two consecutive hands":
    it stays with the player instead of going to the empty seat.
    003 [L49]: the SB busts -> the button does not move; [L51]: the BB busts -> the button
    moves and there is no SB."""
    t = bust(profile, victim)
    s = t.snap
    assert s.seat(victim) is None
    expected = {
        ("dead", 2): (2, 3, 4),  # dead button on the empty seat 2
        ("dead", 3): (2, 3, 4),  # dead small blind on the empty seat 3
        ("dead-003", 2): (1, 3, 4),  # the button stays
        ("dead-003", 3): (2, 3, 4),  # the button moves, no small blind
        ("dead-keep-player", 2): (1, 3, 4),  # 004 TG-22: the button stays with seat 1
        ("dead-keep-player", 3): (2, 3, 4),  # the button moves to a player, dead SB
    }[(t.profile.button_rule.value, victim)]
    assert (s.button, s.small_blind_seat, s.big_blind_seat) == expected
    t.mark().post_blinds().deal()
    assert t.codes == []
    rec_sb = [x for x in t.snap.seats if x.committed == 50]
    assert rec_sb == ([] if expected[1] == victim else rec_sb)
    assert t.snap.pot == (100 if expected[1] == victim else 150)


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.clause("000-S1-headsup-15", "002-HeadsUp-1", "002-HeadsUp-2", "004-TG-24")
def test_000_S1_headsup_15_002_HeadsUp_1_3_TDA_34B_heads_up(profile: str) -> None:
    """000 SECTION 1 item 15 [L51]; 002 Button in Heads-up [L101]; 004 TG-24; product
    decision: heads-up the SB is on the button, the BB gets the first card and the button
    the last, the button acts first pre-flop and last after the flop."""
    t = Table(profile, {3: 1000, 7: 1000}, button=3)
    s = t.snap
    assert (s.button, s.small_blind_seat, s.big_blind_seat) == (3, 3, 7)
    assert t.deal_order() == [7, 3]
    t.post_blinds().hole(7).hole(3).hole(7).hole(3)
    assert t.codes == []
    assert t.snap.to_act == 3
    t.chips(3, 50).press(ConsoleButton.ACK).flop()
    assert t.snap.to_act == 7
    t.call_round().turn().call_round().river().call_round().clear()
    s = t.snap
    assert (s.button, s.small_blind_seat, s.big_blind_seat) == (7, 7, 3)


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.clause("000-S1-headsup-15")
def test_000_S1_headsup_15_first_card_to_button_heads_up_is_wrong_seat(profile: str) -> None:
    """Product decision (heads-up first card to the big blind; 002 HeadsUp-2, TDA 34-B):
    the button's first card is the wrong first seat (000 MISDEALS bullet 8)."""
    t = Table(profile, {3: 1000, 7: 1000}, button=3).post_blinds().hole(3)
    assert t.codes == [A.WRONG_FIRST_SEAT]


@pytest.mark.parametrize("bb_first", [True, False])
def test_heads_up_bb_first_card_setting_decides_the_first_seat(bb_first: bool) -> None:
    """The profile's ``heads_up_bb_first_card``: true (every packaged profile) deals heads-up
    from the big blind, false from the button; the other seat's first card is the wrong first
    seat, and the right order draws no alert."""
    prof = dataclasses.replace(builtin_profile("tda-2024"), heads_up_bb_first_card=bb_first)
    first, second = (7, 3) if bb_first else (3, 7)
    t = Table(prof, {3: 1000, 7: 1000}, button=3).post_blinds()
    t.hole(first).hole(second).hole(first).hole(second)
    assert t.codes == []
    wrong = Table(prof, {3: 1000, 7: 1000}, button=3).post_blinds().hole(second)
    assert wrong.codes == [A.WRONG_FIRST_SEAT]


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.clause("002-HeadsUp-3")
def test_002_HeadsUp_3_going_heads_up_nobody_posts_bb_twice(profile: str) -> None:
    """002 Button in Heads-up [L101] (K22): when a bust leaves two players, the big blind
    advances so nobody posts it twice; the SB is on the button; no dead position."""
    t = Table(profile, {1: 1000, 2: 1000, 3: 100}).post_blinds()
    t.deal({1: "AsAd", 2: "KsKd", 3: "2c7h"})
    play_out(t)  # seat 3 (BB) busts; seats 1 and 2 remain
    s = t.snap
    assert s.big_blind_seat == 1  # seat 3 posted last; the BB moves on to seat 1
    assert s.button == s.small_blind_seat == 2


# button 3, SB 5, BB 7 after the first hand (seats 1, 3, 5, 7); new player at 4 or 6
NEW_PLAYER = {
    # profile: (does a newcomer at seat 4 wait?, at seat 6?, at seat 3's neighbour 5? n/a)
    "tda-2024": (True, False),  # SB to button: seat 4 sits between the button and the SB
    "vistancia-002": (True, False),
    "a2c-000": (True, True),  # BB to button: seats 4 and 6
    "roberts-rules": (True, True),
    "shaved-dog-004": (False, False),  # only the SB or button seat waits (TG-23)
    "club-003": (False, False),  # silent: dealt in at once
}


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize("seat", [4, 6])
@pytest.mark.clause("000-S5-blinds-5", "002-Balance-1", "004-TG-23")
def test_000_S5_blinds_5_002_Balance_1_004_TG_23_new_player_waits_C16(
    profile: str, seat: int
) -> None:
    """C16: 000 RULES FOR POSTING BLINDS 5 [L226] (not between the BB and the button), TDA /
    002 Breaking/Balancing [L31] (not between the SB and the button), 004 TG-23 (at once
    unless in the SB or button seat), 003 silent."""
    t = Table(profile, {1: 1000, 3: 1000, 5: 1000, 7: 1000}).post_blinds().deal()
    play_out(t)
    s = t.snap
    assert (s.button, s.small_blind_seat, s.big_blind_seat) == (3, 5, 7)
    t.seat(seat, 1000, "newcomer")
    waits = NEW_PLAYER[profile][[4, 6].index(seat)]
    t.mark().post_blinds().deal()
    assert t.codes == []
    me = t.snap.seat(seat)
    assert me is not None and me.in_hand is (not waits)


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.clause("000-S1-levels-7", "002-NewLimits-1", "003-Blinds-next")
def test_000_S1_levels_7_002_NewLimits_003_Blinds_next_level_from_next_hand_G11(
    profile: str,
) -> None:
    """C17 / G11: a level set during a hand applies from the next hand, not this one."""
    t = Table(profile, 3).post_blinds().deal()
    t.level(100, 200)
    assert (t.snap.small_blind, t.snap.big_blind) == (50, 100)
    play_out(t)
    t.chips(3, 100).chips(1, 200).deal()
    s = t.snap
    assert (s.small_blind, s.big_blind) == (100, 200)
    assert s.pot == 300
    assert t.records[-1].big_blind == 100


def test_G11_level_after_blinds_posted_waits_one_more_hand() -> None:
    """G11: 'a new level applies from the first hand whose first blind is posted after the
    level changed': blinds already posted keep the hand at the old level."""
    t = Table("tda-2024", 3).post_blinds().deal()
    play_out(t)
    t.post_blinds().level(100, 200).deal()
    assert t.snap.big_blind == 100


@pytest.mark.parametrize("profile", [p for p in PROFILES if p != "club-003"])
@pytest.mark.clause("000-S1-button-5", "004-TG-21")
def test_000_S1_button_5_004_TG_21_high_card_draw_suit_order_G4(profile: str) -> None:
    """000 SECTION 1 item 5 [L34]; 004 TG-21; G4: high card wins the button, ties by suit
    spades > hearts > diamonds > clubs."""
    t = Table(profile)
    for s in (1, 2, 3, 4):
        t.seat(s)
    t.start_draw()
    assert t.phase is Phase.DRAW
    t.hole(1, "Kc").hole(2, "Kh").hole(3, "Ks").hole(4, "Qs")
    assert t.snap.button == 3
    assert "G4" in t.instructions[-1].text
    t.clear()
    assert t.phase is Phase.IDLE
    s = t.snap
    assert (s.small_blind_seat, s.big_blind_seat) == (4, 1)


@pytest.mark.clause("003-OpeningDeal-ace", profiles=("club-003",))
def test_003_OpeningDeal_ace_first_ace_draw_G7() -> None:
    """003 Opening Deal [L83]; G7: cards go round the table until the first ace; a pass with
    no ace goes on."""
    t = Table("club-003")
    for s in (1, 2, 3):
        t.seat(s)
    t.start_draw()
    t.hole(1, "Kc").hole(2, "2s").hole(3, "Qh")
    assert t.snap.button == 0 and t.phase is Phase.DRAW
    t.hole(1, "3c").hole(2, "Ad").hole(3, "As")
    assert t.snap.button == 2
    assert "first ace" in t.instructions[-1].text


def test_street_reaches_river_in_play_out() -> None:
    t = Table("tda-2024", 3).post_blinds().deal()
    t.call_round().flop().call_round().turn().call_round().river()
    assert t.snap.street is Street.RIVER


@pytest.mark.parametrize(
    ("profile", "expected"),
    [
        ("a2c-000", (2, 3, 4)),  # 000 [L223]: the button and the SB in front of empty seats
        ("shaved-dog-004", (1, 3, 4)),  # 004 TG-22 [L129]: the button stays with seat 1
    ],
)
@pytest.mark.clause("000-S5-blinds-2", "004-TG-22")
def test_000_S5_blinds_2_004_TG_22_both_blinds_eliminated(
    profile: str, expected: tuple[int, int, int]
) -> None:
    """Both blinds (seats 2 and 3) are eliminated in one hand: the big blind goes to the
    player due (seat 4), the small blind is the seat that was big blind (empty: a dead small
    blind). Under 000 the button follows to the empty seat that was small blind; under 004
    it stays in front of the same player (seat 1)."""
    t = Table(profile, {1: 1000, 2: 50, 3: 100, 4: 1000, 5: 1000})
    t.post_blinds().deal({1: "AsAd", 2: "2c7h", 3: "2h6c", 4: "KsKd", 5: "QsQd"})
    play_out(t)
    s = t.snap
    assert s.seat(2) is None and s.seat(3) is None
    assert (s.button, s.small_blind_seat, s.big_blind_seat) == expected


def test_a_button_draw_left_with_no_one_seated_waits_for_players() -> None:
    """Found by the ``can()`` property test: every player left during the button draw, and a
    card then dealt for the draw made the core raise (the highest card of nobody). The draw
    now waits: no button, no crash, and it goes on once players sit down again."""
    core = TableCore(builtin_profile("a2c-000"), "t1")
    for ev in (SeatPlayer(0, 1, "p1", 1000), SeatPlayer(0, 2, "p2", 1000), StartButtonDraw(0)):
        assert core.handle(ev).rejected is None
    core.handle(CardPlaced(1, ZoneKind.HOLE, "A-Kc", Card.parse("Kc"), seat=1))
    core.handle(UnseatPlayer(2, 1))
    core.handle(UnseatPlayer(2, 2))
    step = core.handle(CardPlaced(3, ZoneKind.HOLE, "A-Qs", Card.parse("Qs"), seat=2))
    assert core.snapshot().button == 0 and step.rejected is None and not step.decisions
    for ev in (SeatPlayer(4, 3, "p3", 1000), SeatPlayer(4, 4, "p4", 1000)):
        assert core.handle(ev).rejected is None
    core.handle(CardPlaced(5, ZoneKind.HOLE, "A-2c", Card.parse("2c"), seat=3))
    core.handle(CardPlaced(5, ZoneKind.HOLE, "A-As", Card.parse("As"), seat=4))
    assert core.snapshot().button == 4
