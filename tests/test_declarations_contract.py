"""Issue 14, the venue contract: declarations are live ``declaration`` events and are in
the hand record (OHH, validated against the link's schema); the dealer's "not a check" is an
``actions_undone`` live event and the record keeps only what stood."""

from __future__ import annotations

import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from controller.daemon.live import LiveEvents
from controller.link import schemas
from controller.ohh import to_ohh, totals

sys.path.insert(0, str(Path(__file__).resolve().parent / "rules"))
from table_builder import Table

START = datetime(2024, 5, 1, 18, 30, tzinfo=UTC)


class Feed:
    """A table whose every accepted step goes through the daemon's live-event derivation."""

    def __init__(self, profile: str, players: int) -> None:
        self.t = Table(profile, players)
        self.live = LiveEvents("v1", "t1")
        self.events: list[tuple[str, dict[str, Any]]] = []

    def pump(self) -> None:
        core = self.t.core
        step = self.t.last()
        for kind, data, _ in self.live.after(core.snapshot(), step.decisions):
            self.events.append((kind, data))


def test_declarations_are_live_events_and_in_the_ohh_record() -> None:
    f = Feed("vistancia-002", 2)
    t = f.t
    t.post_blinds()
    t.deal()
    f.pump()
    t.declare(0, "raise")
    f.pump()
    t.chips(1, 50)  # the call part of the declared raise: no action yet
    f.pump()
    t.chips(1, 200)  # the raise, to 300
    f.pump()
    t.declare(0, "fold")
    f.pump()
    decl = [d for k, d in f.events if k == "declaration"]
    assert decl == [
        {"seat": 1, "declaration": "raise", "street": "preflop"},
        {"seat": 2, "declaration": "fold", "street": "preflop"},
    ]
    raises = [d for k, d in f.events if k == "action" and d["kind"] == "raise"]
    assert raises == [
        {"seat": 1, "kind": "raise", "amount": 250, "to": 300, "street": "preflop", "all_in": False}
    ]
    ohh = to_ohh(t.records[-1], START, table_size=9)
    schemas.validate("ohh", ohh)
    acts = ohh["rounds"][0]["actions"]
    assert [(a["action"], a.get("declaration")) for a in acts if a["action"] != "Dealt Cards"][
        -2:
    ] == [("Raise", "raise"), ("Fold", "fold")]
    put, pots, won = totals(ohh)
    assert put == pots == won


def test_not_a_check_is_announced_as_actions_undone() -> None:
    f = Feed("vistancia-002", 4)
    t = f.t
    t.post_blinds().deal().call_round().flop()
    f.pump()
    t.chips(4, 100)  # seats 2 and 3 taken to have checked
    f.pump()
    before = [d for k, d in f.events if k == "action" and d["street"] == "flop"]
    assert [(d["seat"], d["kind"]) for d in before] == [(2, "check"), (3, "check"), (4, "bet")]
    t.declare(0, "not_a_check")
    f.pump()
    assert f.events[-1] == ("actions_undone", {"count": 3, "street": "flop"})
    hand = t.core.hand
    assert hand is not None and [a.street for a in hand.actions].count(1) == 0
