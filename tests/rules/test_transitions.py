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
from pathlib import Path

import pytest

from controller.rules import transitions
from controller.rules.engine import TableCore
from controller.rules.errors import LocalError
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
from controller.rules.phases import Phase
from controller.rules.profile import builtin_profile
from controller.rules.transitions import CLOCK, HANDLERS, TRANSITIONS, Transition

ROOT = Path(__file__).resolve().parents[2]
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
