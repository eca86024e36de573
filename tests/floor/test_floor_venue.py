"""The room view's model (issue 22): tables named and numbered from the venue file, the feed
holding only the alerts a table has not closed, the console's broker link in the snapshot
and the stream's changes, and the venue file's refusals naming what is wrong."""

from __future__ import annotations

import argparse
import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from controller.floor.cli import load_config, register
from controller.floor.room import OPEN_ALERTS, Room
from controller.floor.stream import KEEPALIVE, Frames
from controller.floor.venue import ESCALATE_AFTER_S, Venue, load_venue, parse_venue
from controller.link import schemas
from controller.rules.errors import ConfigError

STATE: dict[str, Any] = {"seq": 1, "bdseq": 1, "ts": 10.0, "hand_no": 3, "street": "flop",
                         "board": [], "pot": 300, "to_act": 2, "seats": []}  # fmt: skip


def _alert(aid: str, code: str = "MISDEAL", severity: str = "warning") -> dict[str, Any]:
    a = {"seq": 2, "bdseq": 1, "ts": 11.0, "alert_id": aid, "code": code, "severity": severity,
         "clause": "TDA-2024 R35", "remedy": "Re-deal.", "seat": 3, "hand_no": 3}  # fmt: skip
    schemas.validate("alert", a)  # what a table publishes
    return a


def _ack(aid: str) -> dict[str, Any]:
    e = {"seq": 3, "bdseq": 1, "ts": 12.0, "kind": "alert_ack", "hand_no": 3,
         "data": {"alert_id": aid, "by": "sam"}}  # fmt: skip
    schemas.validate("event", e)
    return e


VENUE = """
[room]
escalate_after_s = 30

[tables."v1/demo-78d4c86a"]
number = 7
name = "Feature table"

[tables.t2]
number = 2
"""


def test_tables_named_and_numbered_from_the_venue_file(tmp_path: Path) -> None:
    (tmp_path / "venue.toml").write_text(VENUE)
    room = Room(load_venue(tmp_path / "venue.toml"))
    for key in ("v1/demo-78d4c86a", "v9/t2", "v1/t3"):
        room.apply(f"railguard/{key}/state", STATE, 1.0)
    tiles = {t["key"]: t for t in room.snapshot()["tiles"]}
    assert (tiles["v1/demo-78d4c86a"]["name"], tiles["v1/demo-78d4c86a"]["number"]) == (
        "Feature table", 7)  # fmt: skip
    assert (tiles["v9/t2"]["name"], tiles["v9/t2"]["number"]) == ("Table 2", 2)  # any venue
    assert (tiles["v1/t3"]["name"], tiles["v1/t3"]["number"]) == ("t3", None)  # not named
    assert room.snapshot()["settings"] == {"escalate_after_s": 30, "stale_after_s": 0}


def test_the_config_carries_the_venue_file(tmp_path: Path) -> None:
    (tmp_path / "venue.toml").write_text(VENUE)
    (tmp_path / "floor.toml").write_text('[floor]\nusers_file = "u.toml"\n'
                                         'venue_file = "venue.toml"\n')  # fmt: skip
    cfg = load_config(tmp_path / "floor.toml")
    assert cfg.venue is not None and cfg.venue.name_of("v1", "t2").number == 2
    (tmp_path / "floor.toml").write_text('[floor]\nusers_file = "u.toml"\n')
    assert load_config(tmp_path / "floor.toml").venue is None
    assert Venue().escalate_after_s == ESCALATE_AFTER_S


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("[tables.t1]\nnumber = 1\n[tables.t2]\nnumber = 1\n", 'tables."t2".number 1: also "t1"'),
        ('[tables.t1]\nname = "Main"\n[tables.t2]\nname = "MAIN"\n', "names are unique"),
        ('[tables."a/b/c"]\nnumber = 1\n', '"<venue>/<table>" or "<table>"'),
        ("[tables.t1]\nnumber = 0\n", "an integer 1-9999"),
        ('[tables.t1]\nname = ""\n', "1-40 characters"),
        ("[tables.t1]\nseats = 6\n", "number and name only"),
        ("[room]\nescalate_after_s = 0\n", "room.escalate_after_s"),
        ("[room]\nbeep = 1\n", "unknown key(s) ['beep']"),
        ("[rooms]\n", "unknown section(s) ['rooms']"),
    ],
)
def test_a_bad_venue_file_is_refused_naming_what_is_wrong(text: str, says: str,
                                                          tmp_path: Path) -> None:  # fmt: skip
    (tmp_path / "venue.toml").write_text(text)
    with pytest.raises(ConfigError) as err:
        load_venue(tmp_path / "venue.toml")
    assert says in str(err.value) and "venue.toml" in str(err.value)


def test_the_feed_drops_what_the_table_closed() -> None:
    room = Room()
    room.apply("railguard/v1/t1/alerts", _alert("a1"), 1.0)
    room.apply("railguard/v1/t2/alerts", _alert("a1"), 1.5)  # the same id at another table
    changes = room.apply("railguard/v1/t1/alerts", _alert("a2", "WRONG_FIRST_SEAT", "critical"),
                         2.0)  # fmt: skip
    assert changes[0]["alert"]["received"] == 2.0
    assert [(a["table"], a["alert_id"]) for a in room.snapshot()["feed"]] == [
        ("t1", "a2"), ("t2", "a1"), ("t1", "a1")]  # fmt: skip
    room.apply("railguard/v1/t1/events", _ack("a1"), 3.0)
    assert [(a["table"], a["alert_id"]) for a in room.snapshot()["feed"]] == [
        ("t1", "a2"), ("t2", "a1")]  # fmt: skip
    assert room.apply("railguard/v1/t1/alerts", _alert("a2"), 4.0) == []  # delivered twice


def test_a_tile_keeps_as_many_open_alerts_as_the_table() -> None:
    room = Room()
    for n in range(OPEN_ALERTS + 5):
        room.apply("railguard/v1/t1/alerts", _alert(f"a{n}"), float(n))
    tile = room.snapshot()["tiles"][0]
    assert [a["alert_id"] for a in tile["alerts"]][:2] == ["a5", "a6"]
    assert len(tile["alerts"]) == OPEN_ALERTS
    assert all(a["alert_id"] not in ("a0", "a4") for a in room.snapshot()["feed"])


def test_the_link_state_and_the_last_message() -> None:
    room = Room()
    assert room.snapshot(5.0)["link"]["connected"] is False
    up = room.link_state(True, 10.0)
    assert up == [{"type": "link", "now": 10.0, "link": {
        "connected": True, "since": 10.0, "reason": "", "last_message": None}}]  # fmt: skip
    room.apply("railguard/v1/t1/state", STATE, 11.0)
    down = room.link_state(False, 20.0, "connection lost")[0]["link"]
    assert down == {"connected": False, "since": 20.0, "reason": "connection lost",
                    "last_message": 11.0}  # fmt: skip
    # a retry failing for another reason: still down since 20
    assert room.link_state(False, 25.0, "refused")[0]["link"]["since"] == 20.0
    assert parse_venue({}).tables == {}


def test_a_change_of_the_broker_link_goes_out_at_once() -> None:
    """The header's status does not wait for the end of a frame (an hour here)."""

    async def run() -> bytes | None:
        frames = Frames(frame_s=3600.0)
        client = frames.open()
        frames.add(Room().link_state(False, 5.0, "connection refused"))
        return await client.take(keepalive=30)

    got = asyncio.run(run())
    assert got is not None and got != KEEPALIVE
    body = json.loads(got.decode().removeprefix("data: "))
    assert body["type"] == "link" and body["link"]["reason"] == "connection refused"


def test_railguard_floor_run_takes_a_venue_file() -> None:
    parser = argparse.ArgumentParser()
    register(parser)
    args = parser.parse_args(["run", "--config", "floor.toml", "--venue", "venue.toml"])
    assert args.venue == "venue.toml"


def test_an_alert_the_table_does_not_hold_is_closed_on_its_word() -> None:
    room = Room()
    room.apply("railguard/v1/t1/alerts", _alert("a1"), 1.0)
    assert room.closed_at_table("v1", "t2", "a1") == []  # another table's: nothing
    changes = room.closed_at_table("v1", "t1", "a1")
    assert [c["type"] for c in changes] == ["ack", "tile"] and changes[1]["tile"]["alerts"] == []
    assert room.snapshot()["feed"] == [] and room.closed_at_table("v1", "t1", "a1") == []
