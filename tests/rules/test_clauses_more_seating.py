"""Clause tests of the seat map the venue sends (V rows the core can still check): the
table size and moves into empty seats only. Names carry the clause-inventory ids."""

from __future__ import annotations

import pytest
from table_builder import PROFILES, Table

from controller.rules.phases import Phase


@pytest.mark.clause("003-Open-table9", profiles=("club-003",))
def test_003_Open_table9_a_tenth_seat_is_rejected() -> None:
    """003 opening rules [L5] (K19): tables of 9. The club-003 profile has 9 seats; a player
    for seat 10 is rejected and the seat map is unchanged."""
    t = Table("club-003", 9)
    before = t.snap
    t.seat(10)
    assert t.rejections == ["bad_seat"]
    assert t.snap == before and len(t.snap.seats) == 9


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.clause("000-S1-break-2", "004-TG-12")
def test_000_S1_break_2_004_TG_12_moves_only_into_empty_seats(profile: str) -> None:
    """000 SECTION 1 item 2 (2nd run) [L38]; 004 TG 12. [L109]: a player from a broken table
    goes to an empty seat; a move into an occupied seat is rejected (state unchanged), into
    an empty one accepted."""
    t = Table(profile, 3)
    before = t.snap
    t.seat(2, 5000, "moved-in")
    assert t.rejections == ["seat_taken"]
    assert t.snap == before
    t.seat(5, 5000, "moved-in")
    me = t.snap.seat(5)
    assert me is not None and me.player == "moved-in" and me.stack == 5000


def _eliminations(t: Table) -> list[str]:
    return [i.text for i in t.instructions if i.text.startswith("Eliminated")]


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.clause("000-S1-elim-2", "004-TG-27")
def test_000_S1_elim_2_004_TG_27_several_out_in_one_hand_larger_stack_places_higher(
    profile: str,
) -> None:
    """000 SECTION 1 item 2 (3rd run) [L53]; 004 TG 27. [L139] (K21): when several players
    go out in the same hand, the one who started the hand with more chips places higher;
    equal starting stacks tie (G5)."""
    t = Table(profile, {1: 2000, 2: 300, 3: 500, 4: 2000}).post_blinds()
    t.deal({2: "2c7d", 3: "3c8d", 4: "AsAd", 1: "4h9h"})
    t.chips(4, 2000).fold(1).chips(2, 250).chips(3, 400)
    t.flop("Ks", "Qd", "5h").turn("6c").river("Jc")
    assert t.phase is Phase.COMPLETE
    assert _eliminations(t) == [
        "Eliminated, higher place first: seat 3 (started with 500) > seat 2 (started with 300)"
    ]
    tie = Table(profile, {1: 2000, 2: 300, 3: 300, 4: 2000}).post_blinds()
    tie.deal({2: "2c7d", 3: "3c8d", 4: "AsAd", 1: "4h9h"})
    tie.chips(4, 2000).fold(1).chips(2, 250).chips(3, 200)
    tie.flop("Ks", "Qd", "5h").turn("6c").river("Jc")
    (text,) = _eliminations(tie)
    assert "seat 2 = seat 3 (started with 300)" in text and "tie (G5)" in text
