"""The floor's sense checks (controller.link.command_checks) against the issue's words: a
level makes sense when the small blind is above zero and at most the big blind and the ante
at most the big blind (issue 22); a seat exists when the table's zone map has it."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from controller.link.command_checks import (
    check_level,
    check_move,
    check_seat,
    check_unseat,
    no_such_seat,
    occupied_of,
    seat_list,
)

chips = st.integers(min_value=-5, max_value=10**12)


@given(chips, chips, chips, st.booleans())
def test_a_level_is_refused_exactly_when_it_makes_no_sense(sb: int, bb: int, ante: int,
                                                           bba: bool) -> None:  # fmt: skip
    sense = 0 < sb <= bb and 0 <= ante <= bb and (ante > 0 or not bba)
    problem = check_level(sb, bb, ante, bba)
    assert (problem is None) == sense, (sb, bb, ante, bba, problem)
    if problem is not None:  # a sentence, not a schema message
        assert problem[0].isupper() and problem.endswith(".") and "args/" not in problem


@given(st.integers(1, 100), st.integers(1, 100), st.booleans())
def test_a_big_blind_ante_at_a_table_where_each_player_antes(sb: int, ante: int,
                                                             bba: bool) -> None:  # fmt: skip
    problem = check_level(sb, 100, ante, bba, ante_style="each", profile="club-003")
    assert (problem is not None) == (sb > 100 or bba)


@given(st.sets(st.integers(1, 10), min_size=1), st.integers(1, 10))
def test_a_seat_exists_when_the_zone_map_has_it(seats: set[int], seat: int) -> None:
    problem = no_such_seat(seat, seats)
    assert (problem is None) == (seat in seats)
    if problem is not None:
        assert problem.startswith(f"Seat {seat} does not exist at this table: it has seat")


def test_seat_lists_read_as_a_floor_person_says_them() -> None:
    assert seat_list(range(1, 7)) == "seats 1-6"
    assert seat_list([1, 2, 3, 5, 7, 8, 9]) == "seats 1-3, 5, 7-9"
    assert seat_list([4, 5]) == "seats 4, 5"
    assert seat_list([3]) == "seat 3"
    assert no_such_seat(7, range(1, 7)) == "Seat 7 does not exist at this table: it has seats 1-6."
    assert no_such_seat(7, ()) is None  # an older table that does not say: not refused here


def test_seat_unseat_and_move_against_who_sits_where() -> None:
    seats, occ = range(1, 7), {1: "p1", 2: "p2"}
    assert check_seat(1, "p1", seats, occ) is None  # the same player: name and stack updated
    assert check_seat(3, "p3", seats, occ) is None
    assert check_seat(1, "p9", seats, occ) == "Seat 1 is taken by p1: unseat or move them first."
    assert check_seat(3, "p2", seats, occ) == "Player p2 already sits in seat 2: move them instead."
    assert check_unseat(3, seats, occ) == "Seat 3 is empty: there is nobody to unseat."
    assert check_move(1, 1, seats, occ) is not None
    assert check_move(1, 3, seats, occ) is None
    assert check_move(1, 2, seats, occ) == "Seat 2 is taken by p2: choose a free seat."
    published = [{"seat": 1, "player_id": "p1", "status": "active"},
                 {"seat": 2, "player_id": None, "status": "empty"}]  # fmt: skip
    assert occupied_of(published) == {1: "p1"}
