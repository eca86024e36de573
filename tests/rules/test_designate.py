"""G9: EXPOSED and BOXED mean the card read most recently; a card laid on the burn antenna
while the console waits for a designation overrides that (controller/rules/designate.py).
A card dealt off the table (000 IRREGULARITIES 9. [L141], 004 AR-14 [L69]) is never read at
a seat: laid on the burn antenna it is designated, judged as an exposed card at its place in
the deal, and the seat gets the next card."""

from __future__ import annotations

import pytest
from table_builder import Table

from controller.rules.decisions import AlertCode
from controller.rules.events import ConsoleButton
from controller.rules.phases import Phase, Street

A = AlertCode
B = ConsoleButton


def _two_dealt(profile: str) -> Table:
    """Four players, button 1: the deal goes 2, 3, 4, 1, 2, 3, 4, 1; seats 2 and 3 have a card."""
    t = Table(profile, players=4).button(1).post_blinds()
    return t.hole(2, "2c").hole(3, "3c")


@pytest.mark.parametrize("profile", ["a2c-000", "shaved-dog-004", "vistancia-002"])
@pytest.mark.clause("000-S3-irreg-9", "004-AR-14")
def test_the_off_table_card_laid_on_the_burn_then_exposed(profile: str) -> None:
    t = _two_dealt(profile)
    t.mark().burn("Kd").press(B.EXPOSED)  # seat 4's card went off the table
    a = t.alert(A.EXPOSED_CARD)
    assert a.seat == 4 and a.card is not None and str(a.card) == "Kd"
    assert "IRREGULARITIES 9" in a.clause and "seat 4 gets the next card" in a.remedy
    t.mark().hole(4, "4h").hole(1, "As").hole(2, "7d").hole(3, "8d").hole(4, "9s").hole(1, "Ad")
    assert t.alerts == [] and t.phase is Phase.BETTING
    # the hand goes on: Kd was the flop burn, so the flop comes with no burn of its own
    t.call_round().sweep().mark().board("Qh", "Jh", "5d")
    assert t.alerts == [] and t.snap.street is Street.FLOP
    t.call_round().turn().call_round().river().call_round()
    assert t.records and not t.records[-1].voided


@pytest.mark.parametrize("profile", ["a2c-000", "shaved-dog-004"])
@pytest.mark.clause("000-S3-irreg-9", "004-AR-14")
def test_exposed_first_then_the_card_on_the_burn_overrides(profile: str) -> None:
    t = _two_dealt(profile).hole(4, "4h").mark().press(B.EXPOSED)  # G9: seat 4's, read last
    assert t.alert(A.EXPOSED_CARD).seat == 4
    t.mark().burn("Kd")  # the console waits: this card is the one (seat 1's, off the table)
    a = t.alert(A.EXPOSED_CARD)
    assert a.seat == 1 and str(a.card) == "Kd"
    assert any("not the exposed card" in i.text for i in t.instructions)
    t.mark().hole(1, "As").hole(2, "7d").hole(3, "8d").hole(4, "9s").hole(1, "Ad")
    assert t.alerts == [] and t.phase is Phase.BETTING  # seat 3 keeps its card: no replacement


@pytest.mark.clause("000-S3-irreg-9", profiles=("a2c-000",))
def test_000_the_second_card_off_the_table_is_a_misdeal() -> None:
    """000 MISDEALS 1. bullet 1 [L108]: the first or second card exposed is a misdeal."""
    t = Table("a2c-000", players=4).button(1).post_blinds().hole(2, "2c")
    t.mark().burn("Kd").press(B.EXPOSED)
    a = t.alert(A.EXPOSED_CARD)
    assert a.seat == 3 and "card 2 of the deal" in a.remedy and t.phase is not Phase.DEALING


@pytest.mark.clause("004-AR-14", profiles=("shaved-dog-004",))
def test_004_the_second_card_off_the_table_is_replaced() -> None:
    """004 AR-1a: only the first card exposed is a misdeal; AR-1b: the second is replaced."""
    t = Table("shaved-dog-004", players=4).button(1).post_blinds().hole(2, "2c")
    t.mark().burn("Kd").press(B.EXPOSED)
    assert t.alert(A.EXPOSED_CARD).seat == 3 and t.phase is Phase.DEALING


def test_a_burn_read_then_a_hole_card_leaves_the_latest_card_rule() -> None:
    """The designation holds until the next hole card: then EXPOSED means that card."""
    t = _two_dealt("a2c-000").burn("Kd").hole(4, "4h").mark().press(B.EXPOSED)
    assert t.alert(A.EXPOSED_CARD).seat == 4
    assert t.core.hand is not None and t.core.hand.replace == {4: "A-4h"}
