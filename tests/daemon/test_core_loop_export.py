"""The table's export that the core loop keeps between hands (controller/daemon/core_loop.py,
``table_before``): a sensor's event between hands needs the table as it was before it, for
the first entry of the hand's log should it start one. The export is taken at the end of
the event before, off the alert's path, and used only while the core's revision says the
table has not changed since: a rejected event keeps it, an accepted one, a restore or a
profile switch makes a new one, and the hand's first log entry is the table just before
the event that started the hand."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from controller.daemon import core_loop
from controller.daemon.clock import ManualClock
from controller.daemon.core_loop import Item
from controller.daemon.service import Daemon
from controller.rules.cards import Card
from controller.rules.events import (
    CardPlaced,
    ChipsIn,
    SeatPlayer,
    SetButton,
    SetLevel,
    ZoneKind,
)
from controller.rules.handlog import START
from controller.rules.profile import builtin_profile
from hwsim.layout import daemon_config
from tests.daemon.daemon_rig import close_daemon

T0 = 5000.0


def _daemon(tmp_path: Path) -> Daemon:
    cfg = daemon_config("in-process", "127.0.0.1", 1, "kept", "tda-2024", tmp_path / "state", {})
    return Daemon(cfg, clock=ManualClock(start=T0))


def test_a_rejected_event_keeps_the_export_and_a_change_replaces_it(tmp_path: Path) -> None:
    d = _daemon(tmp_path)
    try:
        core = d.core
        core_loop.serve(d, Item(CardPlaced(T0, ZoneKind.HOLE, "ee000001", None, 1), "reader"))
        assert d.stats.rejected == 1  # no players, no button: refused
        kept = d.table_kept
        assert kept is not None and kept[0] == core.revision and kept[1] == core.export()
        core_loop.serve(d, Item(CardPlaced(T0 + 1, ZoneKind.HOLE, "ee000002", None, 2), "reader"))
        assert d.stats.rejected == 2
        assert d.table_kept is kept  # nothing changed: the same export, not a new one

        core_loop.serve(d, Item(SeatPlayer(T0 + 2, 1, "p1", 1000), "venue"))  # accepted
        assert d.table_kept is not kept
        assert d.table_kept == (core.revision, core.export())
        assert dict(d.table_kept[1].seats)[1].stack == 1000

        # changed from outside the core loop (a restart's restore): never the stale export
        core.restore(dataclasses.replace(core.export(), dealer="D-17"))
        assert core_loop.table_before(d).dealer == "D-17"
        core.switch_profile(builtin_profile("roberts-rules"))
        assert core_loop.table_before(d).profile.name == "roberts-rules"
    finally:
        close_daemon(d)


def test_the_hands_first_log_entry_is_the_table_before_the_event(tmp_path: Path) -> None:
    d = _daemon(tmp_path)
    try:
        for ev in (
            SetLevel(T0, 50, 100),
            SeatPlayer(T0, 1, "p1", 1000),
            SeatPlayer(T0, 2, "p2", 800),
            SetButton(T0, 1),
        ):
            step = core_loop.handle(d, Item(ev, "venue"))
            assert step.rejected is None, step.rejected
        # a refused event between hands (chips in an empty seat's zone), then the deal
        core_loop.serve(d, Item(ChipsIn(T0 + 1, 5, 100), "reader"))
        assert d.stats.rejected == 1
        before = d.core.export()
        card = CardPlaced(T0 + 2, ZoneKind.HOLE, "ee000001", Card.parse("As"), 2)
        core_loop.serve(d, Item(card, "reader"))
        assert d.core.hand is not None and d.core.hand_no == 1
        start = d.store.hand_events(1)[0]  # written on the loop at once (storage.py)
        assert start["type"] == START
        assert start["t"] == before.t == T0
        assert start["seats"]["2"][1] == 800 and start["hand_no"] == before.hand_no == 0
    finally:
        close_daemon(d)
