"""The end of a hand in the record and at the table (issue 12)."""

from __future__ import annotations

import dataclasses

import pytest

from controller.replay import replay_core
from controller.rules.decisions import HandRecord
from controller.rules.engine import TableCore
from controller.rules.errors import ConfigError
from controller.rules.events import ChipsOut
from controller.rules.phases import Phase
from controller.rules.profile import AnteOrder, Profile, get_profile, profile_from_dict
from hwsim.dealer import plan_hand
from hwsim.phh import load_phh, parse_phh
from tests.shared import PHH, need


def test_chips_swept_from_an_eliminated_players_zone_raise_no_rejection() -> None:
    """pluribus/31/11: p2 (seat 2) is all in on the river and loses (the source's finishing
    stack is 0). The sweep takes seat 2's chips out of its betting zone after the award: the
    seat has left the table, but its chips leaving is the sweep, not an impossible event."""
    hh = load_phh(need(PHH / "pluribus/31/11.phh"))
    assert hh.finishing_stacks is not None and hh.finishing_stacks[1] == 0
    plan = plan_hand(hh, get_profile("tda-2024"))
    core = TableCore(plan.profile)
    for ev in plan.events:
        assert core.handle(ev).rejected is None
    assert core.phase is Phase.COMPLETE
    assert 2 not in core.seats
    t = plan.events[-1].t + 0.1
    step = core.handle(ChipsOut(t, 2, None))
    assert step.rejected is None and not step.decisions
    # a seat nobody sat in is still refused
    assert core.handle(ChipsOut(t, 9, None)).rejected is not None


# The big blind ante is dead money (TDA 2024, big blind ante): a big blind all in for its
# blind and ante, called by the button for the blind, loses the ante too. pokerkit (antes
# not trimmed) plays the same hand as the outside reading.
BB_ALL_IN_WITH_ANTE = """
variant = 'NT'
ante_trimming_status = false
antes = [0, 100, 0]
blinds_or_straddles = [50, 100, 0]
min_bet = 100
starting_stacks = [1000, 200, 1000]
actions = ['d dh p1 9s8s', 'd dh p2 7c2d', 'd dh p3 AsAh', 'p3 cc', 'p1 f',
           'd db Ks9d4c', 'd db 3h', 'd db Jd', 'p2 sm 7c2d', 'p3 sm AsAh']
"""


def _replayed(text: str, profile: Profile) -> HandRecord:
    hh = parse_phh(text, "bb-ante")
    rec, _ = replay_core(hh, profile)
    assert rec is not None
    return rec


def test_big_blind_ante_is_dead_money_never_returned() -> None:
    pokerkit = pytest.importorskip("pokerkit")
    played = [int(x) for x in list(pokerkit.HandHistory.loads(BB_ALL_IN_WITH_ANTE))[-1].stacks]
    assert played == [950, 0, 1250]  # the button takes blind, ante and small blind
    rec = _replayed(BB_ALL_IN_WITH_ANTE, get_profile("tda-2024"))
    assert [s.end_stack for s in rec.seats] == played
    assert rec.returned == ()
    assert [(p.amount, p.winners) for p in rec.pots] == [(350, (3,))]


def _short_bb_posts(order: str) -> list[tuple[str, int]]:
    text = BB_ALL_IN_WITH_ANTE.replace("[1000, 200, 1000]", "[1000, 150, 1000]")
    prof = dataclasses.replace(get_profile("tda-2024"), bb_ante_order=AnteOrder(order))
    rec = _replayed(text, prof)
    return [(a.kind, a.amount) for a in rec.actions if a.seat == 2 and a.kind.startswith("post")]


def test_short_big_blind_posts_the_blind_first_by_default() -> None:
    """G10 / TDA 2024: 150 behind for a 100 blind and a 100 ante: blind 100, ante 50."""
    assert get_profile("tda-2024").bb_ante_order is AnteOrder.BLIND_FIRST
    assert _short_bb_posts("blind-first") == [("post_bb", 100), ("post_ante", 50)]


def test_short_big_blind_posts_the_ante_first_where_the_profile_says() -> None:
    assert _short_bb_posts("ante-first") == [("post_ante", 100), ("post_bb", 50)]


# 002 [L63]: "In split pots, the odd chip(s) will go to the left of the button" - in the
# smallest chip in play: 125 in 25-chips splits 75/50, not 63/62.
SPLIT_125 = """
variant = 'NT'
antes = [0, 0, 0]
blinds_or_straddles = [25, 50, 0]
min_bet = 50
starting_stacks = [1000, 1000, 1000]
actions = ['d dh p1 2c3d', 'd dh p2 Kh2d', 'd dh p3 Kd3c', 'p3 cc', 'p1 f', 'p2 cc',
           'd db TsJhQd', 'p2 cc', 'p3 cc', 'd db As', 'p2 cc', 'p3 cc',
           'd db 9h', 'p2 cc', 'p3 cc']
"""


def test_split_pot_is_paid_in_the_smallest_chip_left_of_the_button() -> None:
    prof = dataclasses.replace(get_profile("vistancia-002"), smallest_chip=25)
    rec = _replayed(SPLIT_125, prof)
    # the button is p3 (seat 3); the first winner left of it is seat 2
    assert rec.button == 3
    assert [(p.amount, p.shares) for p in rec.pots] == [(125, ((2, 75), (3, 50)))]
    assert rec.odd_chip
    # in 1-chips (the packaged profiles' setting) it is 63/62, the odd chip to seat 2 too
    rec = _replayed(SPLIT_125, get_profile("vistancia-002"))
    assert [(p.amount, p.shares) for p in rec.pots] == [(125, ((2, 63), (3, 62)))]


def test_a_smallest_chip_below_one_is_refused() -> None:
    with pytest.raises(ConfigError, match="smallest_chip"):
        profile_from_dict({"name": "x", "title": "x", "rulebook": "x", "smallest_chip": 0})
