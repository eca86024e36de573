"""Remedies for action out of turn followed to the end of the round (issue 13): the three
rulings the scenario library had as known failures (xfail). Each expected ruling is the
rulebook's words, quoted with file and line in the docstring.

Table: 4 players, button 1, small blind 2 (50), big blind 3 (100); pre-flop seat 4 acts
first, post-flop seat 2."""

from __future__ import annotations

import pytest
from table_builder import PROFILES, Table

from controller.rules.decisions import AlertCode
from controller.rules.events import ConsoleButton
from controller.rules.phases import Phase

A = AlertCode


def bet(t: Table, seat: int) -> int:
    s = t.snap.seat(seat)
    assert s is not None
    return s.bet


@pytest.mark.clause("000-S3-bet-7c", profiles=("a2c-000",))
def test_000_S3_bet_7c_raise_taken_back_is_still_only_a_call() -> None:
    """000 BETTING AND RAISING 7 bullet 3 [L158]: "A player who raises out of turn can only
    call the current bet when it is their turn to act, unless another player raises". The
    chips returned do not make the raise an action: the turn comes back to seat 1, and its
    raise then is only a call."""
    t = Table("a2c-000", 4).post_blinds().deal().mark()
    t.chips(1, 300)  # the button raises while seat 4 is to act
    assert t.codes == [A.ACTION_OUT_OF_TURN]
    t.take_back(1, 300)  # the dealer returns the chips
    t.chips(4, 100)  # seat 4 calls: nobody raised
    assert t.snap.to_act == 1 and bet(t, 1) == 0
    t.chips(1, 300)  # at its turn seat 1 raises again
    a = t.alert(A.RAISE_NOT_ALLOWED)
    assert a.seat == 1 and "only call" in a.remedy and "give 200 back" in a.remedy
    assert t.codes.count(A.ACTION_OUT_OF_TURN) == 1  # in turn now: not out of turn again
    assert bet(t, 1) == 100 and t.snap.current_bet == 100
    assert t.snap.to_act == 2
    t.chips(2, 50).press(ConsoleButton.ACK)  # the small blind calls, the big blind checks
    assert t.phase is Phase.BOARD and t.snap.pot == 400


@pytest.mark.clause("000-S3-bet-7c", profiles=("a2c-000",))
def test_000_S3_bet_7c_options_return_once_another_player_raises() -> None:
    """000 [L158]: "... unless another player raises, then the player gets all options
    back": after seat 4 raises, seat 1 (whose raise out of turn was taken back) may
    re-raise."""
    t = Table("a2c-000", 4).post_blinds().deal().mark()
    t.chips(1, 300).take_back(1, 300)
    t.chips(4, 300)  # seat 4 raises in turn
    assert t.snap.to_act == 1
    t.chips(1, 800)  # seat 1 re-raises to 800
    assert A.RAISE_NOT_ALLOWED not in t.codes
    assert bet(t, 1) == 800 and t.snap.current_bet == 800 and t.snap.to_act == 2


@pytest.mark.parametrize("profile", [p for p in PROFILES if p != "a2c-000"])
def test_other_profiles_take_back_rulings_unchanged(profile: str) -> None:
    """The limit is 000's alone: under 002 (and TDA, Robert's) a raise out of turn whose
    action did not change is binding (002 [L129]); 003 lets the floor rule (003 [L61]); 004
    has the wager taken back and the true position act (004 AR-13 [L67]). None of them
    raises RAISE_NOT_ALLOWED for the same sequence."""
    t = Table(profile, 4).post_blinds().deal().mark()
    t.chips(1, 300).take_back(1, 300).chips(4, 100)
    if profile == "club-003":
        t.press(ConsoleButton.ACK)  # the floor lets it stand
    if t.snap.to_act == 1:
        t.chips(1, 300)
    assert A.RAISE_NOT_ALLOWED not in t.codes


@pytest.mark.clause("004-AR-13", profiles=("shaved-dog-004",))
def test_004_AR_13_wrong_opener_takes_back_and_true_position_acts() -> None:
    """004 Betting and Folding 13 [L67]: "If the wrong person opens the bet, the action will
    be corrected to the true position if the next player has not yet acted. The incorrect
    bettor takes back the wager and the true position must bet." Seat 1 opens while seat 4
    is to act; it takes the wager back; seat 4 acts; the turn then comes to seat 1."""
    t = Table("shaved-dog-004", 4).post_blinds().deal().mark()
    t.chips(1, 300)
    a = t.alert(A.ACTION_OUT_OF_TURN)
    assert a.seat == 1 and "take the wager back" in a.remedy and t.snap.to_act == 4
    t.mark().take_back(1, 300)
    assert t.alerts == [] and t.snap.to_act == 4
    t.chips(4, 100)
    assert t.alerts == [] and bet(t, 1) == 0 and t.snap.to_act == 1
