"""``TableCore.can(event)`` runs the checks of handling without changing anything (as
pokerkit's ``verify``/``can``/``do``): for random event sequences, ``can(e)`` is True exactly
when ``handle(e)`` is not rejected, and the table's whole state (``export``) is the same
after ``can`` as before."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from table_builder import Table
from test_core_properties import events, plausible

from controller.rules.engine import TableCore
from controller.rules.events import (
    CardPlaced,
    CardRemoved,
    ChipsIn,
    Event,
    SeatPlayer,
    SetButton,
    SetLevel,
    ZoneKind,
)
from controller.rules.profile import builtin_profile, builtin_profile_names


def _can_then_handle(core: TableCore, ev: Event) -> None:
    before = core.export()
    said = core.can(ev)
    assert core.export() == before, f"can({ev}) changed the state"
    step = core.handle(ev)
    assert said == (step.rejected is None), (
        f"can({ev}) said {said}, handle rejected it: {step.rejected}"
    )


@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])  # fmt: skip
@given(
    profile=st.sampled_from(builtin_profile_names()),
    script=st.lists(events(), min_size=1, max_size=50),
)
def test_can_answers_as_handle_does_for_any_events(
    profile: str, script: list[tuple[float, object]]
) -> None:
    core = TableCore(builtin_profile(profile))
    t = 0.0
    for ev in (SetLevel(t, 50, 100), SeatPlayer(t, 1, "p1", 1000), SeatPlayer(t, 2, "p2", 1000),
               SeatPlayer(t, 3, "p3", 600), SetButton(t, 1)):  # fmt: skip
        core.handle(ev)
    for dt, maker in script:
        t = round(t + dt, 6)
        _can_then_handle(core, maker(t))  # type: ignore[operator]


@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])  # fmt: skip
@given(
    profile=st.sampled_from(builtin_profile_names()),
    script=st.lists(plausible(), min_size=1, max_size=40),
)
def test_can_answers_as_handle_does_during_a_hand(
    profile: str, script: list[tuple[float, object]]
) -> None:
    tb = Table(profile, {1: 1000, 2: 1000, 3: 400}).post_blinds()
    tb.deal({2: "2c3c", 3: "4c5c", 1: "6c7c"})
    core = tb.core
    t = tb.t
    for dt, maker in script:
        t = round(t + dt, 6)
        made = maker(t)  # type: ignore[operator]
        tags = core.snapshot().tags
        evs: list[Event]
        if isinstance(made, tuple) and made[0] == "fold":
            evs = [CardPlaced(t, ZoneKind.MUCK, tg, core.card_of.get(tg))
                   for tg, z, s in tags if z == "hole" and s == made[1]]  # fmt: skip
        elif isinstance(made, tuple):
            evs = [CardRemoved(t, ZoneKind(z), tg, s) for tg, z, s in tags if z != "muck"]
        else:
            evs = [made]
        for ev in evs:
            _can_then_handle(core, ev)


def test_can_refuses_what_the_handler_refuses_in_an_accepting_phase() -> None:
    """The transition table accepts ChipsIn while betting, but the handler refuses chips
    beyond a seat's stack: so does can (before, it answered from the table's row only)."""
    tb = Table("tda-2024", {1: 1000, 2: 1000, 3: 400}).post_blinds()
    tb.deal({2: "2c3c", 3: "4c5c", 1: "6c7c"})
    core = tb.core
    to_act = core.snapshot().to_act
    too_much = ChipsIn(tb.t + 1, to_act, 5000)
    assert core.can(too_much) is False
    assert core.handle(too_much).rejected is not None
    call = ChipsIn(tb.t + 1, to_act, 100)
    assert core.can(call) is True
    assert core.handle(call).rejected is None
