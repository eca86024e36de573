"""The core's decisions and records are read-only values.

They are not ``@dataclass(frozen=True)`` (whose generated ``__init__`` costs 1-2 µs an object
in either build): every attribute is ``Final``, so mypy --strict refuses an assignment. That
is the guard: at run time neither build refuses one (mypyc 1.20 gives ``Final`` attributes a
setter; a run-time check here, written for an earlier mypyc, failed against the compiled
build and was removed).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from mypy import api as mypy_api

from controller.rules.cards import Card, Suit
from controller.rules.decisions import (
    ActionRecord,
    Alert,
    AlertCode,
    HandComplete,
    HandRecord,
    Instruction,
    PotRecord,
    SeatRecord,
    Severity,
)
from controller.rules.engine import Step
from controller.rules.phases import Phase
from controller.rules.pots import Pot
from controller.rules.seating import Positions

ROOT = Path(__file__).resolve().parents[2]
ACE = Card(14, Suit.SPADES)


def _values() -> list[object]:
    alert = Alert(AlertCode.MISSING_BURN, Severity.WARNING, "000 SECTION 3", "burn", 2, ACE, 1.5)
    action = ActionRecord(1, 3, "bet", 200, 200, 2.0)
    seat = SeatRecord(3, "ann", 1000, 1200, (ACE,), 200)
    pot = PotRecord(400, (3, 5), (3,), ((3, 400),), "Pair")
    record = HandRecord(
        "t1", 7, 1, "tda-2024", "dee", 0.0, 9.0, 1, 2, 3, 50, 100, 0,
        (seat,), (ACE,), (), (action,), (pot,), (alert,),
    )  # fmt: skip
    return [
        alert,
        Instruction("burn", 0, ACE, 1.0),
        action,
        seat,
        pot,
        record,
        HandComplete(record),
        Step(Phase.BETTING, 7, (alert,)),
        Positions(1, 2, 3),
        Pot(400, (3, 5)),
    ]


def test_values_compare_hash_and_print_like_dataclasses() -> None:
    for a, b in zip(_values(), _values(), strict=True):
        assert a == b and hash(a) == hash(b), type(a).__name__
        assert repr(a).startswith(type(a).__name__ + "("), repr(a)
        assert dataclasses.is_dataclass(a)
        assert dataclasses.fields(a)  # type: ignore[arg-type]
    alert = Alert(AlertCode.MISSING_BURN, Severity.WARNING, "c", "r")
    assert (alert.seat, alert.card, alert.t) == (0, None, 0.0)  # the defaults
    assert Alert(AlertCode.MISSING_BURN, Severity.WARNING, "c", "r", seat=4) != alert


@pytest.mark.timeout(120)
def test_mypy_refuses_assigning_to_a_decision(tmp_path: Path) -> None:
    snippet = tmp_path / "assign.py"
    lines = [
        "from controller.rules.decisions import ActionRecord, Alert, HandRecord",
        "from controller.rules.engine import Step",
        "def f(a: Alert, r: ActionRecord, h: HandRecord, s: Step) -> None:",
        "    a.seat = 3",
        "    r.amount = 0",
        "    h.seats = ()",
        "    s.decisions = ()",
    ]
    snippet.write_text("\n".join(lines) + "\n")
    out, _err, status = mypy_api.run(
        ["--strict", "--no-incremental", "--follow-imports=silent", str(snippet)]
    )
    assert status == 1, out
    for n, name in ((4, "seat"), (5, "amount"), (6, "seats"), (7, "decisions")):
        assert f'assign.py:{n}: error: Cannot assign to final attribute "{name}"' in out, out
