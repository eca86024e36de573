"""The room model's dealer on duty and storage health (issue 17): a tile shows them as the
table's state (the contract's ``state.json``, docs/mqtt.md) says them, an older table's
state (neither field) shows none, and a payload outside the contract changes no tile."""

from __future__ import annotations

from typing import Any

from controller.floor.room import Room
from controller.link import schemas

BASE: dict[str, Any] = {
    "seq": 4, "bdseq": 2, "ts": 10.0, "hand_no": 7, "street": "turn",
    "board": ["Ah", "Kd", "2c", "9s"], "pot": 600, "to_act": 3, "button": 1,
    "seats": [{"seat": 3, "player_id": "p3", "name": "Cy", "stack": 800, "bet": 0,
               "cards_held": 2, "status": "active"}],
}  # fmt: skip
DEGRADED = {
    "health": "degraded",
    "reasons": [
        {"code": "write_failing", "detail": "outbox lane: database is locked"},
        {"code": "disk_low", "detail": "12 MiB free on /var/lib/railguard (below 64 MiB)"},
    ],
}


def _tile(room: Room) -> dict[str, Any]:
    tiles = room.snapshot()["tiles"]
    assert len(tiles) == 1
    return dict(tiles[0]["state"])


def test_tile_shows_the_dealer_and_storage_as_published() -> None:
    room = Room()
    state = {**BASE, "dealer": "D-017", "storage": DEGRADED}
    schemas.validate("state", state)  # what a table of this version publishes
    room.apply("railguard/v1/t1/state", state, 11.0)
    tile = _tile(room)
    assert tile["dealer"] == "D-017"
    assert tile["storage"] == DEGRADED
    # logged out, storage well again
    room.apply("railguard/v1/t1/state",
               {**state, "seq": 5, "dealer": None, "storage": {"health": "ok", "reasons": []}},
               12.0)  # fmt: skip
    tile = _tile(room)
    assert tile["dealer"] is None and tile["storage"] == {"health": "ok", "reasons": []}


def test_an_older_tables_state_has_neither() -> None:
    room = Room()
    room.apply("railguard/v1/t1/state", BASE, 11.0)
    tile = _tile(room)
    assert tile["dealer"] is None and tile["storage"] is None
    assert room.refused == 0


def test_storage_outside_the_contract_is_dropped() -> None:
    room = Room()
    room.apply("railguard/v1/t1/state", {**BASE, "storage": DEGRADED}, 11.0)
    bad = [
        {"health": "poorly", "reasons": []},
        {"health": "ok"},
        {"health": "degraded", "reasons": [{"code": "gremlins", "detail": "x"}]},
        {"health": "degraded", "reasons": [{"code": "disk_low", "detail": "x", "path": "/"}]},
        {"health": "degraded", "reasons": [{"code": "disk_low", "detail": "x" * 201}]},
    ]
    for storage in bad:
        assert room.apply("railguard/v1/t1/state", {**BASE, "storage": storage}, 12.0) == []
    assert room.apply("railguard/v1/t1/state", {**BASE, "dealer": 17}, 12.0) == []
    assert room.refused == len(bad) + 1
    assert _tile(room)["storage"] == DEGRADED  # the last valid state stands
