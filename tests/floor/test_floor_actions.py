"""The floor's actions through the console's HTTP API, against two simulated tables (each
a real daemon with its board and GPIO simulated) on a private mosquitto: unseat, move
within a table and to another one (and back when the new table refuses), the button draw,
the level for the whole room, a table's profile (packaged and a house profile's document).

Every answer is checked against what the tables themselves published and hold (their
live state, their daemon's core), and every refusal (a viewer, a supervisor asking for a
director's action, no CSRF token, bad input, an invalid house profile) against the tables'
command counters: nothing reached them."""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import aiohttp
import aiomqtt
import pytest

from controller.floor.auth import hash_password
from controller.floor.cli import FloorConfig, start, stop
from controller.floor.console import Console
from controller.link.config import BrokerConfig
from controller.rules.profile_document import house_profile
from hwsim.table import SimTable
from tests.brokers import free_port, plain_broker

pytestmark = pytest.mark.timeout(120)
USERS = {"sam": "supervisor", "dan": "director", "vic": "viewer"}
ACTIONS = {  # every state-changing route of actions.py, with a valid body
    "/api/unseat": {"venue": "v1", "table": "t1", "seat": 1},
    "/api/move": {"venue": "v1", "table": "t1", "from_seat": 1, "to_seat": 4},
    "/api/button_draw": {"venue": "v1", "table": "t1"},
    "/api/room/level": {"level": 2, "small_blind": 100, "big_blind": 200, "ante": 0},
    "/api/profile": {"venue": "v1", "table": "t1", "profile": "club-003"},
    "/api/profile/check": {"document": "[profile]\n"},
}
DIRECTOR_ONLY = {"/api/room/level": "room_level", "/api/profile": "profile",
                 "/api/profile/check": "profile"}  # fmt: skip


def _doc(base: str, name: str) -> str:
    text = (resources.files("controller.rules") / "profiles" / f"{base}.toml").read_text()
    return text.replace(f'name = "{base}"', f'name = "{name}"', 1)


@dataclass
class Room:
    url: str
    tables: dict[str, SimTable]
    sessions: dict[str, tuple[aiohttp.ClientSession, str]]  # user: (session, csrf)
    port: int
    console: Console

    async def post(self, user: str, path: str, body: dict[str, Any],
                   csrf: bool = True) -> tuple[int, Any]:  # fmt: skip
        s, token = self.sessions[user]
        headers = {"X-CSRF-Token": token} if csrf else {}
        async with s.post(self.url + path, json=body, headers=headers) as r:
            text = await r.text()
            return r.status, (json.loads(text) if r.content_type == "application/json" else text)

    async def get(self, user: str, path: str) -> Any:
        async with self.sessions[user][0].get(self.url + path) as r:
            assert r.status == 200, await r.text()
            return await r.json()

    def seats(self, table: str) -> dict[int, dict[str, Any]]:
        """The seats of the table's last published state."""
        states = self.tables[table].venue.on("state")
        return {s["seat"]: s for s in states[-1]["seats"]} if states else {}

    def commands(self) -> dict[str, int]:
        return {k: t.daemon.stats.commands for k, t in self.tables.items()}


def console_profile(room: Room, table: str) -> Any:
    """The profile the console's room shows for ``table`` (from its last state)."""
    return room.console.room.tiles[f"v1/{table}"].state.get("profile")


async def _until(cond: Callable[[], Any], what: str, timeout: float = 10) -> None:
    for _ in range(int(timeout / 0.02)):
        if cond():
            return
        await asyncio.sleep(0.02)
    raise AssertionError(f"never: {what}")


@contextlib.asynccontextmanager
async def _room(tmp: Path, port: int) -> AsyncIterator[Room]:
    users = tmp / "users.toml"
    users.write_text("".join(f'[users.{u}]\nrole = "{r}"\npassword = "{hash_password(u * 3)}"\n'
                             for u, r in USERS.items()))  # fmt: skip
    tables: dict[str, SimTable] = {}
    sessions: dict[str, tuple[aiohttp.ClientSession, str]] = {}
    cfg = FloorConfig(broker=BrokerConfig(host="127.0.0.1", port=port, tls=False,
                                          allow_plaintext=True),
                      users_file=str(users), port=free_port())  # fmt: skip
    runner, console = await start(cfg)
    try:
        for t in ("t1", "t2"):
            tables[t] = await SimTable.open("127.0.0.1", port, profile="tda-2024",
                                            workdir=tmp / t, table_id=t, enrol=False)  # fmt: skip
        url = f"http://127.0.0.1:{cfg.port}"
        for u in USERS:
            s = aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True))
            r = await s.post(f"{url}/api/login", json={"user": u, "password": u * 3})
            assert r.status == 200
            sessions[u] = (s, (await r.json())["csrf"])
        room = Room(url, tables, sessions, port, console)
        await _until(lambda: {"v1/t1", "v1/t2"} <= set(console.room.tiles), "both tiles")
        for t, table in tables.items():  # two players each, through the table's contract
            for seat in (1, 2):
                await table.venue.do("seat", seat=seat, player_id=f"{t}p{seat}",
                                     name=f"{t} player {seat}", stack=5000 + seat)  # fmt: skip
        await _until(lambda: all(len(room.seats(t)) == 2 for t in tables), "the seats")
        await _until(lambda: all(len(console.room.tiles[f"v1/{t}"].state.get("seats", [])) == 2
                                 for t in tables), "the seats on the tiles")  # fmt: skip
        yield room
    finally:
        for s, _ in sessions.values():
            await s.close()
        for table in tables.values():
            await table.close()
        await stop(runner, console)


def _run(tmp: Path, scenario: Callable[[Room], Awaitable[None]]) -> None:
    async def main(port: int) -> None:
        async with _room(tmp, port) as room:
            await scenario(room)

    with plain_broker() as b:
        asyncio.run(asyncio.wait_for(main(b.port), 100))


# ---------------------------------------------------------------- refusals


def test_refusals_reach_no_table(tmp_path: Path) -> None:
    _run(tmp_path, _refusals)


async def _refusals(room: Room) -> None:
    before = room.commands()
    for path, body in ACTIONS.items():
        status, text = await room.post("vic", path, body)
        assert (status, "vic is a viewer: viewers change nothing") == (403, text), path
        for user in ("sam", "dan"):
            status, text = await room.post(user, path, body, csrf=False)
            assert (status, text) == (403, "missing or wrong CSRF token"), (path, user)
    for path, action in DIRECTOR_ONLY.items():
        status, text = await room.post("sam", path, ACTIONS[path])
        assert (status, text) == (403, f"sam is a supervisor: {action} needs a director"
                                  " (tournament director)")  # fmt: skip
    bad = [
        ("sam", "/api/unseat", {"venue": "v1", "table": "t1", "seat": 11},
         "Seat 11 does not exist: seats are numbered 1 to 10 at most."),
        ("sam", "/api/unseat", {"venue": "v1", "table": "t1", "seat": "1"},
         "The seat must be a seat number (1 to 10)."),
        ("sam", "/api/move", {**ACTIONS["/api/move"], "to_seat": 1},
         "Seat 1 is both the seat to move from and the seat to move to."),
        ("dan", "/api/room/level", {**ACTIONS["/api/room/level"], "small_blind": 300},
         "The small blind (300) may not be larger than the big blind (200)."),
        ("dan", "/api/profile", {"venue": "v1", "table": "t1", "profile": "wsop"},
         "'wsop' is not a packaged profile"),
        ("dan", "/api/profile", {"venue": "v1", "table": "t1"}, "give profile"),
    ]  # fmt: skip
    for user, path, body, reason in bad:
        status, text = await room.post(user, path, body)
        assert status == 400 and reason in text, (path, body, status, text)
    await asyncio.sleep(0.3)
    assert room.commands() == before  # nothing was sent to either table
    assert {t: sorted(room.seats(t)) for t in room.tables} == {"t1": [1, 2], "t2": [1, 2]}


# ---------------------------------------------------------------- the supervisor's


def test_unseat_move_and_draw(tmp_path: Path) -> None:
    _run(tmp_path, _supervisor)


async def _supervisor(room: Room) -> None:
    t1, t2 = room.tables["t1"].daemon, room.tables["t2"].daemon
    # unseat: the table's answer says who left with what
    status, resp = await room.post("sam", "/api/unseat", {"venue": "v1", "table": "t1", "seat": 2})
    assert status == 200 and resp["ok"], resp
    assert resp["data"] == {"seat": 2, "player_id": "t1p2", "name": "t1 player 2", "stack": 5002}
    await _until(lambda: sorted(room.seats("t1")) == [1], "seat 2 empty at t1")
    before = room.commands()  # the console sees the seat empty: nothing is sent
    status, resp = await room.post("sam", "/api/unseat", {"venue": "v1", "table": "t1", "seat": 5})
    assert (status, resp) == (400, "Seat 5 is empty: there is nobody to unseat.")
    assert room.commands() == before

    # a move within the table: the table's own move
    body = {"venue": "v1", "table": "t1", "from_seat": 1, "to_seat": 4}
    status, resp = await room.post("sam", "/api/move", body)
    assert status == 200 and resp["ok"] and resp["data"] == {"seat": 4}, resp
    await _until(lambda: sorted(room.seats("t1")) == [4], "the player in seat 4")
    assert room.seats("t1")[4]["player_id"] == "t1p1" and t1.core.seats[4].stack == 5001

    # to another table: unseated at t1, seated at t2 with the same stack and name
    await _until(lambda: sorted(room.seats("t1")) == [4], "the tile")  # the room has seen it
    body = {"venue": "v1", "table": "t1", "from_seat": 4, "to_table": "t2", "to_seat": 7}
    status, resp = await room.post("sam", "/api/move", body)
    assert status == 200 and resp["ok"], resp
    assert [(s["table"], s["command"], s["ok"]) for s in resp["steps"]] == [
        ("v1/t1", "unseat", True), ("v1/t2", "seat", True)]  # fmt: skip
    await _until(lambda: 7 in room.seats("t2") and not room.seats("t1"), "the move seen")
    moved = room.seats("t2")[7]
    assert (moved["player_id"], moved["name"], moved["stack"]) == ("t1p1", "t1 player 1", 5001)
    assert t2.core.seats[7].stack == 5001 and 4 not in t1.core.seats

    # a seat the room shows taken at the other table: nobody moves, nothing is sent
    body = {"venue": "v1", "table": "t2", "from_seat": 7, "to_table": "t1", "to_seat": 4}
    await room.tables["t1"].venue.do("seat", seat=4, player_id="late", name="Late", stack=99)
    await _until(lambda: 4 in room.seats("t1"), "seat 4 taken at t1")
    await asyncio.sleep(0.3)  # the console's tile too
    before = room.commands()
    status, resp = await room.post("sam", "/api/move", body)
    assert status == 200 and not resp["ok"] and resp["reason"] == "v1/t1 seat 4 is taken by late"
    assert room.commands() == before
    # the new table refuses (the player already sits there): back to the old seat
    await room.tables["t1"].venue.do("unseat", seat=4)
    await room.tables["t1"].venue.do("seat", seat=9, player_id="t1p1", name="Twin", stack=1)
    await asyncio.sleep(0.3)
    status, resp = await room.post("sam", "/api/move", {**body, "to_seat": 5})
    assert status == 200 and not resp["ok"], resp
    assert [(s["table"], s["command"], s["ok"]) for s in resp["steps"]] == [
        ("v1/t2", "unseat", True), ("v1/t1", "seat", False), ("v1/t2", "seat", True)]  # fmt: skip
    assert resp["reason"] == ("v1/t1: Player t1p1 already sits in seat 9: move them instead;"
                              " t1 player 1 is back in v1/t2 seat 7")  # fmt: skip
    await _until(lambda: 7 in room.seats("t2"), "the player back at t2")
    assert t2.core.seats[7].stack == 5001 and 5 not in t1.core.seats

    # the button draw: the table's answer names its profile's draw rule
    status, resp = await room.post("sam", "/api/button_draw", {"venue": "v1", "table": "t2"})
    assert status == 200 and resp["ok"] and resp["data"] == {"draw_rule": "high-card"}, resp
    assert t2.core.phase.value == "draw"
    status, resp = await room.post("sam", "/api/button_draw", {"venue": "v1", "table": "t2"})
    assert status == 200 and not resp["ok"] and "not accepted" in resp["reason"], resp


# ---------------------------------------------------------------- the director's


def test_room_level_and_profiles(tmp_path: Path) -> None:
    _run(tmp_path, _director)


async def _director(room: Room) -> None:
    t1, t2 = room.tables["t1"].daemon, room.tables["t2"].daemon
    # a third table the room has seen go offline (its retained last will): not sent to
    will = {"status": "offline", "bdseq": 3, "ts": time.time(), "venue": "v1", "table": "t9"}
    async with aiomqtt.Client("127.0.0.1", room.port, identifier="t9-will") as c:
        await c.publish("railguard/v1/t9/status", json.dumps(will), qos=1, retain=True)
    for _ in range(250):
        if "v1/t9" in [t["key"] for t in (await room.get("dan", "/api/room"))["tiles"]]:
            break
        await asyncio.sleep(0.02)
    level = {"level": 3, "small_blind": 150, "big_blind": 300, "ante": 300, "big_blind_ante": True}
    # confirmed for another number of tables than the room has online now: nothing is sent
    before = room.commands()
    status, resp = await room.post("dan", "/api/room/level", {**level, "tables": 3})
    assert (status, resp) == (409, "The room has 2 tables online now, not 3: check the level"
                                   " and confirm again.")  # fmt: skip
    assert room.commands() == before
    status, resp = await room.post("dan", "/api/room/level", level)
    assert status == 200 and not resp["ok"] and resp["reason"] == "not set at v1/t9", resp
    assert [(r["table"], r["ok"], r["data"].get("applies")) for r in resp["results"]] == [
        ("v1/t1", True, "now"), ("v1/t2", True, "now"), ("v1/t9", False, None)]  # fmt: skip
    assert resp["results"][2]["reason"].startswith("offline: not sent")
    for table in ("t1", "t2"):
        await _until(lambda t=table: room.tables[t].venue.on("state")[-1]["level"]["big_blind"]
                     == 300, f"the level at {table}")  # fmt: skip
        lvl = room.tables[table].venue.on("state")[-1]["level"]
        assert (lvl["level"], lvl["small_blind"], lvl["ante"]) == (3, 150, 300)

    # a packaged profile for one table
    body = {"venue": "v1", "table": "t1", "profile": "club-003"}
    status, resp = await room.post("dan", "/api/profile", body)
    assert status == 200 and resp["data"] == {"profile": "club-003", "applies": "now"}, resp
    assert t1.core.profile.name == "club-003" and t2.core.profile.name == "tda-2024"
    # a big blind ante where the profile has each player ante (club-003): not sent there
    await _until(lambda: console_profile(room, "t1") == "club-003", "club-003 on the tile")
    before = room.commands()
    status, resp = await room.post("dan", "/api/room/level", {**level, "level": 4})
    assert status == 200 and resp["reason"] == "not set at v1/t1, v1/t9", resp
    assert resp["results"][0]["reason"] == (
        "not sent: This table's profile club-003 has every player post the ante, not the big"
        " blind: untick big blind ante (or change the table's profile).")  # fmt: skip
    assert resp["results"][1]["ok"] and room.commands()["t1"] == before["t1"]

    # a house profile: checked by the console (nothing sent when it is wrong), then the table
    before = room.commands()
    bad = _doc("tda-2024", "our-house").replace('draw_rule = "high-card"', 'draw_rule = "ace"')
    status, resp = await room.post("dan", "/api/profile/check", {"document": bad})
    assert status == 200 and resp == {"ok": False, "reason": "house profile: key 'draw_rule':"
                                      " 'ace' is not one of 'high-card', 'first-ace'"}  # fmt: skip
    status, text = await room.post("dan", "/api/profile", {"venue": "v1", "table": "t2",
                                                           "document": bad})  # fmt: skip
    assert status == 400 and "key 'draw_rule': 'ace' is not one of" in text
    big = _doc("tda-2024", "our-house") + "#" * 8192
    status, text = await room.post("dan", "/api/profile", {"venue": "v1", "table": "t2",
                                                           "document": big})  # fmt: skip
    assert status == 413 and "a profile document is at most 8192 bytes" in text
    assert room.commands() == before
    good = _doc("tda-2024", "our-house").replace('draw_rule = "high-card"',
                                                 'draw_rule = "first-ace"')  # fmt: skip
    status, resp = await room.post("dan", "/api/profile/check", {"document": good})
    assert status == 200 and resp["ok"] and resp["profile"]["name"] == "our-house"
    assert resp["profile"]["draw_rule"] == "first-ace" and resp["profile"]["max_seats"] == 10
    status, resp = await room.post("dan", "/api/profile", {"venue": "v1", "table": "t2",
                                                           "document": good})  # fmt: skip
    assert status == 200 and resp["ok"], resp
    assert resp["data"] == {"profile": "our-house", "title": "Poker TDA 2024", "applies": "now"}
    assert t2.core.profile == house_profile(good)
    await _until(lambda: room.tables["t2"].venue.on("state")[-1]["profile"] == "our-house",
                 "t2's state")  # fmt: skip
    # what only the table can judge: its occupied seats (the console's check passes)
    await room.tables["t2"].venue.do("seat", seat=6, player_id="p6", name="Six", stack=100)
    small = good.replace('rulebook = "TDA 2024"\n', 'rulebook = "TDA 2024"\nmax_seats = 4\n')
    status, resp = await room.post("dan", "/api/profile/check", {"document": small})
    assert status == 200 and resp["ok"]
    status, resp = await room.post("dan", "/api/profile", {"venue": "v1", "table": "t2",
                                                           "document": small})  # fmt: skip
    assert status == 200 and resp == {**resp, "ok": False,
                                      "reason": "house profile 'our-house' has 4 seats; seats [6]"
                                      " are occupied"}  # fmt: skip
    assert t2.core.profile == house_profile(good)
