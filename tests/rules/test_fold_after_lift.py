"""000 SECTION 3 DEAD HANDS 1. bullets 1-2 [L123-124]: folding kills the hand. The fold is
seen when the seat's card reaches the muck, also when the seat's antenna lost the card in
an earlier scan (the player lifted the cards before throwing them in)."""

from controller.rules.cards import Card
from controller.rules.engine import TableCore
from controller.rules.events import (
    CardPlaced,
    CardRemoved,
    SeatPlayer,
    SetButton,
    SetLevel,
    ZoneKind,
)
from controller.rules.profile import builtin_profile


def _dealt_table() -> tuple[TableCore, dict[int, list[str]]]:
    core = TableCore(builtin_profile("tda-2024"))
    core.handle(SetLevel(0.0, 50, 100))
    for s in (1, 2, 3):
        core.handle(SeatPlayer(0.0, s, f"p{s}", 10_000))
    core.handle(SetButton(0.0, 3))
    cards = ["As", "Kd", "7c", "2h", "9s", "Qd"]
    holes: dict[int, list[str]] = {1: [], 2: [], 3: []}
    t = 1.0
    for i, c in enumerate(cards):
        seat = (1, 2, 3)[i % 3]
        tag = f"A-{c}"
        holes[seat].append(tag)
        step = core.handle(CardPlaced(t, ZoneKind.HOLE, tag, Card.parse(c), seat=seat))
        assert step.rejected is None
        t += 0.3
    return core, holes


def test_fold_when_cards_lifted_in_an_earlier_scan() -> None:
    core, holes = _dealt_table()
    assert core.snapshot().to_act == 3
    tag = holes[3][0]
    core.handle(CardRemoved(5.0, ZoneKind.HOLE, tag, seat=3))
    assert core.snapshot().seat(3).in_hand  # lifting the cards is not a fold
    core.handle(CardPlaced(5.5, ZoneKind.MUCK, tag, Card.parse("7c")))
    snap = core.snapshot()
    assert snap.seat(3).folded
    assert snap.to_act == 1
