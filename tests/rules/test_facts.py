"""The core's facts (issue 21): what happened, as decision values a consumer can publish
instead of comparing the core's hand before and after each event (``decisions.py``:
HandStarted, ActionTaken, StreetDealt, PotAwarded, SeatEliminated). Checked against the
hand record the same hand produces, and against real hands replayed from the PHH corpus:
every action of the record was a fact, in the record's order."""

from __future__ import annotations

import pytest
from table_builder import PROFILES, Table

from controller.rules.decisions import (
    ActionTaken,
    HandComplete,
    HandStarted,
    PotAwarded,
    SeatEliminated,
    StreetDealt,
)
from controller.rules.engine import TableCore
from controller.rules.profile import builtin_profile
from hwsim.dealer import plan_hand
from hwsim.phh import iter_phh_paths, load_phh
from tests.shared import PHH


@pytest.mark.parametrize("profile", PROFILES)
def test_a_hand_played_out_is_told_as_facts(profile: str) -> None:
    """Three seats, seat 3 all in for 400 and beaten: the hand's start, every action in the
    record's order, the flop, turn and river with the board so far, the pots, and seat 3
    eliminated, then the record."""
    t = Table(profile, {1: 1000, 2: 1000, 3: 400}, button=1).post_blinds()
    t.deal({2: "2c3c", 3: "4c5c", 1: "AsAd"})
    t.chips(1, 400).chips(2, 350).chips(3, 300)  # seat 3 all in for 400
    t.flop("Ah", "Kh", "Qh").call_round().turn("2h").call_round().river("9s").call_round()
    decisions = t.decisions
    (rec,) = t.records
    started = [d for d in decisions if isinstance(d, HandStarted)]
    assert [(d.hand_no, d.button, d.small_blind_seat, d.big_blind_seat) for d in started] == [
        (1, 1, 2, 3)
    ]
    assert started[0].seats == ((1, 1000), (2, 1000), (3, 400))
    assert [d.action for d in decisions if isinstance(d, ActionTaken)] == list(rec.actions)
    streets = [(d.street, tuple(str(c) for c in d.board)) for d in decisions
               if isinstance(d, StreetDealt)]  # fmt: skip
    assert streets == [(1, ("Ah", "Kh", "Qh")), (2, ("Ah", "Kh", "Qh", "2h")),
                       (3, ("Ah", "Kh", "Qh", "2h", "9s"))]  # fmt: skip
    assert [d.pot for d in decisions if isinstance(d, PotAwarded)] == list(rec.pots)
    assert [d.seat for d in decisions if isinstance(d, SeatEliminated)] == [3]
    assert isinstance(decisions[-1], HandComplete)


def test_real_hands_tell_every_recorded_action_as_a_fact() -> None:
    """The first 60 hands of the pluribus corpus through the core: the facts of each hand
    are its record's actions, pots and eliminations, in order."""
    profile = builtin_profile("tda-2024")
    paths = list(iter_phh_paths([str(PHH / "pluribus")]))[:60]
    assert paths
    for path in paths:
        plan = plan_hand(load_phh(path), profile)
        core = TableCore(plan.profile)
        decisions = [d for ev in plan.events for d in core.handle(ev).decisions]
        (rec,) = [d.record for d in decisions if isinstance(d, HandComplete)]
        assert [d.action for d in decisions if isinstance(d, ActionTaken)] == list(rec.actions)
        assert [d.pot for d in decisions if isinstance(d, PotAwarded)] == list(rec.pots)
        out = [s.seat for s in rec.seats if s.end_stack == 0]
        assert [d.seat for d in decisions if isinstance(d, SeatEliminated)] == out
        assert sum(isinstance(d, HandStarted) for d in decisions) == 1
