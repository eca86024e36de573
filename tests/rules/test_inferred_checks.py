"""L2 (clause inventory, observability limits): a check leaves no trace, so when a later
seat acts in an unbet round the seats before it - the seat to act included - checked.
000 SECTION 2 THE FLOP [L81] (post-flop action starts left of the button)."""

import pytest
from table_builder import PROFILES, Table

from controller.rules.decisions import AlertCode


@pytest.mark.parametrize("profile", PROFILES)
def test_seat_to_act_checked_when_the_next_seat_folds(profile: str) -> None:
    t = Table(profile, 4).post_blinds().deal().call_round().flop().mark()
    assert t.snap.to_act == 2
    t.fold(3)  # seat 2 checked (inferred), seat 3 folds
    # 002 Non-Standard Folds [L161]: a fold facing a check is binding and flagged
    assert t.codes == ([AlertCode.NONSTANDARD_FOLD] if t.profile.nonstandard_fold_alert else [])
    assert t.snap.to_act == 4  # not back to seat 2
    checks = [a for a in t.core.hand.actions if a.kind == "check" and a.street == 1]  # type: ignore[union-attr]
    assert [a.seat for a in checks] == [2]


@pytest.mark.parametrize("profile", PROFILES)
def test_bet_after_two_inferred_checks_records_both(profile: str) -> None:
    t = Table(profile, 4).post_blinds().deal().call_round().flop().mark()
    t.chips(4, 100)
    checks = [a for a in t.core.hand.actions if a.kind == "check" and a.street == 1]  # type: ignore[union-attr]
    assert [a.seat for a in checks] == [2, 3]


def test_pot_goes_to_the_last_seat_even_if_it_put_nothing_in() -> None:
    """000 SECTION 2 THE SHOWDOWN / pots: when everyone else folds to a seat that has not
    put a chip in, the blinds still go to it (no chip is lost)."""
    t = Table("a2c-000", {1: 1000, 2: 1000, 3: 400}).post_blinds()
    t.deal({2: "2c3c", 3: "4c5c", 1: "6c7c"})
    assert t.snap.button == 1 and t.snap.to_act == 1
    t.fold(2).fold(3)  # out of turn, binding; seat 1 (button) is left alone
    rec = t.records[-1]
    by_seat = {s.seat: s.end_stack for s in rec.seats}
    assert by_seat == {1: 1150, 2: 950, 3: 300}


def test_misdeal_restores_the_bets_shown_in_the_zones() -> None:
    """G1 (product decision): after a misdeal the blinds stay and every other bet goes back;
    the live state shows each seat's zone as just its blind (no chip counted twice)."""
    from controller.rules.events import ConsoleButton

    t = Table("tda-2024", 4).post_blinds().deal()
    t.chips(4, 300)
    t.press(ConsoleButton.MISDEAL)
    snap = t.snap
    assert {s.seat: s.bet for s in snap.seats} == {1: 0, 2: 50, 3: 100, 4: 0}
    assert {s.seat: s.stack + s.committed for s in snap.seats} == dict.fromkeys(range(1, 5), 1000)
