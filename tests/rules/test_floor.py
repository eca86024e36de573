"""The floor as a ruling (issue 13): where the rulebook names no remedy, the core holds the
hand for the floor, and a supervisor's badge then MISDEAL or ACK decides."""

from __future__ import annotations

import pytest
from table_builder import Table

from controller.rules.decisions import AlertCode, Severity
from controller.rules.events import ConsoleButton
from controller.rules.phases import Phase

A = AlertCode
FLOOR_PROFILES = ("club-003",)  # 004 is silent: a note (info), no hold (scenarios/shaved-dog-004)


def _wrong_first_card(profile: str) -> Table:
    t = Table(profile, players=4).button(1).post_blinds()
    return t.mark().hole(3)  # seat 2 (left of the button) should get the first card


@pytest.mark.parametrize("profile", FLOOR_PROFILES)
@pytest.mark.clause("000-S3-misdeal-1h", "003-OpeningDeal-order")
def test_wrong_first_seat_is_held_for_the_floor(profile: str) -> None:
    """003 Opening Deal [L85] describes the order and names no misdeal ([L1]: the floor's
    decision is final); 004 AR Misdeals 1.-5. [L41-L49] have no wrong-first-seat rule: the
    core calls the floor instead of a misdeal, and the dealer's MISDEAL waits for the badge."""
    t = _wrong_first_card(profile)
    a = t.alert(A.WRONG_FIRST_SEAT)
    assert a.severity is Severity.WARNING and "floor" in a.remedy.lower()
    assert t.phase is Phase.DEALING
    t.mark().press(ConsoleButton.MISDEAL)
    assert t.phase is Phase.DEALING and t.codes == []
    assert any("badge" in i.text for i in t.instructions)


@pytest.mark.parametrize("profile", FLOOR_PROFILES)
def test_floor_rules_play_on_and_the_deal_goes_on_from_that_seat(profile: str) -> None:
    t = _wrong_first_card(profile)
    for s in (4, 1, 2, 3, 4, 1):  # on clockwise from seat 3, two rounds
        t.hole(s)
    t.hole(2)
    assert A.OUT_OF_SEQUENCE not in t.codes and t.phase is Phase.BETTING
    t.mark().badge("td-1").press(ConsoleButton.ACK)
    d = t.alert(A.FLOOR_DECISION)
    assert "td-1" in d.remedy and "play on" in d.remedy
    t.call_round()
    assert t.phase is Phase.BOARD  # the hand goes on to the flop
    t.flop().call_round().turn().call_round().river().call_round()
    rec = t.records[-1]
    assert any(a.code is A.FLOOR_DECISION for a in rec.alerts)  # in the hand record


@pytest.mark.parametrize("profile", FLOOR_PROFILES)
def test_floor_rules_a_misdeal(profile: str) -> None:
    t = _wrong_first_card(profile).badge("td-1").mark().press(ConsoleButton.MISDEAL)
    assert A.FLOOR_DECISION in t.codes and A.MISDEAL in t.codes
    assert t.phase in (Phase.MISDEAL, Phase.IDLE)


@pytest.mark.parametrize("profile", ["a2c-000", "tda-2024", "vistancia-002"])
def test_profiles_that_name_the_misdeal_keep_it(profile: str) -> None:
    """000 MISDEALS 1. bullet 8 [L115], 002 Misdeals c), TDA 35-A: a misdeal, no floor."""
    t = _wrong_first_card(profile)
    assert t.alert(A.WRONG_FIRST_SEAT).severity is Severity.CRITICAL
    assert t.phase in (Phase.MISDEAL, Phase.IDLE)


@pytest.mark.parametrize("profile", ["vistancia-002", "tda-2024"])
@pytest.mark.clause("002-Misdeals-c")
def test_button_two_consecutive_cards_at_the_end_of_the_deal(profile: str) -> None:
    """002 Misdeals [L105]: "Players may be dealt two consecutive cards on the button"
    (TDA 35-A): the button skipped in the first round and given both cards at the end draws
    no out-of-sequence warning on the second round's cards."""
    t = Table(profile, players=4).button(1).post_blinds()
    for s in (2, 3, 4, 2, 3, 4, 1, 1):
        t.hole(s)
    assert t.alerts == [] and t.phase is Phase.BETTING


def test_button_two_consecutive_not_allowed_under_000() -> None:
    """000 MISDEALS 1. bullet 6 [L113]: a card out of sequence is a misdeal there."""
    t = Table("a2c-000", players=4).button(1).post_blinds()
    for s in (2, 3, 4, 2):
        t.hole(s)
    assert t.codes == [A.OUT_OF_SEQUENCE] and t.phase in (Phase.MISDEAL, Phase.IDLE)


@pytest.mark.parametrize("profile", ["a2c-000", "vistancia-002"])
@pytest.mark.clause("000-S5-dec-5", "002-Disputes-1")
def test_a_floor_call_after_the_next_deal_started_says_the_result_stands(profile: str) -> None:
    """000 SECTION 5 DECISION MAKING 5 [L213] ("before the next deal starts"), 002 Disputed
    Pots [L67] ("until a new hand begins"): after the next hand's first card the last hand's
    result stands; before it, the floor is simply called."""
    t = Table(profile, players=3).post_blinds().deal()
    t.fold(1).fold(2)
    assert t.phase is Phase.COMPLETE
    t.mark().press(ConsoleButton.FLOOR)
    assert "stands" not in t.alert(A.FLOOR_CALLED).remedy
    t.clear().post_blinds().mark().hole(t.deal_order()[0]).press(ConsoleButton.FLOOR)
    assert "result stands" in t.alert(A.FLOOR_CALLED).remedy


@pytest.mark.parametrize("profile", ["club-003", "vistancia-002"])
@pytest.mark.clause("003-Dealer-rabbit", "002-Rabbit-1")
def test_rabbit_hunt_after_the_cards_were_gathered(profile: str) -> None:
    """003 [L185] "No rabbit hunting (show of unused flop, turn, or river cards once a pot is
    won)": a board card turned up after the hand's cards were gathered is flagged too."""
    t = Table(profile, players=3).post_blinds().deal()
    t.fold(1).fold(2)
    t.clear()
    assert t.phase is Phase.IDLE
    t.mark().board("Ah")
    assert t.codes == [A.RABBIT_HUNT]


@pytest.mark.clause("000-S3-irreg-4", profiles=("club-003",))
def test_003_foreign_card_is_a_floor_ruling_and_play_on_plays_out() -> None:
    """003 names no foreign-card rule (Dealer Errors cover the joker, [L189]; [L1] the floor
    decides): a card of no registered deck is held for the floor instead of voiding the
    hand; dealt on, the card is replaced after the deal; the floor's ACK plays on."""
    t = Table("club-003", players=3).button(1).post_blinds().mark()
    t.foreign(2)  # seat 2's first card carries no registered tag
    a = t.alert(A.FOREIGN_CARD)
    assert a.severity is Severity.WARNING and "floor" in a.remedy.lower()
    for s in (3, 1, 2, 3, 1):
        t.hole(s)
    t.hole(2)  # the replacement
    assert t.phase is Phase.BETTING
    t.mark().badge("td-1").press(ConsoleButton.ACK)
    assert A.FLOOR_DECISION in t.codes
    t.call_round().flop().call_round().turn().call_round().river().call_round()
    assert t.phase is Phase.COMPLETE


def test_000_foreign_card_still_voids() -> None:
    """000 IRREGULARITIES 4 [L136]: all action void, chips returned."""
    t = Table("a2c-000", players=3).button(1).post_blinds().foreign(2)
    assert t.phase is Phase.VOID or t.phase is Phase.IDLE
