"""Issue 14, property: no sequence of chip motions (in turn, out of turn, second motions,
oversized chips, chips taken back), declarations (every word, any seat, "not a check") and
dealer actions (ACK, folds) creates or loses a chip, in any profile. The chips at the table
(stacks behind plus the pot) stay what the players sat down with, a rejected event changes
nothing, and a completed hand's stacks add up to the same total."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from table_builder import PROFILES, Table

from controller.rules.events import (
    ButtonPress,
    ChipsIn,
    ChipsOut,
    ConsoleButton,
    Declaration,
    Declare,
    Sweep,
)
from controller.rules.state import TableState

STACK = 1000
PLAYERS = 4

seats = st.integers(min_value=1, max_value=PLAYERS)
moves = st.one_of(
    st.tuples(st.just("chips"), seats, st.integers(1, 400), st.sampled_from([(), (500,), (1000,)])),
    st.tuples(st.just("none"), seats, st.just(0), st.just(())),
    st.tuples(st.just("out"), seats, st.integers(1, 400), st.just(())),
    st.tuples(
        st.just("declare"), st.integers(0, PLAYERS), st.sampled_from(list(Declaration)), st.just(())
    ),
    st.tuples(st.just("ack"), st.just(0), st.just(0), st.just(())),
    st.tuples(st.just("fold"), seats, st.just(0), st.just(())),
    st.tuples(st.just("sweep"), st.just(0), st.just(0), st.just(())),
)


def _total(s: TableState) -> int:
    return sum(x.stack for x in s.seats) + s.pot


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(profile=st.sampled_from(PROFILES), script=st.lists(moves, min_size=1, max_size=40),
       flop=st.booleans())  # fmt: skip
def test_no_sequence_of_motions_and_declarations_creates_or_loses_chips(
    profile: str, script: list[tuple[str, int, Any, tuple[int, ...]]], flop: bool
) -> None:
    t = Table(profile, PLAYERS, stack=STACK).post_blinds().deal()
    if flop:
        t.call_round().flop()
    want = PLAYERS * STACK
    assert _total(t.snap) == want
    for kind, seat, arg, chips in script:
        before = t.snap
        if kind == "chips":
            step = t.send(ChipsIn(t.now(), seat, arg, chips if chips else ()))
        elif kind == "none":
            step = t.send(ChipsIn(t.now(), seat, None))
        elif kind == "out":
            step = t.send(ChipsOut(t.now(), seat, arg))
        elif kind == "declare":
            step = t.send(Declare(t.now(), arg, seat))
        elif kind == "ack":
            step = t.send(ButtonPress(t.now(), ConsoleButton.ACK))
        elif kind == "sweep":
            step = t.send(Sweep(t.now()))
        else:
            s = t.snap.seat(seat)
            if s is None or not s.in_hand or s.folded or t.core.hand is None:
                continue
            t.fold(seat)
            step = t.last()
        snap = t.snap
        if step.rejected is not None:
            assert snap == before, step.rejected
        assert all(x.stack >= 0 for x in snap.seats)
        assert _total(snap) == want, (kind, seat, arg, step)
    for rec in t.records:
        assert sum(s.end_stack for s in rec.seats) == want
        assert sum(s.won for s in rec.seats) == sum(p.amount for p in rec.pots)
