# mypy: disable-error-code="comparison-overlap"
# (properties such as Table.phase change between reads; mypy narrows them as constants)
"""The showdown (issue 12): the show order, hands tabled (ACK) or mucked, the award among
tabled hands, and the alerts before the push, per profile.

Three seats, button 1 (SB 2, BB 3); seat 2 holds aces, seat 3 kings, seat 1 seven-deuce;
the board 9s 8d 4c Td 3h gives nobody more.
"""

from __future__ import annotations

import dataclasses

import pytest
from table_builder import PROFILES, Table

from controller.rules.decisions import AlertCode
from controller.rules.events import ConsoleButton
from controller.rules.phases import Phase
from controller.rules.profile import builtin_profile

A = AlertCode
CARDS = {1: "7c2d", 2: "AsAh", 3: "KsKh"}


def to_river(profile: str, *, river_bet: bool = False) -> Table:
    """Everyone calls pre-flop, the flop and turn check through; the river is checked
    through, or seat 3 bets 100 and both others call."""
    t = Table(profile, 3, table_hands=False).post_blinds().deal(CARDS).call_round()
    t.flop("9s", "8d", "4c").call_round().turn("Td").call_round().river("3h")
    if river_bet:
        t.press(ConsoleButton.ACK)  # seat 2, first to act, checks
        t.chips(3, 100).chips(1, 100).chips(2, 100)
    else:
        t.call_round()
    assert t.phase is Phase.SHOWDOWN
    return t


def ack(t: Table, n: int = 1) -> Table:
    for _ in range(n):
        t.press(ConsoleButton.ACK)
    return t


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.clause("002-ShowdownOrder-1")
def test_002_ShowdownOrder_1_no_river_bet_first_left_of_the_button(profile: str) -> None:
    """002 [L47]: with no bet on the river the player left of the button shows first, then
    clockwise; nothing is awarded before the hands are shown."""
    t = to_river(profile)
    first = [i for i in t.instructions if "shows first" in i.text]
    assert first[-1].seat == 2 and "then seats 3, 1" in first[-1].text
    assert not t.records
    ack(t)  # seat 2 tables
    assert t.phase is Phase.SHOWDOWN
    assert t.instructions[-1].seat == 3  # then seat 3 is prompted


@pytest.mark.parametrize("profile", PROFILES)
def test_002_ShowdownOrder_1_004_HE_10_river_bettor_shows_first(profile: str) -> None:
    """002 [L47], 004 HE-10: the last aggressor of the river shows first."""
    t = to_river(profile, river_bet=True)
    first = [i for i in t.instructions if "shows first" in i.text]
    assert first[-1].seat == 3 and "then seats 1, 2" in first[-1].text


@pytest.mark.parametrize("profile", PROFILES)
def test_every_hand_tabled_best_hand_wins(profile: str) -> None:
    t = to_river(profile, river_bet=True)
    ack(t, 3)
    if t.profile.kill_losers_before_award:  # 003: the losers are killed first
        t.fold(3).fold(1)
    assert t.phase is Phase.COMPLETE
    (rec,) = t.records
    assert [(p.amount, p.winners) for p in rec.pots] == [(600, (2,))]
    assert [(s.seat, s.shown) for s in rec.showdown] == [(3, True), (1, True), (2, True)]


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.clause("000-S3-show-1", "002-PlayBoard-1", "004-AR-6")
def test_000_S3_show_1_002_PlayBoard_1_004_AR_6_untabled_muck_relinquishes(profile: str) -> None:
    """000 [L166], 002 [L51], 004 AR-6: a hand mucked without being tabled has no claim:
    seat 2's aces go to the muck unshown, seat 3's tabled kings take the pot."""
    t = to_river(profile)
    t.mark().fold(2)  # seat 2, prompted first, mucks without tabling
    assert A.HAND_NOT_TABLED in t.codes
    assert t.phase is Phase.SHOWDOWN
    ack(t)  # seat 3 tables
    t.fold(1)  # seat 1 mucks
    assert t.phase is Phase.COMPLETE
    (rec,) = t.records
    assert [(p.amount, p.winners) for p in rec.pots] == [(300, (3,))]
    assert [(s.seat, s.shown) for s in rec.showdown] == [(2, False), (3, True), (1, False)]


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.clause("003-Showdown-muck")
def test_003_Showdown_muck_everyone_else_mucks_the_last_hand_wins_unshown(profile: str) -> None:
    t = to_river(profile)
    t.fold(2).fold(3)
    assert t.phase is Phase.COMPLETE
    (rec,) = t.records
    assert rec.pots[0].winners == (1,)
    assert [s.seat for s in rec.showdown] == [2, 3]  # seat 1 never showed


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.clause("002-KillWinning-1", "000-S3-show-2")
def test_002_KillWinning_1_000_S3_show_2_003_Betting_award_winner_to_the_muck_stops_dealer(
    profile: str,
) -> None:
    """002 [L59], 003 [L63], 000 [L167]: the tabled winning hand heads for the muck before
    the push: a critical alert; the tabled hand keeps its claim."""
    t = to_river(profile)
    ack(t, 2)  # seats 2 and 3 tabled
    t.mark().fold(2)  # the aces go to the muck
    alert = t.alert(A.WINNING_HAND_MUCKED)
    assert alert.seat == 2 and alert.severity.name == "CRITICAL"
    assert t.phase is Phase.SHOWDOWN
    t.fold(1)
    if t.profile.kill_losers_before_award:
        t.fold(3)
    assert t.phase is Phase.COMPLETE
    (rec,) = t.records
    assert rec.pots[0].winners == (2,)


@pytest.mark.clause("003-Betting-award", profiles=("club-003",))
def test_003_Betting_award_no_pot_until_the_losing_hands_are_killed() -> None:
    """003 [L63]: "No pot may be awarded until all losing hands have been killed". Tabling
    the last hand awards nothing: no alarm, the dealer is told which hands to kill
    (issue 24); LOSING_HAND_LIVE belongs to the dealer moving to award (ACK) while one is
    live."""
    t = to_river("club-003")
    ack(t, 3)
    assert t.phase is Phase.SHOWDOWN
    assert A.LOSING_HAND_LIVE not in t.codes
    kill = [i for i in t.instructions if "muck the losing hand" in i.text]
    assert sorted(i.seat for i in kill) == [1, 3]
    assert sorted(t.snap.kill_next) == [1, 3]  # the table names them (the console, scenarios)
    t.mark()
    ack(t)  # the dealer moves to award: the losing hands are live
    assert sorted(a.seat for a in t.alerts if a.code is A.LOSING_HAND_LIVE) == [1, 3]
    assert t.phase is Phase.SHOWDOWN
    t.fold(3)
    assert t.phase is Phase.SHOWDOWN
    t.fold(1)
    assert t.phase is Phase.COMPLETE
    assert t.records[0].pots[0].winners == (2,)


@pytest.mark.clause("000-S3-show-4", profiles=("a2c-000",))
def test_000_S3_show_4_other_profiles_award_once_every_hand_is_tabled() -> None:
    """000 [L169]: all hands exposed or mucked, the pot is awarded (no kill needed)."""
    t = to_river("a2c-000")
    ack(t, 3)
    assert t.phase is Phase.COMPLETE
    assert A.LOSING_HAND_LIVE not in t.codes


def test_a_profile_may_let_an_untabled_muck_keep_its_claim() -> None:
    prof = dataclasses.replace(builtin_profile("tda-2024"), untabled_muck_relinquishes=False)
    t = Table(prof, 3, table_hands=False).post_blinds().deal(CARDS).call_round()
    t.flop("9s", "8d", "4c").call_round().turn("Td").call_round().river("3h").call_round()
    t.fold(2)
    ack(t)
    t.fold(1)
    assert t.records[0].pots[0].winners == (2,)  # cards speak: the aces were read


def test_showdown_refuses_chips_and_an_ack_with_nothing_to_table() -> None:
    t = to_river("tda-2024")
    before = t.snap
    t.chips(2, 100)
    assert t.last().rejected is not None and t.snap == before
    core = t.core
    restored = type(core)(core.profile, "t1")
    restored.restore(core.export())  # the showdown survives an export and restore
    assert restored.snapshot() == core.snapshot()


def test_all_in_run_out_hands_are_tabled_at_once() -> None:
    """002 [L43]: all in and betting complete, the hands were turned face up before the
    board: the pot is awarded when the run-out is complete."""
    t = Table("tda-2024", {1: 300, 2: 300, 3: 300}, table_hands=False).post_blinds()
    t.deal(CARDS).chips(1, 300).chips(2, 250).chips(3, 200)
    t.flop("9s", "8d", "4c").turn("Td").river("3h")
    assert t.phase is Phase.COMPLETE
    (rec,) = t.records
    assert all(s.shown for s in rec.showdown)


def test_003_Showdown_uncalled_an_uncalled_bet_is_returned_with_an_instruction() -> None:
    """003 [L119], 002 [L169]: the part of a bet nobody called goes back to the bettor (an
    instruction to the dealer), and is not a pot won."""
    t = Table("tda-2024", {1: 1000, 2: 300, 3: 1000}, table_hands=False).post_blinds()
    t.deal(CARDS).chips(1, 500).mark().chips(2, 250).fold(3)  # seat 2 calls all in for 300
    t.flop("9s", "8d", "4c").turn("Td").river("3h")
    # (given with the award, once the run-out is complete)
    assert [i.text for i in t.instructions if "Uncalled" in i.text] == [
        "Uncalled bet: return 200 to seat 1"
    ]
    (rec,) = t.records
    assert rec.returned == ((1, 200),)
    assert [(p.amount, p.winners) for p in rec.pots] == [(700, (2,))]
    assert rec.seats[0].end_stack == 700 and rec.seats[1].end_stack == 700
