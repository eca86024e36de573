"""The command guard with the table store (issue 11 defect 8): request ids are committed
before a command runs, survive a new guard on the same file (a restart), are pruned once
their commands are stale, and a command whose id cannot be stored is refused. And the
parser refuses text no store can hold (a lone surrogate, defect 6)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from controller.daemon.table_store import TableStore
from controller.link import CommandRefused, parse_command
from controller.link.commands import CommandGuard

NOW = 1_800_000_000.0


def payload(rid: str, ts: float = NOW, **args: Any) -> bytes:
    body = {"request_id": rid, "ts": ts, "command": "unseat", "args": {"seat": 3, **args}}
    return json.dumps(body).encode()


class Clock:
    def __init__(self) -> None:
        self.now = NOW

    def __call__(self) -> float:
        return self.now


def guard(store: TableStore, clock: Clock) -> CommandGuard:
    g = CommandGuard(clock=clock)
    g.persist(store)
    return g


def test_a_request_id_survives_a_new_guard(tmp_path: Path) -> None:
    clock = Clock()
    store = TableStore(tmp_path / "table.db")
    guard(store, clock).admit(payload("r1"))
    store.close()
    # a restart: a new connection and a new guard on the same file
    store = TableStore(tmp_path / "table.db")
    g = guard(store, clock)
    assert g.seen_count == 1
    with pytest.raises(CommandRefused, match="replayed"):
        g.admit(payload("r1"))
    # also when the in-memory memory no longer has it: the store refuses the insert
    g2 = CommandGuard(clock=clock, memory=0)
    g2.persist(store)
    with pytest.raises(CommandRefused, match="replayed"):
        g2.admit(payload("r1"))
    assert list(store.command_ids()) == ["r1"]


def test_ids_are_pruned_once_their_commands_are_stale(tmp_path: Path) -> None:
    clock = Clock()
    store = TableStore(tmp_path / "table.db")
    g = guard(store, clock)
    g.admit(payload("old"))
    clock.now += g.max_age + g.max_skew + 1
    g.admit(payload("new", ts=clock.now))
    assert list(store.command_ids()) == ["new"]
    # the old command could not come back anyway: it is stale
    with pytest.raises(CommandRefused, match="stale"):
        g.admit(payload("old"))


def test_an_id_that_cannot_be_stored_refuses_the_command(tmp_path: Path) -> None:
    clock = Clock()
    store = TableStore(tmp_path / "table.db", busy_timeout=0.05)
    g = guard(store, clock)
    other = sqlite3.connect(tmp_path / "table.db", isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    try:
        with pytest.raises(CommandRefused, match="store: request id not recorded"):
            g.admit(payload("r1"))
    finally:
        other.rollback()
        other.close()
    assert store.command_ids() == {} and g.seen_count == 0
    g.admit(payload("r1"))  # nothing was spent: the same command is accepted now


@pytest.mark.parametrize("where", ["name", "player_id"])
def test_a_lone_surrogate_is_refused_with_its_place(where: str) -> None:
    args: dict[str, Any] = {"seat": 4, "player_id": "p4", "name": "Dee", "stack": 5}
    args[where] = "X"
    body = {"request_id": "r1", "ts": NOW, "command": "seat", "args": args}
    raw = json.dumps(body).replace('"X"', '"\\ud800"')
    with pytest.raises(CommandRefused, match=f"args/{where}: not valid Unicode") as err:
        parse_command(raw.encode())
    assert err.value.request_id == "r1"


def test_the_store_refuses_a_name_it_cannot_encode(tmp_path: Path) -> None:
    store = TableStore(tmp_path / "table.db")
    with pytest.raises(ValueError, match="name is not valid Unicode"):
        store.put_seating([(4, "p4", "\ud800", 5)])
    assert store.seating() == {}
