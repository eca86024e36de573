"""Who is dealt in, under 004, is the floor's when the dealer gets it wrong (issue 13,
controller/rules/entitled.py). 004 TG 3. [L91] / TG 9. [L103]: "An absent player is always
dealt a hand"; TG 23. [L131]: new players are dealt in at once "unless they sit down in the
small blind or button position. In these two cases, they must wait until the button
passes." Its misdeal rules (AR Misdeals 1.-5. [L41-L49]) name neither error, so the core
holds the hand for the floor; 000 and 002 make both a misdeal (tests/rules/test_clauses_deal.py).
"""

from __future__ import annotations

import pytest
from table_builder import Table

from controller.rules.decisions import AlertCode, Severity
from controller.rules.events import ConsoleButton
from controller.rules.phases import Phase

A = AlertCode
P004 = "shaved-dog-004"


def _newcomer_on_the_button() -> Table:
    """Hand 1 at seats 2-4 (button 2) played out; for hand 2 (button 3, SB 4, BB 2) a new
    player sits down in seat 3, the button seat: he waits (TG-23)."""
    t = Table(P004, {2: 1000, 3: 1000, 4: 1000}, button=2)
    t.post_blinds().deal().call_round()
    t.flop().call_round().turn().call_round().river().call_round()
    assert t.phase is Phase.COMPLETE
    t.clear().unseat(3).seat(3, 1000, "newcomer")
    s = t.snap
    assert (s.button, s.small_blind_seat, s.big_blind_seat) == (3, 4, 2)
    return t.mark().post_blinds()


@pytest.mark.clause("004-TG-23", profiles=(P004,))
def test_004_TG_23_new_player_on_the_button_dealt_in_is_a_floor_ruling() -> None:
    """The newcomer on the button is dealt a card: the floor is called (no misdeal), the
    deal goes on; ACK after the supervisor's badge: he plays the hand dealt to him, and the
    hand is played to its end with him in it."""
    t = _newcomer_on_the_button()
    t.hole(4).hole(2).hole(3)  # the button's card to the newcomer
    a = t.alert(A.CARD_TO_EMPTY_SEAT)
    assert a.severity is Severity.WARNING and a.seat == 3 and "floor" in a.remedy.lower()
    assert "TG 23" in a.clause
    assert t.phase is Phase.DEALING and A.MISDEAL not in t.codes
    t.hole(4).hole(2).hole(3)
    assert t.phase is Phase.BETTING and t.snap.to_act == 3  # left of the big blind
    t.mark().press(ConsoleButton.MISDEAL)  # the dealer alone cannot rule
    assert t.phase is Phase.BETTING and A.MISDEAL not in t.codes
    t.badge("td-1").press(ConsoleButton.ACK)
    assert "play on" in t.alert(A.FLOOR_DECISION).remedy
    assert any("plays the hand dealt" in i.text for i in t.instructions)
    t.mark().call_round()
    assert t.codes == [] and t.phase is Phase.BOARD
    t.flop().call_round().turn().call_round().river().call_round()
    rec = t.records[-1]
    assert {x.seat for x in rec.seats} == {2, 3, 4}
    assert sum(p.amount for p in rec.pots) == 300  # 100 from each, the newcomer's included
    assert any(a.code is A.FLOOR_DECISION for a in rec.alerts)


@pytest.mark.clause("004-TG-23", profiles=(P004,))
def test_004_TG_23_the_floor_may_rule_a_misdeal_and_the_newcomer_still_waits() -> None:
    """MISDEAL after the badge: a misdeal (button and blinds stay, G1); the re-deal leaves
    the newcomer out, and a card to him is the floor's again."""
    t = _newcomer_on_the_button()
    t.hole(4).hole(2).hole(3)
    t.badge("td-1").mark().press(ConsoleButton.MISDEAL)
    assert A.FLOOR_DECISION in t.codes and A.MISDEAL in t.codes
    t.clear()
    assert t.phase is Phase.IDLE
    t.mark().deal(order=[4, 2])
    assert t.codes == [] and t.phase is Phase.BETTING
    assert t.snap.seat(3) is not None and not t.snap.seat(3).in_hand  # type: ignore[union-attr]


@pytest.mark.clause("004-TG-3", profiles=(P004,))
def test_004_TG_3_absent_player_dealt_out_is_a_floor_ruling() -> None:
    """An absent player in the big blind (seat 4: his blind is put in from his stack, TG-9)
    is skipped by the deal; found when the betting begins: the floor is called, not a
    misdeal. ACK: seat 4 has no hand, his blind stays in the pot, and the hand is played to
    its end among the others."""
    t = Table(P004, 4, button=2).presence(4, False)  # SB 3, BB 4 (absent)
    t.chips(3, 50).deal(order=[3, 1, 2])  # the dealer skips seat 4
    assert A.OUT_OF_SEQUENCE in t.codes and A.MISDEAL not in t.codes  # 004: warned only
    t.mark().chips(1, 100)  # under the gun acts: betting has begun with seat 4 dealt out
    a = t.alert(A.SEAT_DEALT_OUT)
    assert a.seat == 4 and a.severity is Severity.WARNING and "TG 3" in a.clause
    assert t.phase is Phase.BETTING and A.MISDEAL not in t.codes
    t.badge("td-1").mark().press(ConsoleButton.ACK)
    assert "play on" in t.alert(A.FLOOR_DECISION).remedy
    assert any("its blinds stay" in i.text for i in t.instructions)
    t.mark().chips(2, 100).chips(3, 50)
    assert t.codes == [] and t.phase is Phase.BOARD  # the dead big blind has no option
    t.flop().call_round().turn().call_round().river().call_round()
    rec = t.records[-1]
    assert sum(p.amount for p in rec.pots) == 400  # seat 4's big blind stays in
    assert 4 not in {w for p in rec.pots for w in p.winners}
    assert [x.end_stack for x in rec.seats if x.seat == 4] == [900]


@pytest.mark.clause("004-TG-3", profiles=(P004,))
def test_004_TG_3_dealt_out_floor_rules_a_misdeal() -> None:
    """MISDEAL after the badge: a misdeal; the re-deal deals seat 4 in, his blind stands."""
    t = Table(P004, 4, button=2).presence(4, False)
    t.chips(3, 50).deal(order=[3, 1, 2]).chips(1, 100)
    t.badge("td-1").mark().press(ConsoleButton.MISDEAL)
    assert A.MISDEAL in t.codes
    t.clear()
    t.mark().deal()
    assert t.codes == [] and t.snap.pot == 150
