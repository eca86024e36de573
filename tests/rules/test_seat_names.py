"""Issue 21: the players' names and the level numbers are the core's state. A name given
with ``SeatPlayer`` stays with the player (a re-seat without a name, a move), reaches the
live state (``SeatState.name``) and the hand record (``SeatRecord.name``), and goes through
the export, the restore and the hand log; ``MovePlayer`` is one event, and refused it
changes nothing. ``SetLevel.level`` is the level's number, promoted with its blinds."""

from __future__ import annotations

import dataclasses

import pytest
from table_builder import Table

from controller.rules import handlog
from controller.rules.engine import TableCore
from controller.rules.events import MovePlayer, SeatPlayer, SetLevel
from controller.rules.phases import Phase
from controller.rules.profile import builtin_profile
from controller.rules.seating import SeatStatus


def names(t: Table) -> dict[int, str]:
    return {s.seat: s.name for s in t.snap.seats}


def test_names_are_kept_by_the_core_and_default_to_the_player_id() -> None:
    t = Table(players=2)
    t.send(SeatPlayer(t.now(), 3, "p3", 800, name="Ann Lee"))
    assert names(t) == {1: "p1", 2: "p2", 3: "Ann Lee"}
    # the same player seated again without a name keeps it; with one, it changes
    t.send(SeatPlayer(t.now(), 3, "p3", 900))
    assert names(t)[3] == "Ann Lee" and t.core.seats[3].stack == 900
    t.send(SeatPlayer(t.now(), 3, "p3", 900, name="Ann"))
    assert names(t)[3] == "Ann"
    # another player in a seat left empty does not inherit it
    t.unseat(3)
    t.send(SeatPlayer(t.now(), 3, "p9", 500))
    assert names(t)[3] == "p9"


def test_a_moved_player_keeps_his_name_and_stack_and_waits_as_a_new_player() -> None:
    t = Table(players=3)
    t.send(SeatPlayer(t.now(), 4, "p4", 700, name="Bo"))
    assert t.send(MovePlayer(t.now(), 4, 6)).rejected is None
    assert names(t)[6] == "Bo" and 4 not in t.core.seats
    seat = t.core.seats[6]
    assert (seat.player, seat.stack, seat.present) == ("p4", 700, True)
    # seated as a new player is: the button was placed, so he is dealt in (as SeatPlayer)
    assert seat.status is SeatStatus.ACTIVE


@pytest.mark.parametrize(
    ("frm", "to", "code"),
    [(5, 6, "empty_seat"), (1, 2, "seat_taken"), (1, 11, "bad_seat")],
)
def test_a_refused_move_changes_nothing(frm: int, to: int, code: str) -> None:
    t = Table(players=3)
    before = t.core.export()
    step = t.send(MovePlayer(t.now(), frm, to))
    assert step.rejected is not None and step.rejected.code == code
    assert t.core.export() == before


def test_no_move_during_a_hand() -> None:
    t = Table(players=3)
    t.post_blinds().deal()
    before = t.core.export()
    step = t.send(MovePlayer(t.now(), 1, 6))
    assert step.rejected is not None and step.rejected.code == "in_hand"
    assert t.core.export() == before


def test_names_in_the_hand_record_export_restore_and_hand_log() -> None:
    t = Table()
    t.send(SeatPlayer(t.now(), 1, "p1", 1000, name="Ann"))
    t.send(SeatPlayer(t.now(), 2, "p2", 1000, name="Bo"))
    t.send(SeatPlayer(t.now(), 3, "p3", 1000))
    t.button(1)
    data = t.core.export()
    assert {n: s.name for n, s in data.seats} == {1: "Ann", 2: "Bo", 3: "p3"}
    # the restore and the hand log's _start entry carry them
    other = TableCore(builtin_profile("tda-2024"), "t1")
    other.restore(data)
    assert other.export() == data
    entry = handlog.encode_start(data, "2026-01-01T00:00:00+00:00")
    assert handlog.decode_start(data, entry).seats == data.seats
    # an entry of an earlier version (no names): the player ids
    for v in entry["seats"].values():
        del v[4]
    assert {n: s.name for n, s in handlog.decode_start(data, entry).seats} == {
        1: "p1", 2: "p2", 3: "p3"}  # fmt: skip
    t.post_blinds().deal().fold(1).fold(2)
    assert t.phase is Phase.COMPLETE
    (rec,) = t.records
    assert {s.seat: (s.player, s.name) for s in rec.seats} == {
        1: ("p1", "Ann"), 2: ("p2", "Bo"), 3: ("p3", "p3")}  # fmt: skip


def test_the_level_number_is_the_cores_and_promoted_with_its_blinds() -> None:
    t = Table(players=3, sb=0, bb=0)
    t.send(SetLevel(t.now(), 50, 100, 0, level=1))
    assert (t.core.level.number, t.core.pending_level) == (1, None)
    t.post_blinds().deal()
    t.send(SetLevel(t.now(), 100, 200, 0, level=2))
    pend = t.core.pending_level
    assert pend is not None and (pend.number, pend.big_blind) == (2, 200)
    assert t.core.level.number == 1
    data = t.core.export()
    assert (data.level_number, data.pending_level_number) == (1, 2)
    restored = handlog.with_levels(data, handlog.encode_levels(t.core.level, pend, False))
    assert restored is not None
    assert dataclasses.replace(restored, level_waits=data.level_waits) == data
