# mypy: disable-error-code="comparison-overlap"
"""Clause tests of blind levels (C17, G11): when a new level takes effect relative to the
blinds already posted. Names carry the clause-inventory ids (rulebook file and section)."""

from __future__ import annotations

import pytest
from table_builder import PROFILES, Table

from controller.rules.phases import Phase


def _one_hand(t: Table) -> Table:
    t.post_blinds().deal().call_round()
    t.flop("3s", "8d", "9h").call_round().turn("Th").call_round().river("4s").call_round()
    assert t.phase is Phase.COMPLETE
    return t.clear()


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.clause("000-S1-levels-7", "004-TG-7")
def test_004_TG_7_000_S1_levels_7_G11_level_after_blinds_posted_waits_a_hand(
    profile: str,
) -> None:
    """004 TG 6-7 [L97-99] (next deal), 000 SECTION 1 items 6-7 [L35-36], G11: a level that
    comes after the coming hand's blinds are in leaves that hand at the old level; the hand
    after it posts the new blinds."""
    t = _one_hand(Table(profile, 3))
    t.post_blinds().level(100, 200).deal()
    s = t.snap
    assert (s.small_blind, s.big_blind, s.pot) == (50, 100, 150)
    assert t.codes == []
    t.call_round().flop("3s", "8d", "9h").call_round().turn("Th").call_round()
    t.river("4s").call_round().clear()
    assert t.records[-1].big_blind == 100
    t.mark()
    sb, bb = t.snap.small_blind_seat, t.snap.big_blind_seat
    t.chips(sb, 100).chips(bb, 200).deal()
    assert (t.snap.small_blind, t.snap.big_blind, t.snap.pot) == (100, 200, 300)
    assert t.codes == []


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.clause("002-NewLimits-1", "003-Blinds-next")
def test_002_NewLimits_1_003_Blinds_next_level_before_blinds_applies_to_next_hand(
    profile: str,
) -> None:
    """002 New Hand & New Limits [L71]; 003 Blinds [L43]; G11: a level set between hands,
    before any blind of the coming hand, applies to that hand."""
    t = _one_hand(Table(profile, 3)).level(100, 200)
    sb, bb = t.snap.small_blind_seat, t.snap.big_blind_seat
    t.mark().chips(sb, 100).chips(bb, 200).deal()
    assert (t.snap.small_blind, t.snap.big_blind, t.snap.pot) == (100, 200, 300)
    assert t.codes == []


@pytest.mark.parametrize("profile", PROFILES)
def test_G11_G1_level_during_misdeal_waits_for_the_redeal_only(profile: str) -> None:
    """G1 + G11: a level set while a misdeal is being cleared leaves the re-deal (same hand)
    at the old level; the next hand uses the new one."""
    t = Table(profile, 3).post_blinds().misdeal_first_card(3)  # wrong first seat: misdeal
    assert t.phase is Phase.MISDEAL
    t.level(100, 200).clear().deal()
    assert (t.snap.deal_no, t.snap.big_blind) == (2, 100)
    t.call_round().flop("3s", "8d", "9h").call_round().turn("Th").call_round()
    t.river("4s").call_round().clear()
    sb, bb = t.snap.small_blind_seat, t.snap.big_blind_seat
    t.chips(sb, 100).chips(bb, 200).deal()
    assert (t.snap.hand_no, t.snap.big_blind) == (2, 200)
