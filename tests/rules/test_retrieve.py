"""A folded hand brought to the floor (controller/rules/retrieve.py): FLOOR right after the
fold holds the hand; the supervisor's badge shows the director the folded cards and whether
both are still read on the muck; ACK retrieves it, FLOOR lets the fold stand.
000 DEAD HANDS 2. [L126] (retrieve), IRREGULARITIES 3. [L135] (no redress), 002
Accidentally Killed / Fouled Hands [L169] (no redress, an uncalled bet returned)."""

from __future__ import annotations

import pytest
from table_builder import Table, tag

from controller.rules.decisions import AlertCode
from controller.rules.events import CardRemoved, ConsoleButton, ZoneKind
from controller.rules.phases import Phase

A = AlertCode
B = ConsoleButton
CARDS = {2: "2c7d", 3: "3c8d", 4: "4h9s", 1: "AsAd"}


def _seat1_folds(profile: str) -> Table:
    t = Table(profile, players=4).button(1).post_blinds().deal(CARDS)
    t.chips(4, 100).fold(1)  # seat 4 calls, seat 1 folds (on wrong information)
    assert t.snap.to_act == 2
    return t


@pytest.mark.parametrize("profile", ["a2c-000", "tda-2024", "club-003", "shaved-dog-004"])
@pytest.mark.clause("000-S3-dead-2")
def test_the_director_retrieves_an_identifiable_hand(profile: str) -> None:
    t = _seat1_folds(profile).mark().press(B.FLOOR)
    assert t.alert(A.FLOOR_CALLED).seat == 1
    t.mark().badge("td-1")
    shown = " ".join(i.text for i in t.instructions)
    assert "As and Ad" in shown and "both still read on the muck" in shown
    t.mark().press(B.ACK)
    d = t.alert(A.FLOOR_DECISION)
    assert "td-1" in d.remedy and "retrieved" in d.remedy and "DEAD HANDS 2" in d.clause
    assert t.snap.seat(1).in_hand and t.snap.to_act == 1
    # the cards go back to seat 1, which calls; the hand is played to its end
    for c in ("As", "Ad"):
        t.place(ZoneKind.HOLE, c, tag(c), seat=1)
    t.mark().chips(1, 100)
    assert t.alerts == []


def _play_out_from_seat1(t: Table) -> None:
    t.call_round().flop("Kh", "Qs", "5d").call_round().turn("Jd").call_round()
    t.river("3s").call_round()


@pytest.mark.clause("000-S3-dead-2", profiles=("a2c-000",))
def test_a_retrieved_hand_plays_to_its_end_and_wins() -> None:
    t = _seat1_folds("a2c-000").press(B.FLOOR).badge("td-1").press(B.ACK)
    for c in ("As", "Ad"):
        t.place(ZoneKind.HOLE, c, tag(c), seat=1)
    _play_out_from_seat1(t)
    rec = t.records[-1]
    assert rec.pots[0].winners == (1,) and t.stack(1) == 1300
    assert [a.kind for a in rec.actions if a.seat == 1 and a.kind == "fold"] == []
    assert any(a.code is A.FLOOR_DECISION for a in rec.alerts)


@pytest.mark.parametrize("profile", ["a2c-000", "shaved-dog-004"])
@pytest.mark.clause("000-S3-irreg-3")
def test_the_director_lets_the_fold_stand_no_refund(profile: str) -> None:
    """000 IRREGULARITIES 3. [L135]: a hand the dealer mucked has no redress; seat 4's call
    stays in the pot when its hand is killed."""
    t = Table(profile, players=4).button(1).post_blinds().deal(CARDS)
    t.chips(4, 100).chips(1, 100).fold(4)  # the dealer kills seat 4's hand (out of turn)
    t.mark().press(B.FLOOR).badge("td-1").mark().press(B.FLOOR)
    d = t.alert(A.FLOOR_DECISION)
    assert "fold stands" in d.remedy and "stay in the pot" in d.remedy
    assert not t.snap.seat(4).in_hand and t.snap.seat(4).stack == 900


@pytest.mark.clause("002-KilledHand-1", "000-S3-dead-2", profiles=("vistancia-002",))
def test_002_no_redress_and_the_uncalled_raise_comes_back() -> None:
    t = Table("vistancia-002", players=4).button(1).post_blinds().deal(CARDS)
    t.chips(4, 300)  # seat 4 raises to 300; nobody has called
    t.fold(4)  # the dealer kills seat 4's hand by mistake
    t.mark().press(B.FLOOR).badge("td-1")
    assert any("no redress" in i.text for i in t.instructions)
    t.mark().press(B.ACK)  # the director cannot retrieve it here
    d = t.alert(A.FLOOR_DECISION)
    assert "no redress" in d.remedy and "uncalled 200" in d.remedy and "002" in d.clause
    snap = t.snap
    assert not snap.seat(4).in_hand and snap.seat(4).stack == 900
    assert snap.current_bet == 100 and snap.to_act == 1
    t.mark().chips(1, 200)  # a raise of 100: a full raise again (seat 4's 200 is gone)
    assert A.RAISE_SHORT not in t.codes and t.snap.current_bet == 200
    t.call_round().flop("Kh", "Qs", "5d").call_round().turn("Jd").call_round()
    t.river("3s").call_round()
    assert t.stack(4) == 900 and t.records[-1].pots[0].winners == (1,)


@pytest.mark.clause("000-S3-dead-2", profiles=("a2c-000",))
def test_a_hand_not_read_whole_on_the_muck_is_not_retrieved() -> None:
    t = _seat1_folds("a2c-000")
    t.send(CardRemoved(t.now(), ZoneKind.MUCK, tag("Ad"), 0))  # one card lost in the muck
    t.press(B.FLOOR).mark().badge("td-1")
    assert any("1 of them read on the muck" in i.text for i in t.instructions)
    t.mark().press(B.ACK)
    assert A.FLOOR_DECISION not in t.codes and not t.snap.seat(1).in_hand
    assert any("cannot be retrieved" in i.text for i in t.instructions)
    t.mark().press(B.FLOOR)  # the director lets the fold stand
    assert A.FLOOR_DECISION in t.codes and t.snap.to_act == 2


@pytest.mark.clause("000-S3-dead-2", profiles=("a2c-000",))
def test_chips_during_the_hold_are_flagged_and_make_it_too_late() -> None:
    t = _seat1_folds("a2c-000").press(B.FLOOR).mark().chips(2, 50)
    assert A.FLOOR_PENDING in t.codes  # flagged, and taken as they come
    t.badge("td-1").mark().press(B.ACK)
    assert any("the action went on" in i.text for i in t.instructions)
    assert not t.snap.seat(1).in_hand


def test_floor_after_the_action_went_on_is_a_plain_floor_call() -> None:
    t = _seat1_folds("a2c-000").chips(2, 50).mark().press(B.FLOOR)
    assert t.alert(A.FLOOR_CALLED).seat == 0 and t.core.hand is not None
    assert t.core.hand.floor_hold == ""
    t.mark().press(B.ACK)  # the big blind's check: not eaten by a hold
    assert t.phase is Phase.BOARD
