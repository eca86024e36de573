"""Clause tests of the seat map the venue sends (V rows the core can still check): the
table size and moves into empty seats only. Names carry the clause-inventory ids."""

from __future__ import annotations

import pytest
from table_builder import PROFILES, Table


def test_003_Open_table9_a_tenth_seat_is_rejected() -> None:
    """003 opening rules [L5] (K19): tables of 9. The club-003 profile has 9 seats; a player
    for seat 10 is rejected and the seat map is unchanged."""
    t = Table("club-003", 9)
    before = t.snap
    t.seat(10)
    assert t.rejections == ["bad_seat"]
    assert t.snap == before and len(t.snap.seats) == 9


@pytest.mark.parametrize("profile", PROFILES)
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
