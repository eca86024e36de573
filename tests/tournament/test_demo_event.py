"""``railguard demo --tables 3 --event`` end to end (controller/demo/event.py): a private
mosquitto, three simulated tables (real daemons), the venue logger and the tournament
service play the demo event from the seat draw to the final table. Checked against the
hand records the venue logger stored (not against the service's own view): every player
who finished a stored hand with 0 chips is in the standings' eliminations, with the stack
he started that hand with; players busted in one hand, or in one hand-for-hand round, are
placed together by their starting stacks (000 [L53]: the larger finishes higher, equal
stacks share the place); each player left has the stack of his last stored hand; no chip
is lost. And: the level pushed mid-hand applied from the next hand (G11), the first table
held at hand-for-hand until the other completed, a balance, a break and the final table
confirmed, no alert above info on this clean play, every hand's finishing stacks right.

The test here is ``slow`` (run with ``-m slow``): the default suite runs the same event with
its proposals confirmed in a browser and the same checks
(tests/floor/test_floor_event_demo_browser.py, :func:`check_event`)."""

from __future__ import annotations

import asyncio
import io
from pathlib import Path

import pytest

from controller.demo.event import STACK, EventOutcome, event_room, play_event
from controller.demo.view import View
from controller.venuelog.store import open_for_export
from tests.brokers import plain_broker


async def _run(tmp: Path, port: int) -> EventOutcome:
    async with event_room("127.0.0.1", port, tmp, 3, View(io.StringIO(), colour=False), 5) as room:
        return await play_event(room)


@pytest.mark.slow  # the same event runs in the default suite, confirmed in a browser
def test_the_demo_event_runs_to_the_final_table_with_standings_from_the_records(
    tmp_path: Path,
) -> None:
    with plain_broker() as b:
        out = asyncio.run(asyncio.wait_for(_run(tmp_path, b.port), 150))
    check_event(out, tmp_path / "venue.db")


def check_event(out: EventOutcome, db: Path) -> None:
    """The demo event's outcome against the hand records the venue logger stored in ``db``
    (the module docstring); tests/floor/test_floor_event_demo_browser.py uses it too."""
    assert out.mismatches == [] and out.alarms == {}, (out.mismatches, out.alarms)
    assert out.confirmed == ["balance", "break", "final"]
    assert out.g11 == (50, 50, 100)  # pushed during a 25/50 hand: the next hand 50/100
    assert out.held == [("t1", 1)]
    store = open_for_export(db)
    try:
        records = [r for t in ("t1", "t2", "t3") for r in store.hands("v1", t)]
    finally:
        store.close()
    assert len(records) == out.hands
    busted: dict[str, tuple[str, int]] = {}  # player -> (hand id, stack at its start)
    last: dict[str, tuple[str, int]] = {}  # player -> (ended_at, final stack) of his last hand
    for rec in records:
        for p in rec["ohh"]["players"]:
            ref = p["player_ref"]
            if p["final_stack"] == 0:
                busted[ref] = (rec["hand_id"], p["starting_stack"])
            else:
                last[ref] = max(last.get(ref, ("", 0)), (str(rec["ended_at"]), p["final_stack"]))
    st = out.standings
    elim = {e["player_id"]: e for e in st["eliminated"]}
    assert set(elim) == set(busted) and len(busted) == 7
    for pid, (hand, start) in busted.items():
        assert (elim[pid]["hand_id"], elim[pid]["start_stack"]) == (hand, start)
    # places (000 [L53]): groups busted together in order, the larger start finishing higher,
    # equal starts sharing the higher place; the last two bust hands are the hand-for-hand
    # round (one hand at each of the two tables): one group
    ended = {r["hand_id"]: str(r["ended_at"]) for r in records}
    hands = sorted({h for h, _ in busted.values()}, key=lambda h: ended[h])
    groups = [[h] for h in hands[:-2]] + [hands[-2:]]
    assert {h.split("-")[1] for h in hands[-2:]} == {"t1", "t2"}
    left, want = 11, {}
    for g in groups:
        starts = {pid: st_ for pid, (h, st_) in busted.items() if h in g}
        for pid, start in starts.items():
            want[pid] = left - sum(1 for x in starts.values() if x <= start) + 1
        left -= len(starts)
    assert {pid: e["place"] for pid, e in elim.items()} == want
    assert st["players_left"] == 4 and st["chips"] == 11 * STACK
    stacks = {p["player_id"]: p["stack"] for p in st["players"]}
    assert set(stacks) == set(last) - set(busted)
    assert all(stacks[pid] == last[pid][1] for pid in stacks), (stacks, last)
