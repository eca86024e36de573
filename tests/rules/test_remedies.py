# mypy: disable-error-code="comparison-overlap"
"""Burn errors followed to the end of the hand, per profile (conflict C9, issue 13). Each
test deals on past the remedy and checks every later card against the rulebook's words."""

from __future__ import annotations

import pytest
from table_builder import Table

from controller.rules.decisions import AlertCode
from controller.rules.events import ZoneKind
from controller.rules.phases import Phase, Street

A = AlertCode


def _to_turn(profile: str) -> Table:
    t = Table(profile, {1: 1000, 2: 1000, 3: 1000}).post_blinds()
    t.deal({2: "AsAd", 3: "KsKd", 1: "2c7d"})
    t.call_round().flop("2s", "7h", "9c").call_round()
    return t.mark()


def _board(t: Table) -> list[str]:
    return [str(c) for c in t.records[-1].board]


@pytest.mark.clause("000-S3-irreg-12a", "000-S3-irreg-12b", profiles=("a2c-000",))
def test_000_missed_turn_burn_stands_after_action_and_the_river_burns_two() -> None:
    """000 IRREGULARITIES 12. [L144]: "Once action has been taken on a board card, the card
    must stand ... subsequent cards dealt should be those that would have come": bets on the
    turn dealt without a burn are taken, the river is dealt after two burns (no double-burn
    alert) and the hand finishes."""
    t = _to_turn("a2c-000")
    t.sweep().board("Jh")
    assert t.codes == [A.MISSING_BURN]
    t.mark().chips(2, 100)
    assert t.codes == [] and t.rejections == []
    assert any("stands" in i.text for i in t.instructions)
    t.call_round().sweep().burn("4c").burn("5c")
    assert t.codes == []
    t.board("Kh").call_round()
    assert t.phase is Phase.COMPLETE and t.codes == []
    assert _board(t) == ["2s", "7h", "9c", "Jh", "Kh"]


@pytest.mark.clause("000-S3-irreg-12a", profiles=("a2c-000",))
def test_000_missed_turn_burn_corrected_before_action() -> None:
    """000 IRREGULARITIES 12. [L144]: corrected "before betting action has started for that
    round": the card moved to the burn, the next card is the turn; one burn for the river."""
    t = _to_turn("a2c-000")
    t.sweep().board("Jh").mark().burn("Jh")
    assert t.phase is Phase.BOARD and t.snap.street is Street.FLOP
    t.board("Qd")
    assert t.codes == [] and t.phase is Phase.BETTING
    t.call_round().sweep().burn("4c").board("Kh")
    assert t.codes == []
    t.call_round()
    assert t.phase is Phase.COMPLETE
    assert _board(t) == ["2s", "7h", "9c", "Qd", "Kh"]


@pytest.mark.clause("004-AR-16", profiles=("shaved-dog-004",))
def test_004_missed_turn_burn_restored_after_action_no_round_skipped() -> None:
    """004 AR-16 [L75]: "the cards will be corrected, if at all possible, to their proper
    positions" (no action cutoff): after a bet on the turn dealt without a burn, the card goes
    to the burn and the next card takes its place as the turn; the turn's round goes on and
    the river is dealt after one burn."""
    t = _to_turn("shaved-dog-004")
    t.sweep().board("Jh")
    assert t.codes == [A.MISSING_BURN]
    t.mark().chips(2, 100)
    assert t.codes == [] and t.phase is Phase.BETTING
    t.burn("Jh").board("Qd")
    assert t.codes == [] and t.phase is Phase.BETTING and t.snap.to_act == 3
    t.call_round()
    assert t.phase is Phase.BOARD  # the turn's round, on the proper turn card
    t.sweep().burn("4c").board("Kh")
    assert t.codes == []
    t.call_round()
    assert t.phase is Phase.COMPLETE
    assert _board(t) == ["2s", "7h", "9c", "Qd", "Kh"]
    assert t.records[-1].pots[0].winners == (3,)  # kings full of... three kings


@pytest.mark.clause("003-DealerErrors-burn", profiles=("club-003",))
def test_003_missed_flop_burn_the_flop_does_not_stand_and_the_new_flop_is_the_flop() -> None:
    """003 Dealer Errors [L195]: the burn turned up on the flop: the card "is picked up (along
    with the other two cards showed face up on the flop ...) and placed into the deck and
    reshuffled". The flop does not stand; moving the card to the burn is not this house's
    remedy; after the reshuffle the new flop is the flop and the hand plays to the river."""
    t = Table("club-003", {1: 1000, 2: 1000, 3: 1000}).post_blinds()
    t.deal({2: "AsAd", 3: "KsKd", 1: "2c7d"})
    t.call_round().sweep().mark().board("Ah").board("Kh").board("Qh")
    assert t.codes == [A.MISSING_BURN] and t.phase is Phase.BOARD
    t.mark().burn("Ah")
    assert t.codes == [A.WRONG_BURN]
    t.remove("Ah", ZoneKind.BURN).remove("Kh", ZoneKind.BOARD).remove("Qh", ZoneKind.BOARD)
    t.mark().burn("Tc").board("2s", "7h", "9c")
    assert t.codes == [] and t.phase is Phase.BETTING and t.snap.street is Street.FLOP
    t.call_round().turn("Jd").call_round().river("3s").call_round()
    assert t.phase is Phase.COMPLETE and t.codes == []
    assert _board(t) == ["2s", "7h", "9c", "Jd", "3s"]


@pytest.mark.parametrize("profile", ["a2c-000", "shaved-dog-004", "club-003"])
def test_burn_error_settings_differ(profile: str) -> None:
    """The three burn-error settings behave differently on the same deal: a bet on a turn
    dealt without a burn stands it (000), is taken with the card still correctable (004), or
    is not betting on any turn (003: the street is reshuffled)."""
    t = _to_turn(profile)
    t.sweep().board("Jh").mark().chips(2, 100)
    if profile == "club-003":
        assert t.codes == [A.ACTION_PENDING] and t.phase is Phase.BOARD
    else:
        assert t.codes == [] and t.phase is Phase.BETTING
    stands = any("stands" in i.text for i in t.instructions)
    assert stands == (profile == "a2c-000")


@pytest.mark.clause("000-S3-irreg-12b", profiles=("a2c-000",))
def test_000_extra_burn_left_standing_is_the_next_burn() -> None:
    """000 IRREGULARITIES 12. [L144]: "if two cards were burned, one of the cards should be
    put back on the deck and used for the burn card on the next round": a different burn at
    the turn is flagged."""
    t = Table("a2c-000", {1: 1000, 2: 1000, 3: 1000}).post_blinds()
    t.deal({2: "AsAd", 3: "KsKd", 1: "2c7d"})
    t.call_round().sweep().burn("Tc").burn("Jc")
    assert A.DOUBLE_BURN in t.codes
    t.board("2s", "7h", "9c").call_round().mark().sweep().burn("4c")
    assert t.codes == [A.WRONG_BURN]


@pytest.mark.clause("002-FourCardFlop-a", profiles=("vistancia-002",))
def test_002_fourth_card_burned_at_the_turn_and_a_wrong_turn_burn_caught() -> None:
    """002 Four-Card Flop [L113]: order known, "the fourth card will stay as the next burn
    card": set aside and burned when the turn is due, it is the burn; another card is not."""
    for wrong in (False, True):
        t = Table("vistancia-002", {1: 1000, 2: 1000, 3: 1000}).post_blinds()
        t.deal({2: "AsAd", 3: "KsKd", 1: "2c7d"})
        t.call_round().sweep().burn("Tc").board("2s", "7h", "9c").board("Jh")
        assert t.codes[-1] is A.FOUR_CARD_FLOP
        t.remove("Jh", ZoneKind.BOARD).call_round().mark().sweep()
        t.burn("4c" if wrong else "Jh").board("Qd")
        assert t.codes == ([A.WRONG_BURN] if wrong else [])
        assert t.snap.street is Street.TURN


@pytest.mark.clause("002-FourCardFlop-b", profiles=("vistancia-002",))
def test_002_unknown_order_the_director_draws() -> None:
    """002 Four-Card Flop [L113]: order unknown, "A tournament director not seated at that
    table will be called to randomly select one card": the dealer's own pick is refused;
    after the director's badge, the card the director holds aside is the next burn."""
    t = Table("vistancia-002", {1: 1000, 2: 1000, 3: 1000}).post_blinds()
    t.deal({2: "AsAd", 3: "KsKd", 1: "2c7d"})
    t.call_round().sweep().burn("Tc").board("2s", "7h", "9c", "Jh", same_t=True)
    assert t.codes[-1] is A.FOUR_CARD_FLOP
    t.mark().burn("7h")
    assert t.codes == [A.FOUR_CARD_FLOP] and t.phase is Phase.BOARD
    t.remove("7h", ZoneKind.BURN).board("7h").mark().badge().remove("Jh", ZoneKind.BOARD)
    assert t.phase is Phase.BETTING and t.snap.street is Street.FLOP
    t.call_round().mark().sweep().burn("Jh").board("Qd")
    assert t.codes == [] and t.snap.street is Street.TURN


@pytest.mark.clause("000-S3-irreg-10", profiles=("a2c-000",))
def test_000_bet_on_three_cards_of_a_four_card_flop_gets_the_redeal() -> None:
    """000 IRREGULARITIES 10. [L142]: a four-card flop is redealt "even if it were possible to
    know which card was the extra one": a bet on the three left gets the redeal ruling."""
    t = Table("a2c-000", {1: 1000, 2: 1000, 3: 1000}).post_blinds()
    t.deal({2: "AsAd", 3: "KsKd", 1: "2c7d"})
    t.call_round().sweep().burn("Tc").board("2s", "7h", "9c").board("Jh")
    t.remove("Jh", ZoneKind.BOARD).mark().chips(2, 100)
    assert t.codes == [A.FOUR_CARD_FLOP]
    assert "new flop" in t.alerts[0].remedy
