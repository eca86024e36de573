"""Hand-for-hand at the table (issue 25, handforhand.py), and G11 with a level pushed while a
hand is in progress: the rules core decides both, with the venue's commands as core events.

- ``HoldDeal`` (the venue's ``hold_deal``, sent when this table has completed the round's
  hand) holds the next deal: the dealer is told; the first hole card of a deal while held
  is DEALT_WHILE_HELD (warning, the dealer's), in the new hand's record; a ``ReleaseDeal``
  (sent to every table at once) lets the next deal go without an alert.
- The hold is the table's state: it survives an export and restore (a restart).
"""

from __future__ import annotations

import pytest
from table_builder import PROFILES, Table

from controller.rules.catalogue import CATALOGUE, Category
from controller.rules.decisions import AlertCode, Severity
from controller.rules.engine import TableCore
from controller.rules.events import HoldDeal, ReleaseDeal
from controller.rules.phases import Phase
from controller.rules.profile import builtin_profile


def _one_hand(t: Table) -> Table:
    t.post_blinds().deal().call_round()
    t.flop("3s", "8d", "9h").call_round().turn("Th").call_round().river("4s").call_round()
    assert t.phase is Phase.COMPLETE
    return t


@pytest.mark.parametrize("profile", PROFILES)
def test_a_held_table_that_deals_raises_dealt_while_held(profile: str) -> None:
    t = _one_hand(Table(profile, 3))
    t.mark()
    t.send(HoldDeal(t.now(), 4))
    assert t.last().rejected is None and t.snap.phase is Phase.COMPLETE
    assert any("Hand-for-hand (round 4)" in i.text for i in t.instructions)
    t.clear().mark()
    t.post_blinds()
    assert t.codes == []  # the posts are not the deal
    t.deal()
    alert = t.alert(AlertCode.DEALT_WHILE_HELD)
    assert alert.severity is Severity.WARNING and "round 4" in alert.remedy
    assert t.codes.count(AlertCode.DEALT_WHILE_HELD) == 1  # the deal's first card only
    t.call_round().flop("3s", "8d", "9h").call_round().turn("Th").call_round()
    t.river("4s").call_round()
    assert AlertCode.DEALT_WHILE_HELD in [a.code for a in t.records[-1].alerts]


@pytest.mark.parametrize("profile", PROFILES)
def test_released_tables_deal_without_an_alert(profile: str) -> None:
    t = _one_hand(Table(profile, 3))
    t.send(HoldDeal(t.now(), 1))
    t.clear().mark()
    t.send(ReleaseDeal(t.now()))
    assert t.last().rejected is None
    assert any("deal the next hand" in i.text for i in t.instructions)
    t.post_blinds().deal()
    assert AlertCode.DEALT_WHILE_HELD not in t.codes
    # a release at a table not held (the last table to complete the round) says nothing
    t.mark().send(ReleaseDeal(t.now()))
    assert t.last().rejected is None and t.instructions == []


def test_a_hold_mid_hand_holds_the_next_deal_and_survives_a_restart() -> None:
    t = Table("shaved-dog-004", 3).post_blinds().deal()
    t.send(HoldDeal(t.now(), 2))  # the table is told while its hand still plays
    assert t.last().rejected is None and t.phase is not Phase.COMPLETE
    again = TableCore(builtin_profile("shaved-dog-004"))
    again.restore(t.core.export())
    assert again.deal_hold == 2
    t.send(HoldDeal(t.now(), 0))
    assert t.last().rejected is not None and t.last().rejected.code == "bad_round"
    assert t.core.deal_hold == 2  # refused: unchanged


@pytest.mark.parametrize("profile", PROFILES)
def test_a_hold_that_arrives_after_the_next_deal_began_tells_the_floor(profile: str) -> None:
    """The table completed the round's hand and its dealer dealt the next one before the
    venue's hold arrived: the hold says so at once to the floor (HOLD_AFTER_DEAL, not the
    dealer's error DEALT_WHILE_HELD; in that hand's record), and the hand is played out (no
    rulebook makes it a misdeal: handforhand.py)."""
    t = _one_hand(Table(profile, 3)).clear()
    t.post_blinds().deal().mark()
    t.send(HoldDeal(t.now(), 3))
    assert t.last().rejected is None and t.core.deal_hold == 3
    alert = t.alert(AlertCode.HOLD_AFTER_DEAL)
    assert alert.severity is Severity.WARNING and "before the hold arrived" in alert.remedy
    assert CATALOGUE[AlertCode.HOLD_AFTER_DEAL].category is Category.FLOOR
    assert AlertCode.DEALT_WHILE_HELD not in t.codes  # not the dealer's error
    t.mark().send(HoldDeal(t.now(), 3))  # the same hold again (the service's resync)
    assert AlertCode.HOLD_AFTER_DEAL not in t.codes
    t.call_round().flop("3s", "8d", "9h").call_round().turn("Th").call_round()
    t.river("4s").call_round()
    assert t.phase is Phase.COMPLETE and t.records[-1].hand_no == 2
    assert [a.code for a in t.records[-1].alerts] == [AlertCode.HOLD_AFTER_DEAL]


@pytest.mark.parametrize("profile", PROFILES)
def test_a_hold_between_hands_raises_nothing(profile: str) -> None:
    """The hold as the service sends it: the round's hand complete (its cards still on the
    table, or cleared and the next blinds posted), no deal begun."""
    t = _one_hand(Table(profile, 3)).mark()
    t.send(HoldDeal(t.now(), 1))
    t.clear().post_blinds()
    t.send(HoldDeal(t.now(), 2))
    assert t.codes == []


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.clause("000-S1-levels-7", "004-TG-7")
def test_G11_a_level_pushed_mid_hand_applies_at_the_next_hand(profile: str) -> None:
    """G11, 000 SECTION 1 items 6-7 [L35-36], 004 TG 6-7 [L97-99]: the venue's clock
    pushes a level while a hand is being played (after the flop); the hand ends at the old
    blinds and the next hand posts the new ones."""
    t = Table(profile, 3).post_blinds().deal().call_round().flop("3s", "8d", "9h")
    t.level(100, 200)
    assert t.last().rejected is None
    assert (t.snap.small_blind, t.snap.big_blind) == (50, 100)
    t.call_round().turn("Th").call_round().river("4s").call_round()
    assert t.records[-1].big_blind == 100
    t.clear().mark()
    sb, bb = t.snap.small_blind_seat, t.snap.big_blind_seat
    t.chips(sb, 100).chips(bb, 200).deal()
    assert (t.snap.small_blind, t.snap.big_blind, t.snap.pot) == (100, 200, 300)
    assert t.codes == []
