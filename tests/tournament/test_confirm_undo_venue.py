"""A confirmed move that a table refuses is undone (EventService._confirm/_undo), with real
tables: a private mosquitto, two simulated tables (real daemons) and the tournament service.
Three entrants drawn over two tables and a fourth registered late fit one table: the
service proposes to break t2 into t1. Before the director confirms, someone seats a player
by hand in the seat of t1 that the second move needs (the console's seat form, not the
event's). The confirm unseats both players at t2, seats the first at t1, is refused the
second seat, and puts everything back: the first player unseated at t1, both seated again at
t2 in their own seats with their own stacks; the proposal stays pending, the event's state
is unchanged, and the refusal says what happened."""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
from pathlib import Path
from typing import Any

from controller.link.config import BrokerConfig
from controller.tournament.errors import Refused
from controller.tournament.link import EventLink
from controller.tournament.service import EventService
from controller.tournament.store import Journal
from hwsim.layout import Layout, wait_until
from hwsim.table import SimTable
from tests.brokers import plain_broker
from tests.floor.test_floor_tournament_browser import EVENT, _seats


async def _play(tmp: Path, port: int) -> dict[str, Any]:
    broker = BrokerConfig(host="127.0.0.1", port=port, tls=False, allow_plaintext=True)
    tables: dict[str, SimTable] = {}
    journal = Journal(tmp / "sunday.db")
    out: dict[str, Any] = {}
    running = None
    try:
        for t in ("t1", "t2"):
            tables[t] = await SimTable.open("127.0.0.1", port, profile="a2c-000",
                                            workdir=tmp / t, table_id=t, seats=Layout(6),
                                            enrol=False)  # fmt: skip
        link = EventLink(broker)
        service = EventService(journal.open_event(EVENT, "sunday.toml"), journal,
                               random.Random(3), time.time, link.send, link.publish)  # fmt: skip
        running = asyncio.create_task(link.run(service))
        await asyncio.wait_for(link.connected.wait(), 10)
        await service.command("draw", {}, "test")
        await service.command("register", {"player_id": "late", "name": "Late Lou"}, "test")
        for t, sim in tables.items():
            want = service.state.occupied()[t]
            await wait_until(lambda sim=sim, want=want: {s: p for s, (p, _) in _seats(sim).items()}
                             == want, f"{t} seated", 15)  # fmt: skip
        prop = service.state.proposal
        assert prop is not None and prop.breaks == ("t2",) and len(prop.moves) == 2
        out["moves"] = prop.moves
        blocked = prop.moves[1].to_seat
        await tables["t1"].venue.do("seat", seat=blocked, player_id="walk-in", name="Walk In",
                                    stack=5000)  # fmt: skip
        await wait_until(lambda: blocked in _seats(tables["t1"]), "the walk-in", 15)
        out["before"] = {t: _seats(s) for t, s in tables.items()}
        out["state"] = service.state
        try:
            await service.command("confirm", {"proposal": prop.id}, "test")
        except Refused as exc:
            out["refused"] = str(exc)
        await asyncio.sleep(0.3)  # the tables' last states
        out["after"] = {t: _seats(s) for t, s in tables.items()}
        out["state_after"] = service.state
        again = Journal(tmp / "sunday.db")  # what a restart would replay
        out["journal"] = again.open_event(EVENT, "sunday.toml")
        again.close()
    finally:
        if running is not None:
            running.cancel()
            with contextlib.suppress(BaseException):
                await running
        journal.close()
        for s in tables.values():
            await s.close()
    return out


def test_a_refused_seat_puts_the_moved_players_back(tmp_path: Path) -> None:
    with plain_broker() as b:
        out = asyncio.run(asyncio.wait_for(_play(tmp_path, b.port), 90))
    first, second = out["moves"]
    assert out["refused"].startswith(f"t1 refused seat {second.to_seat} for {second.player}")
    assert out["refused"].endswith("the players were put back")
    before, after = out["before"], out["after"]
    walk_in = before["t1"][second.to_seat]
    assert after == before  # t2 as it was, t1 with its own players and the walk-in only
    assert after["t1"][second.to_seat] == walk_in and first.to_seat not in after["t1"]
    assert out["state_after"] == out["state"]  # nothing moved in the event
    assert out["state_after"].proposal is not None
    assert out["state_after"].proposal.id == out["state"].proposal.id
    assert out["journal"] == out["state"]  # no MovesDone written
