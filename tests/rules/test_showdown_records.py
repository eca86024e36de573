"""The end of a hand in the record and at the table (issue 12)."""

from __future__ import annotations

from controller.rules.engine import TableCore
from controller.rules.events import ChipsOut
from controller.rules.phases import Phase
from controller.rules.profile import get_profile
from hwsim.dealer import plan_hand
from hwsim.phh import load_phh
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
