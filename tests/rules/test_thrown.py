"""Cards thrown into another player's hand (000 SECTION 3 DEAD HANDS 3. [L127]): the
thrower's hand is dead, the seat they landed on keeps its own two cards. A single card beside
its own seat is a neighbouring antenna's read while the player lifts his cards (L5), not a
throw (controller/rules/thrown.py)."""

from __future__ import annotations

import pytest
from table_builder import Table, tag

from controller.rules.decisions import AlertCode
from controller.rules.events import CardRemoved, ZoneKind
from controller.rules.phases import Phase

A = AlertCode
ALL = ("a2c-000", "tda-2024", "vistancia-002", "club-003", "shaved-dog-004")
CARDS = {2: "2c7d", 3: "3c8d", 4: "4h9s", 5: "5h9d", 1: "AsAd"}


def _dealt(profile: str) -> Table:
    t = Table(profile, players=5).button(1).post_blinds()
    return t.deal(CARDS)


def _move(t: Table, card: str, src: int, dst: int) -> None:
    """The reader layer's report of a card carried from seat src to seat dst."""
    t.send(CardRemoved(t.now(), ZoneKind.HOLE, tag(card), src))
    t.place(ZoneKind.HOLE, card, tag(card), seat=dst)


@pytest.mark.parametrize("profile", ALL)
@pytest.mark.clause("000-S3-dead-3")
def test_a_card_carried_across_the_table_kills_the_throwers_hand(profile: str) -> None:
    t = _dealt(profile)
    assert t.snap.to_act == 4
    t.chips(4, 100)  # seat 4 calls, then throws a card into seat 1's hand
    t.mark()
    _move(t, "4h", 4, 1)
    a = t.alert(A.DEAD_HAND)
    assert a.seat == 4 and "DEAD HANDS 3" in a.clause
    assert "Remove 4h from seat 1" in a.remedy and "As and Ad" in a.remedy
    snap = t.snap
    assert not snap.seat(4).in_hand and snap.seat(1).in_hand
    assert snap.to_act == 5 and snap.pot == 250  # seat 4's call stays in the pot
    # the hand plays on to its end; seat 1 holds its own two aces
    t.remove("4h", ZoneKind.HOLE, 1).to_muck("9s")
    t.call_round().flop("Kh", "Qs", "5d").call_round().turn("Jd").call_round()
    t.river("3s").call_round()
    rec = t.records[-1]
    assert rec.pots[0].winners == (1,)
    assert t.stack(4) == 900


@pytest.mark.clause("000-S3-dead-3", profiles=("a2c-000",))
def test_one_card_beside_its_own_seat_is_a_neighbours_read() -> None:
    """L5: seat 4's lifted card read by seat 5's antenna is no throw; it comes back."""
    t = _dealt("a2c-000").chips(4, 100).mark()
    _move(t, "4h", 4, 5)
    assert A.DEAD_HAND not in t.codes and t.snap.seat(4).in_hand
    _move(t, "4h", 5, 4)
    assert t.alerts == [] and t.snap.seat(4).in_hand and t.snap.to_act == 5


@pytest.mark.parametrize("profile", ALL)
@pytest.mark.clause("000-S3-dead-3")
def test_both_cards_into_the_neighbours_hand_kill_it(profile: str) -> None:
    t = _dealt(profile).chips(4, 100).mark()
    _move(t, "4h", 4, 5)
    assert A.DEAD_HAND not in t.codes
    _move(t, "9s", 4, 5)
    a = t.alert(A.DEAD_HAND)
    assert a.seat == 4 and "Remove 4h and 9s from seat 5" in a.remedy
    assert t.snap.to_act == 5 and not t.snap.seat(4).in_hand


@pytest.mark.clause("000-S3-dead-3", profiles=("a2c-000",))
def test_the_last_opponent_thrown_in_ends_the_hand() -> None:
    """Two hands left: the thrower's dead hand leaves one player, who wins the pot."""
    t = _dealt("a2c-000").fold(4).fold(5).fold(1)
    assert t.snap.to_act == 2
    t.mark()
    _move(t, "2c", 2, 3)
    assert A.DEAD_HAND not in t.codes  # seats 2 and 3 are neighbours: one card is L5
    _move(t, "7d", 2, 3)
    assert A.DEAD_HAND in t.codes and t.phase is Phase.COMPLETE
    assert t.records[-1].pots[0].winners == (3,)
