"""The hand-log codec (controller/rules/handlog.py): what the daemon writes to its durable
per-hand log decodes into the same table, and a malformed entry is a clear HandLogError
naming what is wrong (the daemon skips it and plays on)."""

from __future__ import annotations

import dataclasses
import json

import pytest

from controller.rules import handlog
from controller.rules.cards import Card
from controller.rules.engine import TableCore
from controller.rules.errors import BadInput, HandLogError
from controller.rules.events import (
    ButtonPress,
    CardPlaced,
    ChipsIn,
    ConsoleButton,
    SeatPlayer,
    SetButton,
    SetLevel,
    ZoneKind,
)
from controller.rules.hand import Level
from controller.rules.profile import builtin_profile


def _between_hands() -> TableCore:
    core = TableCore(builtin_profile("tda-2024"), "t1")
    seat = [SeatPlayer(1, s, f"p{s}", 1100 - 100 * s) for s in (1, 2, 3)]
    for ev in (SetLevel(1, 50, 100), *seat, SetButton(1, 1), ChipsIn(2, 2, 50), ChipsIn(2, 3)):
        assert core.handle(ev).rejected is None
    core.handle(SetLevel(3, 100, 200, 25))
    return core


def test_a_start_entry_through_json_is_the_same_table() -> None:
    core = _between_hands()
    entry = json.loads(json.dumps(handlog.encode_start(core.export(), "2026-01-01T00:00:00")))
    fresh = TableCore(builtin_profile("tda-2024"), "t1")
    fresh.restore(handlog.decode_start(fresh.export(), entry, offset=10.0))
    assert fresh.export() == dataclasses.replace(core.export(), t=core.t + 10.0)
    assert fresh.snapshot() == core.snapshot()


@pytest.mark.parametrize(
    "ev",
    [
        CardPlaced(5.0, ZoneKind.HOLE, "04000001", Card.parse("Ah"), 2, "A"),
        CardPlaced(5.0, ZoneKind.MUCK, "X", None),
        ChipsIn(6.0, 3, 200, (100, 100)),
        ButtonPress(7.0, ConsoleButton.MISDEAL, long=True),
    ],
)
def test_an_event_through_json_is_the_same_event(ev: object) -> None:
    data = json.loads(json.dumps(handlog.encode_event(ev)))  # type: ignore[arg-type]
    assert handlog.decode_event(data) == ev
    assert handlog.decode_event(data, 1.5) == dataclasses.replace(ev, t=ev.t + 1.5)  # type: ignore[attr-defined,type-var]


@pytest.mark.parametrize(
    ("entry", "words"),
    [
        ({"type": "SetButton", "t": 1, "seat": 3}, "unknown event type 'SetButton'"),
        ({"type": "CardPlaced", "t": 1, "zone": "table", "tag": "x", "card": None}, "CardPlaced"),
        ({"type": "ChipsIn", "t": "soon", "seat": 1}, "ChipsIn"),
        ({"type": "CardPlaced", "t": 1, "zone": "hole", "tag": "x", "card": "Zz"}, "CardPlaced"),
    ],
)
def test_a_malformed_entry_is_a_clear_error(entry: dict[str, object], words: str) -> None:
    with pytest.raises(HandLogError, match=words) as info:
        handlog.decode_event(entry)
    assert isinstance(info.value, BadInput)


def test_stored_table_values_that_are_unreadable_or_older() -> None:
    core = _between_hands()
    data = core.export()
    with pytest.raises(HandLogError, match="button position"):
        handlog.with_positions(data, {"button": "left"})
    assert handlog.with_positions(data, None) is data
    with pytest.raises(HandLogError, match="level state"):
        handlog.with_levels(data, {"level": "x"})
    assert handlog.with_levels(data, None) is None
    levels = handlog.encode_levels(Level(50, 100, 0, 3), Level(100, 200, 25, 4), True)
    restored = handlog.with_levels(data, levels)
    assert restored is not None and restored.pending_level == (100, 200, 25)
    assert (restored.level_number, restored.pending_level_number) == (3, 4)
    # a level state written before the core kept the numbers: not numbered
    old = handlog.with_levels(data, {"level": [50, 100, 0], "pending": None})
    assert old is not None and (old.level_number, old.pending_level_number) == (0, 0)
    with pytest.raises(HandLogError, match="start entry"):
        handlog.decode_start(data, {"type": "_start", "t": 0})
