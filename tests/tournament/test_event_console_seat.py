"""The console's seat form and an event's eliminations (004 [L135], 004-TG-25: no re-buys):
the console (on a private mosquitto, two simulated tables with real daemons) reads the
event's retained standings as the tournament service publishes them (made here by the
tournament core from a seat draw and a hand record in which a player busted); a seat form
naming that player at a table of the event's venue is refused in a sentence and nothing
reaches the table; once the event allows a re-entry, the same form seats him."""

from __future__ import annotations

import asyncio
import json
import random
from dataclasses import replace
from pathlib import Path

import aiomqtt
import pytest

from controller.tournament.standings import standings
from controller.tournament.state import TournamentState
from tests.floor.test_floor_actions import Room, _run, _until
from tests.tournament.events import make_event
from tests.tournament.test_tournament_core import bust, seated


async def _publish(port: int, body: dict[str, object]) -> None:
    async with aiomqtt.Client("127.0.0.1", port, identifier="tournament-standings") as c:
        await c.publish("railguard/_event/ev1/standings", json.dumps(body), qos=1, retain=True)


@pytest.mark.clause("004-TG-25", profiles=("shaved-dog-004",))
def test_the_seat_form_refuses_a_player_the_event_eliminated(tmp_path: Path) -> None:
    ev = make_event(profile="shaved-dog-004", entrants=9)
    state = bust(seated(TournamentState(ev), random.Random(1)), ["p1"], "h1")
    out = state.eliminations[0]
    assert (out.player, out.place) == ("p1", 9)
    form = {"venue": "v1", "table": "t1", "seat": 4, "player_id": "p1", "name": "P One",
            "stack": 5000}  # fmt: skip

    async def scenario(room: Room) -> None:
        await _publish(room.port, standings(state))
        for _ in range(250):  # the console's event topics, as /api/event shows them
            got = await room.get("sam", "/api/event")
            if "standings" in got["events"].get("ev1", {}):
                break
            await asyncio.sleep(0.02)
        before = room.commands()
        status, text = await room.post("sam", "/api/seat", form)
        assert status == 400, (status, text)
        assert text == (
            f"Player p1 was eliminated from event ev1 (place 9, at {out.table}) and the event"
            " allows no"
            " re-entry (004 [L135], 004-TG-25)."
        )
        assert room.commands() == before and 4 not in room.seats("t1")
        # another player, and another venue's event, are not the form's business
        status, _ = await room.post("sam", "/api/seat", {**form, "player_id": "p99"})
        assert status == 200
        await _until(lambda: 4 in room.seats("t1"), "p99 seated")
        await room.post("sam", "/api/unseat", {"venue": "v1", "table": "t1", "seat": 4})
        await _until(lambda: 4 not in room.seats("t1"), "p99 unseated")
        # the event allows re-entry: the form seats him
        re = replace(state, event=replace(ev, rules=replace(ev.rules, reentry=True)))
        await _publish(room.port, standings(re))
        for _ in range(250):
            got = await room.get("sam", "/api/event")
            if got["events"].get("ev1", {}).get("standings", {}).get("reentry"):
                break
            await asyncio.sleep(0.02)
        status, resp = await room.post("sam", "/api/seat", form)
        assert status == 200 and resp["ok"], resp
        await _until(lambda: room.seats("t1").get(4, {}).get("player_id") == "p1", "p1 seated")

    _run(tmp_path, scenario)
