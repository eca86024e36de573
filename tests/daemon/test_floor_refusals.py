"""Issue 22: floor commands that would break a table, sent as raw MQTT to a real daemon (a
private mosquitto, the reader board on a pty, MockFactory GPIO, a six-seat zone map): each
is refused with a sentence a floor person reads, changes neither the rules core, the table
store nor the seat names, and the table deals the next hand without an alert.

The refusals are those the floor console shows for the same mistakes (tests/floor/
test_floor_refusals_browser.py drives them from the browser)."""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from pathlib import Path
from typing import Any

import pytest

from tests.brokers import plain_broker
from tests.daemon.daemon_rig import Rig, running, wait_for

#: (command, args, the exact answer): what the floor does wrong, and what it reads
REFUSALS: list[tuple[str, dict[str, Any], str]] = [
    ("seat", {"seat": 7, "player_id": "p7", "name": "Alice", "stack": 5000},
     "Seat 7 does not exist at this table: it has seats 1-6."),
    ("seat", {"seat": 1, "player_id": "p9", "name": "Zed", "stack": 5000},
     "Seat 1 is taken by p1: unseat or move them first."),
    ("seat", {"seat": 5, "player_id": "p2", "name": "Player 2", "stack": 5000},
     "Player p2 already sits in seat 2: move them instead."),
    ("seat", {"seat": 5, "player_id": " ", "name": "Bob", "stack": 5000},
     "The player id ' ' is not usable: use letters, digits and . _ : - (at most 64, starting"
     " with a letter or digit)."),
    ("seat", {"seat": 5, "player_id": "p5", "name": "Bob"}, "Missing: the stack."),
    ("seat", {"seat": 11, "player_id": "p5", "name": "Bob", "stack": 5000},
     "Seat 11 does not exist: seats are numbered 1 to 10 at most."),
    ("unseat", {"seat": 9}, "Seat 9 does not exist at this table: it has seats 1-6."),
    ("unseat", {"seat": 5}, "Seat 5 is empty: there is nobody to unseat."),
    ("move", {"from_seat": 1, "to_seat": 8},
     "Seat 8 does not exist at this table: it has seats 1-6."),
    ("move", {"from_seat": 1, "to_seat": 2}, "Seat 2 is taken by p2: choose a free seat."),
    ("move", {"from_seat": 5, "to_seat": 6}, "Seat 5 is empty: there is nobody to move."),
    ("set_level", {"level": 2, "small_blind": 0, "big_blind": 200, "ante": 0},
     "The small blind must be above zero (got 0)."),
    ("set_level", {"level": 2, "small_blind": 100, "big_blind": 200, "ante": 5000},
     "The ante (5,000) may not be larger than the big blind (200)."),
    ("set_level", {"level": 2, "small_blind": 300, "big_blind": 200, "ante": 0},
     "The small blind (300) may not be larger than the big blind (200)."),
    ("set_level", {"level": 2, "small_blind": 100, "big_blind": 200, "ante": 0,
                   "big_blind_ante": True},
     "A big blind ante needs an ante above zero: give the ante, or untick big blind ante."),
]  # fmt: skip


def body(cmd: str, args: dict[str, Any]) -> dict[str, Any]:
    return {"request_id": uuid.uuid4().hex[:16], "ts": time.time(), "command": cmd, "args": args}


async def send(rig: Rig, cmd: str, args: dict[str, Any]) -> dict[str, Any]:
    b = body(cmd, args)
    return await rig.venue.send(json.dumps(b).encode(), b["request_id"])


def table(rig: Rig) -> tuple[Any, Any, dict[str, Any]]:
    d = rig.daemon
    return d.core.snapshot(), (d.core.level, d.core.pending_level), d.store.snapshot()


@pytest.mark.timeout(90)
def test_floor_mistakes_are_refused_in_words_and_the_table_deals_on(tmp_path: Path) -> None:
    with plain_broker() as broker:
        asyncio.run(asyncio.wait_for(_refusals(tmp_path, broker.port), 75))


async def _refusals(tmp: Path, port: int) -> None:
    async with running(tmp, port) as rig:
        await rig.setup()  # seats 1-3, level 50/100, the button at seat 1
        assert rig.state()["table_seats"] == [1, 2, 3, 4, 5, 6]  # the zone map's seats
        before = table(rig)
        states = len(rig.venue.on("state"))
        for cmd, args, said in REFUSALS:
            resp = await send(rig, cmd, args)
            assert resp["ok"] is False and resp["reason"] == said, (cmd, args, resp)
            assert table(rig) == before, (cmd, args)
        # a profile whose players each post the ante: a big blind ante is refused there
        assert (await send(rig, "set_profile", {"profile": "club-003"}))["ok"] is True
        resp = await send(rig, "set_level", {"level": 2, "small_blind": 100, "big_blind": 200,
                                             "ante": 25, "big_blind_ante": True})  # fmt: skip
        assert resp["reason"] == ("This table's profile club-003 has every player post the ante,"
                                  " not the big blind: untick big blind ante (or change the"
                                  " table's profile).")  # fmt: skip
        assert (await send(rig, "set_profile", {"profile": "tda-2024"}))["ok"] is True
        await asyncio.sleep(0.2)
        assert all(s["seat"] in (1, 2, 3) for s in rig.state()["seats"])
        assert rig.daemon.core.snapshot().small_blind == 50
        # the table is healthy: the next hand posts and deals, the button acts, no alert
        await rig.to_first_action()
        await rig.settled()
        assert rig.venue.on("alerts") == [], rig.venue.on("alerts")
        assert len(rig.venue.on("state")) > states
        # and a sensible command of each kind still goes through
        level = {"level": 2, "small_blind": 100, "big_blind": 200, "ante": 200,
                 "big_blind_ante": True}  # fmt: skip
        assert (await send(rig, "set_level", level))["ok"]
        assert (await send(rig, "seat", {"seat": 6, "player_id": "p6", "name": "Fay",
                                         "stack": 5000}))["ok"]  # fmt: skip
        await wait_for(lambda: any(s["seat"] == 6 for s in rig.state()["seats"]), "seat 6")
