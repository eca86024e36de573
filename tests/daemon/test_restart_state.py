"""Restart recovery of the rules core's state beyond seats, stacks and the button: the level
state (the level in force, a pending level and G11's wait: a level set after the coming
hand's blinds are in applies from the hand after) between hands and inside a hand's
``_start`` record, and the posts sensed by presence only (L3).

Between hands: the in-process daemon on a pty board and a private mosquitto; stopped after
the blinds and the level change, started again on the same storage with the blind chips
still in the betting zones; the next hand must be dealt at the old level. In a hand: the
``_start`` record of a hand dealt after such a level change, replayed into a fresh core."""

from __future__ import annotations

import asyncio
import dataclasses
from pathlib import Path

import pytest

from controller.daemon import config, recovery
from controller.daemon.service import Daemon
from controller.daemon.translate import encode_event
from controller.rules.cards import Card
from controller.rules.engine import Level, TableCore
from controller.rules.events import (
    CardPlaced,
    ChipsIn,
    SeatPlayer,
    SetButton,
    SetLevel,
    ZoneKind,
)
from controller.rules.hand import Hand
from controller.rules.profile import get_profile
from tests.brokers import plain_broker
from tests.daemon.daemon_rig import mapping, running, wait_for

# the levels the venue set (level 1, then level 2: the core keeps their numbers)
OLD, NEW = Level(50, 100, 0, 1), Level(100, 200, 0, 2)


@pytest.mark.timeout(90)
def test_level_set_after_the_blinds_waits_a_hand_across_a_restart(tmp_path: Path) -> None:
    with plain_broker() as broker:
        asyncio.run(asyncio.wait_for(_between_hands(tmp_path, broker.port), 80))


async def _between_hands(tmp: Path, port: int) -> None:
    storage = tmp / "state"
    async with running(tmp, port, storage=storage) as rig:
        await rig.setup()  # 50/100, seats 1-3, button at seat 1: blinds seats 2 and 3
        # a table that has dealt hands (G11 is about a level change between hands): as if
        # hand 4 was the last one, rather than dealing four hands here
        core = rig.daemon.core
        core.restore(dataclasses.replace(core.export(), hand_no=4))
        rig.daemon.store.put("hand_counter", 4)
        await rig.chips(2, 50)
        await rig.chips(3, 100)
        await rig.venue.do("set_level", level=2, small_blind=100, big_blind=200, ante=0)
        await rig.settled()
        core = rig.daemon.core
        assert (core.level, core.pending_level, core.level_waits) == (OLD, NEW, True)
        on_table = dict(rig.where)  # the blind chips, left in the betting zones
    async with running(tmp, port, storage=storage) as rig:
        core = rig.daemon.core
        assert (core.level, core.pending_level, core.level_waits) == (OLD, NEW, True)
        for uid, ant in on_table.items():  # the board reads the chips that never moved
            rig.board.place(ant, uid)
            rig.where[uid] = ant
        await wait_for(lambda: all(u in rig.daemon.tracker.present() for u in on_table),
                       "the blind chips")  # fmt: skip
        await rig.settled()
        cards = ["2c", "7d", "9h", "Ks", "3c", "8d"]
        for seat, card in zip((2, 3, 1) * 2, cards, strict=True):
            await rig.deal(seat, card)
        await wait_for(lambda: rig.state()["to_act"] == 1, "the button to act")
        hand = core.hand
        assert hand is not None and (hand.small_blind, hand.big_blind) == (50, 100)
        assert core.pending_level == NEW and not core.level_waits  # from the hand after


def _table(presence_seat: int) -> TableCore:
    """Three seats, 50/100, button at seat 1; the small blind (seat 2) sensed by presence
    only when ``presence_seat`` is 2, the big blind by its chip tags; then the level goes up."""
    core = TableCore(get_profile("tda-2024"), "t1")
    core.handle(SetLevel(1.0, 50, 100, 0))  # before the first hand: in force at once
    core.restore(dataclasses.replace(core.export(), hand_no=4))
    # hands have been played: a new level waits for the next hand
    for s in (1, 2, 3):
        core.handle(SeatPlayer(1.0, s, f"p{s}", 10_000))
    core.handle(SetButton(1.0, 1))
    core.handle(ChipsIn(2.0, 2, None if presence_seat == 2 else 50))
    core.handle(ChipsIn(2.0, 3, 100))
    core.handle(SetLevel(3.0, 100, 200, 0))
    return core


@pytest.mark.parametrize("presence_seat", [2, 0])
def test_start_record_keeps_level_wait_and_presence_posts(presence_seat: int) -> None:
    core = _table(presence_seat)
    start = recovery.capture(core, "2026-01-01T00:00:00+00:00")
    first = CardPlaced(4.0, ZoneKind.HOLE, "04000001", Card.parse("2c"), 2, "A")
    step = core.handle(first)
    assert step.rejected is None and core.hand is not None
    fresh = TableCore(get_profile("tda-2024"), "t1")
    res = recovery.replay_hand(fresh, [start, encode_event(first)], now=100.0)
    assert res.rejected == 0 and fresh.hand is not None
    assert (fresh.hand.small_blind, fresh.hand.big_blind) == (50, 100)
    assert (fresh.level, fresh.pending_level) == (core.level, core.pending_level)

    # the forced bets and their alerts (a presence-only post is not "short", L3) match
    def forced(h: Hand) -> object:
        return (
            [(a.seat, a.kind, a.amount) for a in h.actions],
            {s: (p.stack, p.total, p.street_bet) for s, p in h.players.items()},
            h.unconfirmed,
        )

    assert forced(fresh.hand) == forced(core.hand)
    assert [type(d).__name__ + str(getattr(d, "code", "")) for d in res.decisions] == [
        type(d).__name__ + str(getattr(d, "code", "")) for d in step.decisions
    ]


def test_level_state_from_the_store_and_from_an_older_store(tmp_path: Path) -> None:
    """The stored level state is the core's (``levels``: its numbers included), restored as
    it was; an unreadable one restores nothing. A store of an earlier version (the numbers
    kept by the daemon in ``level_numbers``) gets its numbers back."""
    core = TableCore(get_profile("tda-2024"), "t1", hand_no=3)
    data = {"level": [50, 100, 0], "pending": [100, 200, 0], "waits": True, "number": 1,
            "pending_number": 2}  # fmt: skip
    assert recovery.apply_levels(core, data)
    assert (core.level, core.pending_level, core.level_waits) == (
        Level(50, 100, 0, 1), Level(100, 200, 0, 2), True)  # fmt: skip
    assert recovery.levels_data(core) == data
    other = TableCore(get_profile("tda-2024"), "t1", hand_no=3)
    assert not recovery.apply_levels(other, {"level": "x"})
    assert (other.level, other.pending_level, other.level_waits) == (Level(0, 0, 0), None, False)
    # through the daemon's start, from a store of the earlier version
    storage = tmp_path / "state"
    cfg = config.from_mapping(mapping("/dev/null", 1883, storage))
    d = Daemon(cfg)
    try:
        d.store.put("levels", {k: data[k] for k in ("level", "pending", "waits")})
        d.store.put("level_numbers", {"in_force": 3, "pending": 4})
    finally:
        _close(d)
    d = Daemon(cfg)
    try:
        assert (d.core.level, d.core.pending_level, d.core.level_waits) == (
            Level(50, 100, 0, 3), Level(100, 200, 0, 4), True)  # fmt: skip
    finally:
        _close(d)


def _close(d: Daemon) -> None:
    for w in (d.table_writer, d.outbox_writer):
        w.close()
    for db in (d.store, d.writer_store, d.writer_outbox):
        db.close()
