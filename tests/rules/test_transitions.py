"""The transition table (controller/rules/transitions.py): one place for what each phase
accepts, the handler of each event and the phases it may lead to.

Checked against truths the table did not produce: the accepted events are the ``ACCEPTS``
gate the core had before the table (copied here from git history); the targets are the
phases the handlers' code can reach (a call graph of ``enter(Phase.X)`` calls read from the
rule modules' source); the diagram in docs/architecture.md is the table's. The property
tests (test_core_properties.py, test_export_restore.py) run thousands of random events
through the table's refusal: a change it lacked would raise out of ``handle``.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable
from pathlib import Path

import pytest

from controller.rules import transitions
from controller.rules.engine import TableCore
from controller.rules.errors import BadInput, LocalError
from controller.rules.events import (
    BadgeTap,
    ButtonPress,
    CardPlaced,
    CardRemoved,
    ChipsIn,
    ChipsOut,
    Declare,
    HoldDeal,
    Interrupted,
    MovePlayer,
    ReleaseDeal,
    SeatPlayer,
    SetButton,
    SetDealer,
    SetLevel,
    SetPresence,
    SetProfile,
    StartButtonDraw,
    Sweep,
    Tick,
    UnseatPlayer,
)
from controller.rules.phases import (
    BigBlindOption,
    BurnDebt,
    ClockState,
    FloorHold,
    MisdealCall,
    MisdealWindowState,
    Phase,
    SubState,
)
from controller.rules.profile import Profile, builtin_profile
from controller.rules.transitions import (
    CLOCK,
    DIVERTS,
    HANDLERS,
    MACHINES,
    SUBSTATES,
    TIME,
    TRANSITIONS,
    Transition,
)

ROOT = Path(__file__).resolve().parents[2]
PROFILE_NAMES = sorted(p.stem for p in (ROOT / "controller" / "rules" / "profiles").glob("*.toml"))
RULES = ROOT / "controller" / "rules"

# engine.py's ACCEPTS before the table (commit b055f69), plus Interrupted and Declare (issue
# 14: verbal declarations) while a hand plays, and the hand-for-hand hold in every phase
# (issue 25)
# table management (MovePlayer: issue 21, the venue's move as one event instead of two;
# SetProfile: issue 21, the venue's profile change a core event instead of the daemon's)
_T = {SeatPlayer, MovePlayer, UnseatPlayer, SetPresence, SetLevel, SetDealer, Tick, HoldDeal,
      ReleaseDeal, SetProfile}  # fmt: skip
_C = {CardPlaced, CardRemoved}
_CH = {ChipsIn, ChipsOut, Sweep}
_CO = {ButtonPress, BadgeTap}
OLD_ACCEPTS = {
    Phase.IDLE: _T | _C | _CH | _CO | {SetButton, StartButtonDraw},
    Phase.DRAW: _T | _C | _CO,
    Phase.DEALING: _T | _C | _CH | _CO | {Interrupted, Declare},
    Phase.BETTING: _T | _C | _CH | _CO | {Interrupted, Declare},
    Phase.BOARD: _T | _C | _CH | _CO | {Interrupted, Declare},
    Phase.SHOWDOWN: _T | _C | _CH | _CO | {Interrupted, Declare},  # issue 12; 24: 004 AR-6
    Phase.COMPLETE: _T | _C | _CH | _CO | {SetButton},
    Phase.MISDEAL: _T | _C | _CH | _CO,
    Phase.VOID: _T | _C | _CH | _CO,
}


def test_every_phase_accepts_what_it_accepted_before_the_table() -> None:
    assert set(TRANSITIONS) == set(Phase)
    for phase in Phase:
        assert set(TRANSITIONS[phase]) == OLD_ACCEPTS[phase], phase


def _reach() -> dict[str, set[str]]:
    """Function name -> the phases it can enter, directly or through what it calls (names
    resolved loosely across the package: an over-approximation)."""
    calls: dict[str, set[str]] = {}
    enters: dict[str, set[str]] = {}
    for path in RULES.glob("*.py"):
        for fn in ast.walk(ast.parse(path.read_text())):
            if not isinstance(fn, ast.FunctionDef):
                continue
            c, e = calls.setdefault(fn.name, set()), enters.setdefault(fn.name, set())
            for n in ast.walk(fn):
                if not isinstance(n, ast.Call):
                    continue
                f = n.func
                if isinstance(f, ast.Attribute):
                    c.add(f.attr)
                    if f.attr == "enter" and n.args and isinstance(n.args[0], ast.Attribute):
                        e.add(n.args[0].attr)
                elif isinstance(f, ast.Name):
                    c.add(f.id)
    reach = {k: set(v) for k, v in enters.items()}
    changed = True
    while changed:
        changed = False
        for name, callees in calls.items():
            for callee in callees & reach.keys():
                if not reach[callee] <= reach[name]:
                    reach[name] |= reach[callee]
                    changed = True
    return reach


def test_the_targets_are_what_each_handler_can_reach() -> None:
    """Per event kind, the phases the table lets it lead to (over all phases) are exactly the
    phases its handler's code can enter: a new ``enter`` call on a handler's path that the
    table does not list fails here, and so does a target no code can reach."""
    reach = _reach()
    for kind, handler in HANDLERS.items():
        listed = {to.name for row in TRANSITIONS.values() if kind in row
                  for to in row[kind].targets}  # fmt: skip
        assert listed == reach.get(handler.__name__, set()), kind.__name__
    clock = {to.name for targets in CLOCK.values() for to in targets}
    assert clock == reach["clock_tick"]


def test_the_kinds_the_engine_calls_directly_have_those_handlers_in_the_table() -> None:
    """TableCore.handle calls the handlers of the most frequent kinds directly (a native call
    in the compiled core): they must be the table's, in every phase that accepts the kind."""
    from controller.rules import handlers

    direct = {CardPlaced: handlers.card_placed, ChipsIn: handlers.chips_in,
              CardRemoved: handlers.card_removed, Sweep: handlers.sweep}  # fmt: skip
    for kind, handler in direct.items():
        assert HANDLERS[kind] is handler, kind.__name__
        for row in TRANSITIONS.values():
            if kind in row:
                assert row[kind].handler is handler, kind.__name__


def test_a_change_the_table_does_not_list_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    core = TableCore(builtin_profile("tda-2024"))
    with pytest.raises(LocalError):
        core.enter(Phase.BOARD)  # outside any event: nothing may change the phase
    assert core.phase is Phase.IDLE

    def to_board(c: TableCore, e: object) -> None:
        c.enter(Phase.BOARD)

    monkeypatch.setitem(TRANSITIONS[Phase.IDLE], SetDealer, Transition(to_board, ()))
    with pytest.raises(LocalError, match="idle -> board"):
        core.handle(SetDealer(1.0, "d1"))
    monkeypatch.setitem(TRANSITIONS[Phase.IDLE], SetDealer, Transition(to_board, (Phase.BOARD,)))
    assert core.handle(SetDealer(1.0, "d1")).phase is Phase.BOARD


def test_the_diagram_in_the_architecture_doc_is_the_tables() -> None:
    doc = (ROOT / "docs" / "architecture.md").read_text()
    found = re.search(r"```mermaid\n(stateDiagram-v2\n.*?)\n```", doc, re.S)
    assert found is not None, "docs/architecture.md has no stateDiagram-v2 block"
    assert found.group(1) == transitions.mermaid()


# ---------------------------------------------------------------------------- sub-states

STORED = {FloorHold, ClockState, MisdealCall, BurnDebt}  # changed through TableCore.shift


def _calls_and_shifts() -> tuple[dict[str, set[str]], dict[str, set[str]]]:
    """``module.function`` -> the functions it calls (``module.function``: a call through
    an imported module, a name imported from one, a name of its own module, or a method of
    the core: ``engine.x``), and -> the sub-states its ``shift`` calls name."""
    calls: dict[str, set[str]] = {}
    shifts: dict[str, set[str]] = {}
    for path in RULES.glob("*.py"):
        mod, tree = path.stem, ast.parse(path.read_text())
        mods: dict[str, str] = {}
        names: dict[str, str] = {}
        for n in ast.walk(tree):
            if isinstance(n, ast.ImportFrom) and n.module == "controller.rules":
                mods |= {a.asname or a.name: a.name for a in n.names}
            elif isinstance(n, ast.ImportFrom) and (n.module or "").startswith("controller.rules."):
                src = (n.module or "").rsplit(".", 1)[1]
                names |= {a.asname or a.name: f"{src}.{a.name}" for a in n.names}
        for fn in ast.walk(tree):
            if not isinstance(fn, ast.FunctionDef):
                continue
            key = f"{mod}.{fn.name}"
            c, s = calls.setdefault(key, set()), shifts.setdefault(key, set())
            for n in ast.walk(fn):
                if not isinstance(n, ast.Call):
                    continue
                f = n.func
                if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name):
                    if f.value.id in mods:
                        c.add(f"{mods[f.value.id]}.{f.attr}")
                    elif f.value.id in ("core", "self"):
                        c.add(f"engine.{f.attr}")
                    if f.attr == "shift":
                        targets = [n.args[1]]
                        if isinstance(n.args[1], ast.IfExp):
                            targets = [n.args[1].body, n.args[1].orelse]
                        for t in targets:
                            assert isinstance(t, ast.Attribute), ast.unparse(n)
                            assert isinstance(t.value, ast.Name), ast.unparse(n)
                            s.add(f"{t.value.id}.{t.attr}")
                elif isinstance(f, ast.Name):
                    c.add(names.get(f.id, f"{mod}.{f.id}"))
    return calls, shifts


def _closure(calls: dict[str, set[str]], start: dict[str, set[str]]) -> dict[str, set[str]]:
    reach = {k: set(v) for k, v in start.items()}
    changed = True
    while changed:
        changed = False
        for name, callees in calls.items():
            for callee in callees & reach.keys():
                if not reach[callee] <= reach.setdefault(name, set()):
                    reach[name] |= reach[callee]
                    changed = True
    return reach


def test_every_sub_state_has_a_row_and_leads_only_within_its_machine() -> None:
    machines = {type(first) for _, first in MACHINES}
    assert machines == STORED | {MisdealWindowState, BigBlindOption}
    assert set(SUBSTATES) == {s for m in machines for s in m}
    for state, row in SUBSTATES.items():
        for trigger, targets in row.items():
            assert trigger == TIME or trigger in HANDLERS, trigger
            assert all(type(t) is type(state) for t in targets), (state, trigger)
    for state in DIVERTS:
        assert state in SUBSTATES
    for first in (FloorHold.NONE, ClockState.OFF, MisdealCall.NONE, BurnDebt.NONE):
        assert first is next(iter(type(first)))  # the first state is the enum's first


def test_the_sub_state_targets_are_what_each_handler_can_reach() -> None:
    """Per event kind (and TIME: the clock run before it), the stored sub-states the table
    lets it lead to (over all rows) are exactly those its handler's code can ``shift`` to
    (a call graph of the rule modules, resolved by module)."""
    calls, shifts = _calls_and_shifts()
    reach = _closure(calls, shifts)

    def listed(trigger: object) -> set[str]:
        return {f"{type(t).__name__}.{t.name}" for state, row in SUBSTATES.items()
                if type(state) in STORED and trigger in row
                for t in row[trigger] if t is not state}  # fmt: skip

    for kind, handler in HANDLERS.items():
        assert listed(kind) == reach.get(f"handlers.{handler.__name__}", set()), kind.__name__
    assert listed(TIME) == reach["betting.clock_tick"]
    # every stored sub-state is written through shift only, in its owner
    for mod_fn, targets in shifts.items():
        for t in targets:
            assert t.split(".")[0] in {m.__name__ for m in STORED}, (mod_fn, t)


def test_the_diverting_functions_are_called_by_the_kinds_handler() -> None:
    calls, _ = _calls_and_shifts()
    reach = _closure(calls, {k: {k} for k in calls})
    for state, row in DIVERTS.items():
        for kind, functions in row.items():
            handler = f"handlers.{HANDLERS[kind].__name__}"
            for f in functions:
                name = f"{f.__module__.rsplit('.', 1)[1]}.{f.__name__}"
                assert name in reach[handler], (state, kind.__name__, name)


def test_a_sub_state_change_the_table_does_not_list_is_refused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    core = TableCore(builtin_profile("tda-2024"))
    with pytest.raises(LocalError, match="off -> running for no event"):
        core.shift(ClockState.OFF, ClockState.RUNNING)  # outside any event
    assert core.shift(ClockState.OFF, ClockState.OFF) is ClockState.OFF  # no change

    def countdown(c: TableCore, e: object) -> None:
        c.shift(ClockState.OFF, ClockState.COUNTDOWN)

    monkeypatch.setitem(TRANSITIONS[Phase.IDLE], SetDealer, Transition(countdown, (), SetDealer))
    with pytest.raises(LocalError, match="off -> countdown for SetDealer"):
        core.handle(SetDealer(1.0, "d1"))
    monkeypatch.setitem(SUBSTATES[ClockState.OFF], SetDealer, (ClockState.COUNTDOWN,))
    assert core.handle(SetDealer(1.0, "d1")).rejected is None


def test_the_clock_and_the_floor_hold_run_through_their_rows() -> None:
    """A real hand: CLOCK, the deadline and the countdown (TIME) run the clock's machine;
    the flags it replaced are derived from it (the seat only while it runs)."""
    from table_builder import Table

    from controller.rules.events import ConsoleButton

    t = Table("tda-2024", 4).post_blinds().deal()
    h = t.core.hand
    assert h is not None and h.clock_state is ClockState.OFF and h.clock_seat == 0
    seat = t.snap.to_act
    t.press(ConsoleButton.CLOCK)
    assert h.clock_state is ClockState.RUNNING and h.clock_seat == seat
    prof = t.core.profile
    t.core.handle(Tick(t.core.t + prof.clock_seconds + 0.5))
    assert h.clock_state is ClockState.COUNTDOWN
    t.core.handle(Tick(t.core.t + prof.clock_countdown_seconds + 1))
    assert h.clock_state is ClockState.OFF and h.clock_seat == 0
    assert h.players[seat].folded


def _derived_changes(
    profile: Profile, state: Callable[[TableCore], SubState]
) -> set[tuple[SubState, SubState, str]]:
    """Real hands (a sample of the corpus, every folder) dealt under ``profile``: every
    change of the derived sub-state ``state`` an event makes is one its row lists for that
    kind; the changes seen."""
    from hwsim.dealer import plan_hand
    from hwsim.phh import iter_phh_paths, load_phh
    from tests.shared import PHH

    seen: set[tuple[SubState, SubState, str]] = set()
    for path in list(iter_phh_paths([str(PHH)]))[::300]:
        try:
            events = plan_hand(load_phh(path), profile).events
        except BadInput:
            continue  # a hand the simulated table does not deal (a straddle, 10 players...)
        core = TableCore(profile)
        for ev in events:
            before = state(core)
            assert core.handle(ev).rejected is None
            after = state(core)
            if after is not before:
                assert after in SUBSTATES[before].get(type(ev), ()), (before, after, ev)
                seen.add((before, after, type(ev).__name__))
    return seen


def test_the_big_blind_option_changes_seen_in_real_hands_are_in_the_table() -> None:
    """bb_option.state under club-003 with the ACK press turned on (test_bb_option.py)."""
    from dataclasses import replace

    from controller.rules import bb_option

    profile = replace(builtin_profile("club-003"), bb_option_ack=True)
    seen = _derived_changes(profile, bb_option.state)
    assert (BigBlindOption.CLOSED, BigBlindOption.OPEN, "CardPlaced") in seen
    assert {(b, a) for b, a, _ in seen} == {
        (BigBlindOption.CLOSED, BigBlindOption.OPEN),
        (BigBlindOption.OPEN, BigBlindOption.CLOSED),
    }


@pytest.mark.parametrize("name", PROFILE_NAMES)
def test_the_misdeal_window_changes_seen_in_real_hands_are_in_the_table(name: str) -> None:
    """misdeal.window under each profile (each closes the window its own way)."""
    from controller.rules import misdeal

    seen = _derived_changes(builtin_profile(name), misdeal.window)
    opened = (MisdealWindowState.CLOSED, MisdealWindowState.OPEN, "CardPlaced")
    assert opened in seen  # the deal's first card
    assert {(b, a) for b, a, _ in seen} == {
        (MisdealWindowState.CLOSED, MisdealWindowState.OPEN),
        (MisdealWindowState.OPEN, MisdealWindowState.CLOSED),
    }


def test_the_sub_state_diagrams_in_the_architecture_doc_are_the_tables() -> None:
    doc = (ROOT / "docs" / "architecture.md").read_text()
    blocks = re.findall(r"```mermaid\n(stateDiagram-v2\n.*?)\n```", doc, re.S)
    assert blocks[1:] == [transitions.sub_mermaid(first) for _, first in MACHINES]


def test_the_floor_hold_runs_through_its_rows_and_a_rejected_event_leaves_it() -> None:
    """A folded hand held for the director (retrieve.py): FLOOR holds it, the badge rules,
    ACK retrieves it. A rejected event changes no sub-state, and ``can`` answers as
    ``handle`` does at each step."""
    from table_builder import Table

    from controller.rules.events import ChipsIn, ConsoleButton

    cards = {2: "2c7d", 3: "3c8d", 4: "4h9s", 1: "AsAd"}  # as test_retrieve.py
    t = Table("a2c-000", players=4).button(1).post_blinds().deal(cards)
    t.chips(4, 100).fold(1)
    h = t.core.hand
    assert h is not None and h.floor_state is FloorHold.NONE
    t.press(ConsoleButton.FLOOR)
    assert h.floor_state is FloorHold.HELD and h.floor_hold == "retrieve-seat-1"
    before = t.core.export()
    bad = ChipsIn(t.now(), 9, 50)  # no player at seat 9: rejected
    assert not t.core.can(bad)
    assert t.send(bad).rejected is not None and t.core.export() == before
    t.badge("td-1")
    assert h.floor_state is FloorHold.RULING and h.floor_badge == "td-1"
    ack = ButtonPress(t.now(), ConsoleButton.ACK)
    assert t.core.can(ack)
    t.send(ack)
    assert h.floor_state is FloorHold.NONE and h.floor_hold == h.floor_badge == ""
    assert t.snap.seat(1).in_hand  # retrieved
